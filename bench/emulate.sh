#!/bin/bash
# Cost of emulated branch-stack capture on real programs: each workload runs
# natively, under plain qemu-x86_64, under qemu-x86_64 with a plugin whose
# per-TB callback does nothing (the floor of any per-TB plugin), and under
# `hwprof record --emulate` (the
# default: predictor + cost model; the fast mode -j any,no_flags,no_cycles,
# which skips both models; and --exact). Prints the best-of-N wall and cpu
# (user+sys) seconds and the ratios to native and to plain qemu. Not a test:
# numbers depend on the machine; on a shared machine trust the cpu column.
#
# Workloads (bench/emu/): lua5.4 on branchy.lua (an interpreter's dispatch
# loop), sqlite_driver.c linked against Debian's libsqlite3.a (a database,
# in memory), xz and gzip on generated text (compressors), and the fixture
# tests/fixtures/emu_cpu.c. A workload whose program is missing is skipped.
# Usage: bench/emulate.sh [BUILD_DIR]   ($BENCH_REPS runs each, default 3;
#        $BENCH_ONLY="lua sqlite" runs only those workloads)
set -euo pipefail
BUILD=${1:-build}
REPS=${BENCH_REPS:-3}
HWPROF=$BUILD/hwprof
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$dir"
command -v qemu-x86_64 >/dev/null || { echo "bench/emulate.sh: qemu-x86_64 not found: install qemu-user" >&2; exit 1; }
if ! "$HWPROF" record --emulate -o "$dir/probe.data" -- /bin/true >/dev/null 2>"$dir/.err"; then
	echo "bench/emulate.sh: hwprof record --emulate does not work here: $(head -1 "$dir/.err")" >&2
	exit 1
fi
rm -f "$dir/probe.data"

# --- the workloads' programs and inputs
gcc -O2 -o "$dir/emu_cpu" "$here/../tests/fixtures/emu_cpu.c"
# The floor of any TB-level recording under QEMU 7.2's plugin API: a plugin
# whose per-TB callback (registered as hwprof-emu.so registers its own, with
# a userdata pointer, QEMU_PLUGIN_CB_NO_REGS) does nothing.
cat >"$dir/empty_plugin.c" <<'EOF'
#include "qemu_api.h"
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
static void on_tb(unsigned int vcpu, void *ud) { (void)vcpu; (void)ud; }
static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, tb);
}
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)info; (void)argc; (void)argv;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	return 0;
}
EOF
gcc -O2 -shared -fPIC -I"$here/../src/emu" -o "$dir/empty_plugin.so" "$dir/empty_plugin.c"
have_sqlite=
if [ -f /usr/lib/x86_64-linux-gnu/libsqlite3.a ] && [ -f /usr/include/sqlite3.h ] &&
	gcc -O2 -o "$dir/sqlite_driver" "$here/emu/sqlite_driver.c" \
		/usr/lib/x86_64-linux-gnu/libsqlite3.a -lm -lpthread -ldl 2>"$dir/.err"; then
	have_sqlite=1
fi
# about 2.4 MB of word-like text (a fixed seed: the same file every run)
[ -s "$dir/text.in" ] || python3 - "$dir/text.in" <<'EOF'
import random, sys
random.seed(7)
words = ("the of and to in is was for on that with as by at from his her it be this are an "
         "which or had not but have were one all their").split()
out = []
for i in range(600000):
    out.append(random.choice(words))
    out.append("\n" if random.random() < 0.1 else " ")
    if random.random() < 0.02:
        out.append("%d " % random.randrange(100000))
open(sys.argv[1], "w").write("".join(out))
EOF

best() { # best-of-$REPS "wall cpu" seconds of CMD...
	local bw= bc= w c TIMEFORMAT='%R %U %S'
	for ((i = 0; i < REPS; i++)); do
		{ time "$@" >/dev/null 2>"$dir/.err"; } 2>"$dir/.t" || {
			echo "failed: $* : $(tail -1 "$dir/.err")" >&2; return 1; }
		read -r w c < <(tail -1 "$dir/.t" | awk '{ print $1, $2 + $3 }')
		if [ -z "$bw" ] || awk -v t="$w" -v b="$bw" 'BEGIN { exit !(t < b) }'; then bw=$w; fi
		if [ -z "$bc" ] || awk -v t="$c" -v b="$bc" 'BEGIN { exit !(t < b) }'; then bc=$c; fi
	done
	echo "$bw $bc"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%5.1fx", a / (b > 0 ? b : 0.001) }'; }
record() { "$HWPROF" record --emulate -o "$dir/emu.data" "$@"; }

# run NAME PROG ARGS...: one workload, every configuration
run() {
	local name=$1 nw nc qw qc pw pc ew ec fw fc xw xc taken
	shift
	case " ${BENCH_ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	local prog
	prog=$(command -v "$1") || { echo; echo "$name: skipped ($1 not found)"; return 0; }
	shift
	set -- "$prog" "$@" # qemu-x86_64 does not search PATH
	read -r nw nc < <(best "$@")
	read -r qw qc < <(best qemu-x86_64 "$@")
	read -r pw pc < <(best qemu-x86_64 -plugin "$dir/empty_plugin.so" "$@")
	read -r ew ec < <(best record -- "$@")
	taken=$(grep -o '[0-9]* taken branches' "$dir/.err" | grep -o '^[0-9]*' || echo 0)
	read -r fw fc < <(best record -j any,no_flags,no_cycles -- "$@")
	read -r xw xc < <(best record --exact "$dir/emu.exact" -- "$@")
	echo
	printf '%s: %s  (%s taken branches)\n' "$name" "$*" "$taken"
	printf '  %-44s %7s %7s   %-13s %-13s %s\n' "" wall cpu "/native wall" "/native cpu" "/qemu cpu"
	line() { printf '  %-44s %6.2fs %6.2fs   %-13s %-13s %s\n' "$1" "$2" "$3" \
		"$(ratio "$2" "$nw")" "$(ratio "$3" "$nc")" "$(ratio "$3" "$qc")"; }
	line native "$nw" "$nc"
	line "qemu-x86_64 (no plugin)" "$qw" "$qc"
	line "qemu-x86_64, empty per-TB callback (floor)" "$pw" "$pc"
	line "record --emulate" "$ew" "$ec"
	line "record --emulate -j any,no_flags,no_cycles" "$fw" "$fc"
	line "record --emulate --exact" "$xw" "$xc"
}

echo "emulated capture: default period (every 20011 taken branches), 32-entry stacks; best of $REPS"
run lua lua5.4 "$here/emu/branchy.lua" 3
if [ -n "$have_sqlite" ]; then
	run sqlite "$dir/sqlite_driver" 200000
else
	echo; echo "sqlite: skipped (needs libsqlite3-dev: libsqlite3.a and sqlite3.h)"
fi
run xz xz -T1 -6 -c "$dir/text.in"
run gzip gzip -6 -c "$dir/text.in"
run fixture "$dir/emu_cpu" branchy 1000
rm -f "$dir/emu.data" "$dir/emu.exact" "$dir/.t" "$dir/.err" "$dir/empty_plugin.c" "$dir/empty_plugin.so"
