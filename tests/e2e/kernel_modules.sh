#!/bin/bash
# Branch tables of the corpus recordings whose kernels had modules loaded,
# against perf report -s dso and -s dso,sym (perf's branch mode); their
# binaries are not here. Kernel modules are modules of their own, named as
# perf names them ([ath9k] for the recording's MMAP of .../ath9k.ko): per
# shared object hwprof's branch shares equal perf's, module rows included;
# a module's rows are never shown as [kernel.kallsyms]. (Symbols of
# modules come from kallsyms, test_symbolizer, or from their .ko,
# kernel_module_ko.sh.) An unnamed address in the "sym" column is the
# recorded one, as perf prints it: at least 95% of hwprof's unnamed
# user-space rows print an object and address perf prints (an object's
# offset, which hwprof printed before, never is). Not compared there: the
# shares of rows whose object several processes mapped at different
# addresses (chrome's): perf splits them by address, hwprof keys a row by
# the object's offset and shows the first address met.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
corpus=${HWPROF_CORPUS:-$root/../shared/corpus}
files=(perf_data_converter/perf.data.callgraph_and_branch-3.8 perf_data_converter/perf.data.raw_callgraph_branch-3.4)
echo "PLAN $(( ${#files[@]} * 3 ))"
for rel in "${files[@]}"; do
	f=$corpus/$rel
	name=$(basename "$rel")
	if [ ! -f "$f" ] || ! command -v perf >/dev/null; then
		skip "kmod_dso_$name: no corpus at $corpus or no perf"
		skip "kmod_named_$name: no corpus at $corpus or no perf"
		skip "sym_recorded_$name: no corpus at $corpus or no perf"
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
	# unnamed user-space addresses
	perf report -i "$f" -s dso,sym --stdio 2>/dev/null |
		awk '!/^#/ && NF == 4 && $3 == "[.]" && $4 ~ /^0x/ {print $2, $4}' | sort >"$tmp/perf_addr.txt"
	"$HWPROF" branches -i "$f" -s dso,sym 2>/dev/null |
		awk '!/^#/ && NF == 5 && $4 == "[.]" && $5 ~ /^0x/ {print $3, $5}' | sort >"$tmp/hw_addr.txt"
	alike=$(comm -12 "$tmp/perf_addr.txt" "$tmp/hw_addr.txt" | wc -l)
	rows=$(wc -l <"$tmp/hw_addr.txt")
	if [ "$rows" -ge 100 ] && [ $((alike * 100)) -ge $((rows * 95)) ]; then
		pass "sym_recorded_$name ($alike of hwprof's $rows unnamed user-space rows print an address perf prints)"
	else
		fail "sym_recorded_$name: $alike of hwprof's $rows unnamed user-space rows print an address perf prints"
	fi
done
