#!/bin/bash
# An address no symbol covers prints in branch tables as perf 6.1 prints
# it: the "sym" key (perf report -s dso,sym on a recording with branch
# stacks: perf's branch mode) shows the recorded address, symbol_from and
# symbol_to the address in the object's map. On the corpus recordings whose
# binaries are not here (every user address unnamed): at least 95% of
# hwprof's rows with an unnamed user-space address print an object and an
# address that perf's table prints too (an object's offset, which hwprof
# printed before, never is). Not compared: the shares of rows whose object
# several processes mapped at different addresses (chrome's): perf splits
# them by address, hwprof keys a row by the object's offset and shows the
# first address met.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
corpus=${HWPROF_CORPUS:-$root/../shared/corpus}
files=(perf_data_converter/perf.data.callgraph_and_branch-3.8 perf_data_converter/perf.data.raw_callgraph_branch-3.4)
echo "PLAN ${#files[@]}"
for rel in "${files[@]}"; do
	f=$corpus/$rel
	name=sym_recorded_$(basename "$rel")
	if [ ! -f "$f" ] || ! command -v perf >/dev/null; then
		skip "$name: no corpus at $corpus or no perf"
		continue
	fi
	perf report -i "$f" -s dso,sym --stdio 2>/dev/null |
		awk '!/^#/ && NF == 4 && $3 == "[.]" && $4 ~ /^0x/ {print $1, $2, $4}' | sort >"$tmp/perf.txt"
	"$HWPROF" branches -i "$f" -s dso,sym 2>/dev/null |
		awk '!/^#/ && NF == 5 && $4 == "[.]" && $5 ~ /^0x/ {print $1, $3, $5}' | sort >"$tmp/hw.txt"
	if out=$(python3 - "$tmp/perf.txt" "$tmp/hw.txt" <<'PY'
import sys
perf = {tuple(l.split()[1:]) for l in open(sys.argv[1])}
hw = [tuple(l.split()[1:]) for l in open(sys.argv[2])]
if len(hw) < 100:
    sys.exit("only %d unnamed rows in hwprof's table" % len(hw))
alike = sum(k in perf for k in hw)
print("%d of hwprof's %d unnamed user-space rows print an address perf's %d rows print" % (
    alike, len(hw), len(perf)))
sys.exit(0 if alike >= 0.95 * len(hw) else 1)
PY
	); then
		pass "$name ($out)"
	else
		fail "$name: $out"
	fi
done
