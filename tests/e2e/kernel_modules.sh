#!/bin/bash
# Kernel modules are modules of their own, named as perf names them ([ath9k]
# for the recording's MMAP of .../ath9k.ko): per shared object, hwprof's
# branch shares equal perf report's (-s dso), module rows included, on the
# corpus recordings whose kernels had modules loaded; a module's rows are
# never shown as [kernel.kallsyms]. (Symbols of modules come from kallsyms:
# test_symbolizer.)
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
corpus=${HWPROF_CORPUS:-$root/../shared/corpus}
files=(perf_data_converter/perf.data.callgraph_and_branch-3.8 perf_data_converter/perf.data.raw_callgraph_branch-3.4)
echo "PLAN $(( ${#files[@]} * 2 ))"
for rel in "${files[@]}"; do
	f=$corpus/$rel
	name=$(basename "$rel")
	if [ ! -f "$f" ] || ! command -v perf >/dev/null; then
		skip "kmod_dso_$name: no corpus at $corpus or no perf"
		skip "kmod_named_$name: no corpus at $corpus or no perf"
		continue
	fi
	# "share dso" per row, both sorted the same way
	perf report -i "$f" -s dso --stdio 2>/dev/null | awk '!/^#/ && NF == 2 {print $1, $2}' | sort >"$tmp/perf.txt"
	"$HWPROF" branches -i "$f" -s dso 2>/dev/null | awk '!/^#/ && NF == 3 {print $1, $3}' | sort >"$tmp/hw.txt"
	nmod=$(grep -c ' \[[a-z0-9_]*\]$' "$tmp/perf.txt" | tr -d ' ')
	nmod=$((nmod - $(grep -c ' \[\(kernel.kallsyms\|vdso\|unknown\)\]$' "$tmp/perf.txt")))
	if [ -s "$tmp/perf.txt" ] && [ "$nmod" -gt 0 ] && cmp -s "$tmp/perf.txt" "$tmp/hw.txt"; then
		pass "kmod_dso_$name ($(wc -l <"$tmp/perf.txt") shared objects alike, $nmod kernel modules)"
	else
		fail "kmod_dso_$name: $nmod modules; $(diff "$tmp/perf.txt" "$tmp/hw.txt" | head -4 | tr '\n' '|')"
	fi
	# every module address perf puts in a module, hwprof does too
	kmod='$D ~ /^\[/ && $D !~ /^\[(kernel\.kallsyms|vdso|unknown|vsyscall)\]$/'
	perf report -i "$f" -s dso,sym --stdio 2>/dev/null | awk "!/^#/ && ${kmod//\$D/\$2} {print \$1, \$2, \$4}" |
		sort >"$tmp/perf_sym.txt"
	"$HWPROF" branches -i "$f" -s dso,sym 2>/dev/null | awk "!/^#/ && ${kmod//\$D/\$3} {print \$1, \$3, \$5}" |
		sort >"$tmp/hw_sym.txt"
	if [ -s "$tmp/perf_sym.txt" ] && cmp -s "$tmp/perf_sym.txt" "$tmp/hw_sym.txt"; then
		pass "kmod_named_$name ($(wc -l <"$tmp/perf_sym.txt") rows in kernel modules alike)"
	else
		fail "kmod_named_$name: $(diff "$tmp/perf_sym.txt" "$tmp/hw_sym.txt" | head -4 | tr '\n' '|')"
	fi
done
