#!/bin/bash
# Where record --emulate finds hwprof-emu.so: $HWPROF_EMU_PLUGIN, next to the
# hwprof binary (a build tree), or ../lib/hwprof/ from it (an installed
# hwprof: bin/hwprof + lib/hwprof/hwprof-emu.so); when it is nowhere, one
# line that lists the places looked at.
. "$(dirname "$0")/../tools/emu_lib.sh"
unset HWPROF_EMU_PLUGIN
# PLAN: 1 (the SKIP) where emulated recording cannot run or the plugin is not built
ready=$(emu_ready emulate_install) || { echo "PLAN 1"; echo "$ready"; exit 0; }
so=$build/hwprof-emu.so
[ -f "$so" ] || { echo "PLAN 1"; skip "emulate_install: $so not built"; exit 0; }
echo "PLAN 4"

# an installed layout
mkdir -p "$tmp/prefix/bin" "$tmp/prefix/lib/hwprof"
cp "$HWPROF" "$tmp/prefix/bin/hwprof"
cp "$so" "$tmp/prefix/lib/hwprof/hwprof-emu.so"
if "$tmp/prefix/bin/hwprof" record --emulate -o "$tmp/inst.data" -- /bin/true >/dev/null 2>"$tmp/inst.err" &&
	[ -s "$tmp/inst.data" ]; then
	pass "emulate_install_lib_hwprof (bin/../lib/hwprof/hwprof-emu.so)"
else
	fail "emulate_install_lib_hwprof: $(tr '\n' '|' <"$tmp/inst.err")"
fi

# nowhere: the error names both places
rm "$tmp/prefix/lib/hwprof/hwprof-emu.so"
"$tmp/prefix/bin/hwprof" record --emulate -o "$tmp/none.data" -- /bin/true >/dev/null 2>"$tmp/none.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(grep -c '^hwprof: ' "$tmp/none.err")" = 1 ] &&
	grep -q "plugin not found; looked at $tmp/prefix/bin/hwprof-emu.so and $tmp/prefix/bin/../lib/hwprof/hwprof-emu.so" "$tmp/none.err"; then
	pass "emulate_install_not_found_lists_places"
else
	fail "emulate_install_not_found_lists_places: rc $rc: $(tr '\n' '|' <"$tmp/none.err")"
fi

# $HWPROF_EMU_PLUGIN wins, and is the one place named when missing
if HWPROF_EMU_PLUGIN=$so "$tmp/prefix/bin/hwprof" record --emulate -o "$tmp/env.data" -- /bin/true \
	>/dev/null 2>"$tmp/env.err"; then
	pass "emulate_install_env_plugin"
else
	fail "emulate_install_env_plugin: $(tr '\n' '|' <"$tmp/env.err")"
fi
HWPROF_EMU_PLUGIN=$tmp/nope.so "$tmp/prefix/bin/hwprof" record --emulate -o "$tmp/env2.data" -- /bin/true \
	>/dev/null 2>"$tmp/env2.err"
if [ $? -ne 0 ] && grep -q "^hwprof: .*$tmp/nope.so: emulation plugin not found" "$tmp/env2.err"; then
	pass "emulate_install_env_plugin_missing"
else
	fail "emulate_install_env_plugin_missing: $(tr '\n' '|' <"$tmp/env2.err")"
fi
