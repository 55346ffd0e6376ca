#!/bin/bash
# The plugin's fast paths change no result: the fast mode -j any,no_flags,
# no_cycles (no predictor, no cost model) records the same samples (ip,
# period, every entry's from/to) as the full model, and with --exact the same
# per-site counts; the windowed default path (ring entries only near a
# sample) gives the same stacks as a filter that records every kind without
# it (-j any_call,any_ret,cond,ind_jmp... is not windowed), compared entry by
# entry where both record the same branches: at depth 8 with a tiny period
# (every entry near a sample) and at the default period.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run or perf is missing
ready=$(emu_ready emulate_modes) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if command -v perf >/dev/null; then echo "PLAN 6"; else echo "PLAN 1"; fi
emu_build cpu || exit 0
if ! command -v perf >/dev/null; then
	skip "emulate_modes: perf not installed"
	exit 0
fi
bin=$tmp/cpu

# from/to of every entry, the sample ip and period (flags and cycles aside)
shape() {
	perf script -F ip,period,brstack -i "$1" 2>/dev/null |
		sed -E 's#(0x[0-9a-f]+/0x[0-9a-f]+)/[^ ]*#\1#g'
}

for c in 5 997 20011; do
	emu_record full$c -c $c --exact "$tmp/full$c.exact" -- "$bin" mixed 3 &&
		emu_record fast$c -c $c -j any,no_flags,no_cycles --exact "$tmp/fast$c.exact" -- \
			"$bin" mixed 3 || {
		fail "emulate_modes_fast_c$c: record failed: $(head -1 "$tmp/full$c.err" "$tmp/fast$c.err")"
		continue
	}
	shape "$tmp/full$c.data" >"$tmp/full$c.txt"
	shape "$tmp/fast$c.data" >"$tmp/fast$c.txt"
	n=$(wc -l <"$tmp/full$c.txt")
	if [ "$n" -lt 3 ]; then
		fail "emulate_modes_fast_c$c: only $n samples"
	elif ! cmp -s "$tmp/full$c.txt" "$tmp/fast$c.txt"; then
		fail "emulate_modes_fast_c$c: no_flags,no_cycles changed the branches: $(diff "$tmp/full$c.txt" "$tmp/fast$c.txt" | head -2 | cut -c1-200)"
	elif ! cmp -s "$tmp/full$c.exact" "$tmp/fast$c.exact"; then
		fail "emulate_modes_fast_exact_c$c: no_flags,no_cycles changed the exact counts"
	elif perf script -F brstack -i "$tmp/fast$c.data" 2>/dev/null | grep -qE '/[MP]/'; then
		fail "emulate_modes_fast_c$c: mispredict bits in a no_flags recording"
	else
		pass "emulate_modes_fast_c$c ($n samples, same entries and exact counts)"
	fi
done

# windowed (the default -j any: ring entries and the clock only near a
# sample) vs the plugin's full path everywhere ($HWPROF_EMU_NOWINDOW=1; =0
# keeps the guest's environment the same size): identical samples, flags
# and cycles included.
for args in "-c 3 --depth 8" "-c 997 --depth 64" "-c 20011"; do
	name=$(echo "$args" | tr -d ' -')
	HWPROF_EMU_NOWINDOW=0 emu_record win$name $args -- "$bin" branchy 3 &&
		HWPROF_EMU_NOWINDOW=1 emu_record all$name $args -- "$bin" branchy 3 ||
		{ fail "emulate_modes_window_$name: record failed: $(head -1 "$tmp/win$name.err")"; continue; }
	perf script -F ip,period,brstack -i "$tmp/win$name.data" 2>/dev/null >"$tmp/win$name.txt"
	perf script -F ip,period,brstack -i "$tmp/all$name.data" 2>/dev/null >"$tmp/all$name.txt"
	n=$(wc -l <"$tmp/win$name.txt")
	if [ "$n" -lt 3 ]; then
		fail "emulate_modes_window_$name: only $n samples"
	elif ! cmp -s "$tmp/win$name.txt" "$tmp/all$name.txt"; then
		fail "emulate_modes_window_$name: the windowed path differs: $(diff "$tmp/win$name.txt" "$tmp/all$name.txt" | head -2 | cut -c1-200)"
	else
		pass "emulate_modes_window_$name ($n samples identical, flags and cycles included)"
	fi
done
