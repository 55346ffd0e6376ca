#!/bin/bash
# SPDX-License-Identifier: MIT
# hwprof pgo --matched-from OLD --binary NEW (stale profiles) on
# tests/fixtures/stale_prog.c: build N (OLD) recorded with 'record --emulate
# -b', build N+1 (NEW, -DV2) inserts a function at the top (every function
# moves), edits tokenize and renames bucket_of to slot_of. Matches known by
# construction:
#   - moved functions (classify, add_word, by_count: same code, new
#     addresses in nm) keep the fdata lines from them exactly as OLD's own
#     profile has them (offsets from the function's start; add_word's call
#     to bucket_of/1 named slot_of/1; a PLT call's target is NEW's entry);
#   - the renamed function is found by its CFG hash: slot_of's lines are
#     bucket_of's in OLD's profile, and -v says "bucket_of -> slot_of: renamed";
#   - the edited function is matched with some of its blocks unmatched and
#     counted (-v), its lines present;
#   - one summary line on stderr with the matched share, below 100% (the
#     edited code) and above 80% of the taken-branch counts;
#   - --format llvm writes NEW's functions (slot_of, tokenize) and
#     llvm-profdata-19 reads it;
#   - llvm-bolt-19 takes the fdata without a stale-profile warning and the
#     optimized NEW takes fewer branches than NEW (exact counts,
#     tests/tools/taken_count.py);
#   - errors in one line: no --binary, NEW with OLD's build-id, OLD no ELF
#     file, OLD not the recorded binary, --format autofdo.
. "$(dirname "$0")/../tools/emu_lib.sh"
ready=$(emu_ready pgo_stale) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 11"
src=$root/tests/fixtures/stale_prog.c
old=$tmp/old
new=$tmp/new
cd "$tmp" || exit 1 # llvm-bolt leaves files in the current directory
if ! gcc -O2 -g -no-pie -Wl,-q -o "$old" "$src" 2>gcc.err || ! gcc -O2 -g -no-pie -Wl,-q -DV2 -o "$new" "$src" 2>>gcc.err; then
	for c in moved renamed edited summary llvm bolt no_binary same_id not_elf not_recorded autofdo; do
		fail "pgo_stale_$c: gcc: $(head -1 gcc.err)"
	done
	exit 0
fi
emu_record train -b -c 997 -- "$old" 100000 || fail "pgo_stale_record: $(head -1 train.err)"
"$HWPROF" pgo -i train.data --format bolt --binary "$old" -o asis.fdata 2>asis.err
"$HWPROF" pgo -v -i train.data --format bolt --binary "$new" --matched-from "$old" -o matched.fdata 2>matched.err
rc=$?

# lines from FUNC (as BOLT names it: its own edges and calls; the call sites
# into it move with their callers) in an fdata file, the function renamed to TO
lines_of() { awk -v f="$2" '$2 == f' "$1" | sed "s#$2#${3:-$2}#g; s#bucket_of/1#slot_of/1#g" | sort; }
moved=ok
for f in classify/1 add_word/1 by_count/1; do
	a=$(nm "$old" | awk -v n="${f%/1}" '$3 == n {print $1}')
	b=$(nm "$new" | awk -v n="${f%/1}" '$3 == n {print $1}')
	[ -n "$a" ] && [ "$a" != "$b" ] || moved="$f did not move ($a, $b)"
	[ -n "$(lines_of asis.fdata "$f")" ] || moved="$f: no lines in OLD's profile"
	[ "$(lines_of asis.fdata "$f")" = "$(lines_of matched.fdata "$f")" ] || moved="$f: lines differ from OLD's"
done
[ $rc = 0 ] && [ "$moved" = ok ] && pass pgo_stale_moved || fail "pgo_stale_moved: rc $rc, $moved; $(head -1 matched.err)"

if [ -n "$(lines_of asis.fdata bucket_of/1)" ] &&
	[ "$(lines_of asis.fdata bucket_of/1 slot_of/1)" = "$(lines_of matched.fdata slot_of/1)" ] &&
	grep -q "stale: bucket_of -> slot_of: renamed" matched.err; then
	pass pgo_stale_renamed
else
	fail "pgo_stale_renamed: slot_of's lines are not bucket_of's, or -v did not say so"
fi

edited=$(grep "stale: tokenize -> tokenize: edited" matched.err)
if [[ $edited =~ edited,\ ([0-9]+)\ of\ ([0-9]+)\ blocks ]] && [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] &&
	[ "${BASH_REMATCH[1]}" -gt 0 ] && [ -n "$(lines_of matched.fdata tokenize/1)" ]; then
	pass pgo_stale_edited
else
	fail "pgo_stale_edited: ${edited:-no -v line for tokenize}"
fi

summary=$(grep -c "stale profile:" matched.err)
pct=$(grep -o "matched: [0-9.]*% of the taken-branch" matched.err | grep -o "[0-9.]*")
if [ "$summary" = 1 ] && python3 -c "import sys; sys.exit(not 80 <= float('$pct') < 100)" 2>/dev/null; then
	pass pgo_stale_summary
else
	fail "pgo_stale_summary: $summary summary lines, ${pct:-no}% matched: $(grep 'stale profile' matched.err)"
fi

if "$HWPROF" pgo -q -i train.data --format llvm --binary "$new" --matched-from "$old" -o matched.prof 2>llvm.err &&
	grep -q "^slot_of:" matched.prof && grep -q "^tokenize:" matched.prof && ! grep -q "^bucket_of:" matched.prof &&
	{ ! command -v llvm-profdata-19 >/dev/null || llvm-profdata-19 show --sample matched.prof >/dev/null 2>&1; }; then
	pass pgo_stale_llvm
else
	fail "pgo_stale_llvm: $(head -1 llvm.err)"
fi

bolt=$(command -v llvm-bolt-19 || echo /usr/lib/llvm-19/bin/llvm-bolt)
if [ ! -x "$bolt" ]; then
	skip "pgo_stale_bolt: llvm-bolt 19 not installed (apt-get install bolt-19)"
elif ! "$bolt" "$new" -o new.bolt -data=matched.fdata -reorder-blocks=ext-tsp >bolt.log 2>&1; then
	fail "pgo_stale_bolt: llvm-bolt: $(grep -m1 -i error bolt.log)"
elif grep -q "stale" bolt.log; then
	fail "pgo_stale_bolt: $(grep -m1 stale bolt.log)"
else
	"$HWPROF" record --emulate --exact base.jsonl -o /dev/null -- "$new" 100000 >/dev/null 2>&1
	"$HWPROF" record --emulate --exact opt.jsonl -o /dev/null -- ./new.bolt 100000 >/dev/null 2>&1
	b=$(python3 "$tools/taken_count.py" base.jsonl "$new" | cut -d' ' -f1)
	o=$(python3 "$tools/taken_count.py" opt.jsonl ./new.bolt | cut -d' ' -f1)
	[ -n "$b" ] && [ -n "$o" ] && [ "$o" -lt "$b" ] && pass pgo_stale_bolt ||
		fail "pgo_stale_bolt: taken branches: NEW ${b:-?}, optimized ${o:-?}"
fi

# one_error NAME GREP ARGS...: exit 1 and one line on stderr matching GREP
one_error() {
	local name=$1 want=$2
	shift 2
	"$HWPROF" pgo -q -i train.data --format bolt -o /dev/null "$@" 2>err.txt
	local r=$?
	[ $r = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q "$want" err.txt && pass "pgo_stale_$name" ||
		fail "pgo_stale_$name: rc $r: $(head -2 err.txt | tr '\n' ' ')"
}
one_error no_binary "give --binary" --matched-from "$old"
one_error same_id "has the build-id of" --matched-from "$old" --binary "$old"
echo "not an ELF file" >notelf
one_error not_elf "notelf" --matched-from notelf --binary "$new"
one_error not_recorded "new" --matched-from "$new" --binary "$old"
one_error autofdo "sample addresses" --matched-from "$old" --binary "$new" --format autofdo
