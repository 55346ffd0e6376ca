#!/bin/bash
# Round trip of hwprof's perf.data writer through perf 6.1 and through hwprof's
# own reader. For each seed, tests/tools/gen_roundtrip writes a random
# perf.data plus the text perf must print for it:
#   - `perf script -F ip,brstack -G`           == EXPECTED (branch stacks, flags)
#   - `perf report -D`, filtered               == dump of every sample field perf
#                                                 shows and every COMM/MMAP2/FORK/
#                                                 EXIT record with its sample_id
#   - `perf evlist`, `perf report --header-only` show the names and features set
#   - `$HWPROF script`                         == EXPECTED (SKIP until it exists)
# and perf must print nothing on stderr (no warnings).
# Env: BUILD (build dir), HWPROF, WRITER_ROUNDTRIP_SEEDS (default 20).
set -u
echo "PLAN 5" # report() is called 5 times
BUILD=${BUILD:-build}
GEN=$BUILD/tests/tools/gen_roundtrip
N=${WRITER_ROUNDTRIP_SEEDS:-20}
HWPROF=${HWPROF:-$BUILD/hwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$GEN" ]; then
	echo "FAIL writer_roundtrip: $GEN is not built"
	exit 1
fi

# `perf report -D` lines that depend only on the file, less offset and size.
perf_dump() { # file samples_out records_out
	perf report -D -i "$1" 2>"$tmp/dump.err" |
		sed -E 's/ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: / /' |
		awk -v S="$2" -v R="$3" '
/PERF_RECORD_SAMPLE\(/ { ins = 1; print > S; next }
/PERF_RECORD_(COMM|MMAP2|FORK|EXIT)/ { ins = 0; print > R; next }
/PERF_RECORD_/ { ins = 0; next }
ins && (/^\.\.\.\.\. +[0-9]+: / ||
	/^\.\.\. (FP chain|branch stack|user regs|intr regs|weight|transaction)/ ||
	/^ \. data_src/ || /^ \.\. (phys_addr|data page size|code page size)/) { print > S }'
	touch "$2" "$3"
}

# stderr of a perf run less the host's kptr_restrict notice (a fact about this
# machine, not about the file), which perf report prints for kernel samples.
host_noise_filtered() { # stderr_file
	grep -vxF -e 'Warning:' \
		-e 'Kernel address maps (/proc/{kallsyms,modules}) were restricted.' \
		-e "Check /proc/sys/kernel/kptr_restrict before running 'perf record'." \
		-e 'As no suitable kallsyms nor vmlinux was found, kernel samples' \
		-e "can't be resolved." \
		-e "Samples in kernel modules can't be resolved as well." "$1" | grep -v '^$'
}

first_diff() { # expected actual
	diff "$1" "$2" | head -4 | cut -c1-300 | sed 's/^/    /' >&2
}

have_perf=1
perf_reason=
if ! command -v perf >/dev/null 2>&1; then
	have_perf=0 perf_reason="perf is not installed"
elif ! perf --version 2>/dev/null | grep -q '^perf version 6\.1\.'; then
	have_perf=0 perf_reason="$(perf --version 2>&1 | head -1) is not perf 6.1 (the expected text is 6.1's)"
fi

hw_mode=skip
hw_reason=
hw_args=()
if [ ! -x "$HWPROF" ]; then
	hw_reason="$HWPROF is not built"
elif ! "$HWPROF" script --help >"$tmp/hwhelp" 2>&1; then
	hw_reason="'hwprof script' is not implemented yet"
else
	hw_mode=run
	grep -q -- '-F' "$tmp/hwhelp" && hw_args+=(-F ip,brstack)
	grep -q -- '-G' "$tmp/hwhelp" && hw_args+=(-G)
fi

fail_script=0 fail_dump=0 fail_header=0 fail_hw=0 fail_gen=0
for seed in $(seq 1 "$N"); do
	d="$tmp/s$seed.data" e="$tmp/s$seed.expected"
	if ! "$GEN" "$seed" "$d" "$e" --evlist "$tmp/names" --dump-samples "$tmp/ds" \
		--dump-records "$tmp/dr" 2>"$tmp/gen.err"; then
		echo "seed $seed: gen_roundtrip failed: $(head -1 "$tmp/gen.err")" >&2
		fail_gen=$((fail_gen + 1))
		continue
	fi
	if [ $have_perf = 1 ]; then
		# branch stacks as perf script prints them
		if ! perf script -F ip,brstack -G -i "$d" >"$tmp/out" 2>"$tmp/err"; then
			echo "seed $seed: perf script failed: $(head -2 "$tmp/err")" >&2
			fail_script=$((fail_script + 1))
		elif [ -s "$tmp/err" ]; then
			echo "seed $seed: perf script warned: $(head -2 "$tmp/err")" >&2
			fail_script=$((fail_script + 1))
		elif ! cmp -s "$e" "$tmp/out"; then
			echo "seed $seed: perf script output differs from what was written" >&2
			[ $fail_script -eq 0 ] && first_diff "$e" "$tmp/out"
			fail_script=$((fail_script + 1))
		fi
		# every other field, and the non-sample records
		rm -f "$tmp/ps" "$tmp/pr"
		perf_dump "$d" "$tmp/ps" "$tmp/pr"
		if host_noise_filtered "$tmp/dump.err" >"$tmp/dump.err2"; then
			echo "seed $seed: perf report -D warned: $(head -2 "$tmp/dump.err2")" >&2
			fail_dump=$((fail_dump + 1))
		elif ! cmp -s "$tmp/ds" "$tmp/ps"; then
			echo "seed $seed: sample fields in perf report -D differ" >&2
			[ $fail_dump -eq 0 ] && first_diff "$tmp/ds" "$tmp/ps"
			fail_dump=$((fail_dump + 1))
		elif ! cmp -s "$tmp/dr" "$tmp/pr"; then
			echo "seed $seed: COMM/MMAP2/FORK/EXIT records in perf report -D differ" >&2
			[ $fail_dump -eq 0 ] && first_diff "$tmp/dr" "$tmp/pr"
			fail_dump=$((fail_dump + 1))
		fi
		# header: event names and features
		bad=
		if ! perf evlist -i "$d" >"$tmp/evl" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
			bad="perf evlist failed or warned: $(head -1 "$tmp/err")"
		elif ! cmp -s "$tmp/names" "$tmp/evl"; then
			bad="perf evlist names differ: $(tr '\n' ' ' <"$tmp/evl")"
		elif ! perf evlist -v -i "$d" >/dev/null 2>"$tmp/err" || [ -s "$tmp/err" ]; then
			bad="perf evlist -v failed or warned: $(head -1 "$tmp/err")"
		elif ! perf report --header-only -i "$d" >"$tmp/hdr" 2>"$tmp/err" ||
			host_noise_filtered "$tmp/err" >/dev/null; then
			bad="perf report --header-only failed or warned: $(head -1 "$tmp/err")"
		else
			for want in '# hostname : roundtrip-host' '# os release : 6.1.0-roundtrip' \
				'# perf version : 6.1.0' '# arch : x86_64' '# nrcpus online : 8' \
				'# nrcpus avail : 8' '# cpudesc : Fake CPU @ 3.00GHz' \
				'# cpuid : GenuineIntel,6,85,4' '# total memory : 16318412 kB' \
				'# cmdline : perf record -b -- ./roundtrip '; do
				grep -qxF -- "$want" "$tmp/hdr" || bad="header lacks '$want'"
			done
			while read -r name; do
				grep -qF -- "# event : name = $name, " "$tmp/hdr" ||
					bad="header lacks event '$name'"
			done <"$tmp/names"
			if [ -z "$bad" ] && ! perf buildid-list -i "$d" 2>"$tmp/err" |
				grep -q ' /tmp/roundtrip.bin$'; then
				bad="perf buildid-list does not list /tmp/roundtrip.bin"
			fi
		fi
		if [ -n "$bad" ]; then
			echo "seed $seed: $bad" >&2
			fail_header=$((fail_header + 1))
		fi
	fi
	if [ $hw_mode = run ]; then
		if ! "$HWPROF" script "${hw_args[@]}" -i "$d" >"$tmp/hw" 2>"$tmp/hwerr"; then
			echo "seed $seed: hwprof script failed: $(head -2 "$tmp/hwerr")" >&2
			fail_hw=$((fail_hw + 1))
		elif ! cmp -s "$e" "$tmp/hw"; then
			echo "seed $seed: hwprof script output differs from what was written" >&2
			# name the usual culprit: perf 6.1 prints the branch type after CYCLES/
			if sed -E 's#(/[0-9]+/)[^ ]* #\1 #g' "$e" | cmp -s - "$tmp/hw"; then
				echo "    (only the branch type names perf 6.1 prints after CYCLES/ differ)" >&2
			elif [ $fail_hw -eq 0 ]; then
				first_diff "$e" "$tmp/hw"
			fi
			fail_hw=$((fail_hw + 1))
		fi
	fi
	rm -f "$d"
done

report() { # name failures skip_reason
	if [ -n "$3" ]; then
		echo "SKIP $1: $3"
	elif [ "$2" -eq 0 ]; then
		echo "PASS $1 ($N seeds)"
	else
		echo "FAIL $1: $2 of $N seeds"
	fi
}
report writer_roundtrip_generate $fail_gen ""
perf_skip=
[ $have_perf = 1 ] || perf_skip=$perf_reason
report writer_roundtrip_perf_script $fail_script "$perf_skip"
report writer_roundtrip_perf_dump $fail_dump "$perf_skip"
report writer_roundtrip_perf_header $fail_header "$perf_skip"
report writer_roundtrip_hwprof_script $fail_hw "$hw_reason"
exit 0
