#!/bin/bash
# hwprof branches gives the same rows and counts as perf 6.1's branch mode on
# files whose branch stacks hold a real binary's real branches (written by
# tests/tools/gen_fixture_branches, in one and in two processes loaded at
# different bases). perf 6.1 crashes on `perf report -b --sort symbol_from`
# here, so its rows come from the equivalent `-F overhead,sample,KEYS`.
set -u
# 10 compared tables and the key prefixes; the emulated recording's 5 tables
# (1 SKIP without the plugin or qemu); 1 SKIP without perf
if ! command -v perf >/dev/null; then
	echo "PLAN 1"
elif [ -f "${HWPROF_ROOT:-.}/${BUILD:-build}/hwprof-emu.so" ] && command -v qemu-x86_64 >/dev/null; then
	echo "PLAN 16"
else
	echo "PLAN 12"
fi
if ! command -v perf >/dev/null; then
	echo "SKIP branches_vs_perf: perf not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=${HWPROF_ROOT:-.}
gen=$root/${BUILD:-build}/tests/tools/gen_fixture_branches
for pie in pie no-pie; do
	gcc -g -O1 -$pie -o "$tmp/branchy-$pie" "$root/tests/fixtures/branchy.c" || { echo "FAIL branches_build_fixture"; exit 0; }
done
check() { # name binary processes keys [--exact] [generator options]
	local name=$1 bin=$2 procs=$3 keys=$4 exact=
	shift 4
	[ "${1:-}" = --exact ] && { exact=--exact; shift; }
	"$gen" "$bin" "$tmp/$name.data" --processes "$procs" --samples 300 --seed 7 "$@" >/dev/null || {
		echo "FAIL $name: generator failed"; return; }
	perf report -b --stdio -F "overhead,sample,$keys" -i "$tmp/$name.data" >"$tmp/$name.perf" 2>/dev/null || {
		echo "FAIL $name: perf report failed"; return; }
	"$HWPROF" branches --sort "$keys" -i "$tmp/$name.data" >"$tmp/$name.txt" 2>"$tmp/$name.err" || {
		echo "FAIL $name: hwprof branches failed: $(head -1 "$tmp/$name.err")"; return; }
	# one binary: every key combination must be one row (perf's grouping).
	# Under load perf's addr2line may not answer in time ("main+12" for a
	# line it resolves on another run): branches_compare.py lets such a cell
	# match hwprof's line, as realworld_compare.py does perf's "(null)".
	if out=$(python3 "$root/tests/e2e/branches_compare.py" --unique $exact "$tmp/$name.perf" "$tmp/$name.txt" "$keys" 2>&1); then
		echo "PASS $name ($out)"
	else
		echo "FAIL $name: $out"
	fi
}
check branches_pie_sym_src_mispred "$tmp/branchy-pie" 1 symbol_from,symbol_to,srcline_from,srcline_to,mispredict
check branches_nopie_sym_src_mispred "$tmp/branchy-no-pie" 1 symbol_from,symbol_to,srcline_from,srcline_to,mispredict
check branches_two_processes "$tmp/branchy-pie" 2 symbol_from,symbol_to,srcline_from,srcline_to,mispredict
check branches_dso_sym "$tmp/branchy-pie" 2 dso_from,symbol_from,dso_to,symbol_to
check branches_cycles_type "$tmp/branchy-pie" 1 symbol_from,cycles
check branches_addr "$tmp/branchy-no-pie" 1 addr_from,addr_to
# Source lines group by their text: a line pair reached from several
# branches (and from two load addresses) is one row, as in perf.
# --exact: also the lines perf's addr2line cannot resolve ("crtstuff.c:0"
# from the FILE symbol, "??:0", "_init+59" outside any function's section).
check branches_srcline_pairs "$tmp/branchy-pie" 2 srcline_from,srcline_to --exact
check branches_srcline_dso "$tmp/branchy-no-pie" 1 dso_from,srcline_from --exact
check branches_tx "$tmp/branchy-pie" 1 in_tx,abort,mispredict --tx
check branches_sample_keys "$tmp/branchy-pie" 2 sym,dso --tx

# perf 6.1 reads a sort key as a case-insensitive prefix of the first key
# of its table that it starts: the column hwprof picks has perf's title.
"$gen" "$tmp/branchy-pie" "$tmp/alias.data" --samples 20 >/dev/null
bad=""
for tok in d dso dso_f dso_t s sym symbol symbol_f SYMBOL_T sr srcline srcline_ srcline_t \
	m mis mispredict in_ in_tx ab abort cy cycles addr_ addr_f addr_t ipc_l ipc_lbr; do
	want=$(perf report -b --stdio -F "overhead,$tok" -i "$tmp/alias.data" 2>/dev/null |
		sed -n 's/^# Overhead  *//p' | head -1 | sed 's/ *$//')
	got=$("$HWPROF" branches --sort "$tok" -i "$tmp/alias.data" 2>&1 |
		sed -n 's/^# Overhead  Samples  //p' | head -1 | sed 's/ *$//')
	[ -n "$want" ] && [ "$want" = "$got" ] || bad="$bad $tok(perf '$want', hwprof '$got')"
done
# ... and keys perf has but hwprof does not offer are refused by name.
for tok in ty ipc ipc_ in; do # perf: none, ipc_null, ipc_null, ins_lat
	if perf report -b --stdio -F "overhead,$tok" -i "$tmp/alias.data" 2>&1 | grep -q "^# Overhead"; then
		"$HWPROF" branches --sort "$tok" -i "$tmp/alias.data" >/dev/null 2>&1 && bad="$bad $tok(accepted)"
	fi
done
if [ -z "$bad" ]; then echo "PASS branches_key_prefixes"; else echo "FAIL branches_key_prefixes:$bad"; fi

# Emulated recordings of the fixture (real execution under the QEMU plugin).
if [ -f "$root/${BUILD:-build}/hwprof-emu.so" ] && command -v qemu-x86_64 >/dev/null; then
	if "$HWPROF" record --emulate -c 5000 -o "$tmp/emu.data" -- "$tmp/branchy-pie" 200000 >/dev/null 2>"$tmp/emu.err"; then
		for keys in symbol_from,symbol_to,srcline_from,srcline_to,mispredict dso_from,symbol_from,dso_to,symbol_to symbol_from,cycles srcline_from,srcline_to in_tx,abort; do
			perf report -b --stdio -F "overhead,sample,$keys" -i "$tmp/emu.data" >"$tmp/emu.perf" 2>/dev/null
			"$HWPROF" branches --sort "$keys" -i "$tmp/emu.data" >"$tmp/emu.txt" 2>/dev/null
			if out=$(python3 "$root/tests/e2e/branches_compare.py" "$tmp/emu.perf" "$tmp/emu.txt" "$keys" 'branchy\.c:' 2>&1); then
				echo "PASS branches_emulated_${keys//,/_} ($out)"
			else
				echo "FAIL branches_emulated_${keys//,/_}: $out"
			fi
		done
	else
		echo "FAIL branches_emulated: record --emulate failed: $(head -1 "$tmp/emu.err")"
	fi
else
	echo "SKIP branches_emulated: no emulation plugin or qemu-x86_64"
fi
