#!/bin/bash
# The perf_event_attr `hwprof record` builds must equal the one perf 6.1
# builds for the same command line. perf is the oracle: `perf record -vv`
# prints the attr it is about to open even when the open then fails (this
# machine may have no PMU at all), and `hwprof record --print-attr` prints
# hwprof's in the same format. The first attr perf prints is compared, field
# by field, with hwprof's: the attr before any fallback (perf then lowers
# precise_ip, or falls back from cycles to cpu-clock, and prints again).
set -u
HWPROF=${HWPROF:-build/hwprof}
if ! command -v perf >/dev/null 2>&1; then
	echo "PLAN 1"
	echo "SKIP record_attr: perf not installed"
	exit 0
fi
echo "PLAN 99"
tmp=$(mktemp -d)
chmod 1777 "$tmp" # the unprivileged runs below write perf.data there
trap 'rm -rf "$tmp"' EXIT

max_rate() { cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0; }

# The "perf_event_attr:" block of a -vv listing as "field<TAB>value" lines.
attr_block() {
	awk '/^perf_event_attr:/ { f = 1; next }
	     f && /^-----/     { exit }
	     f { sub(/^  /, ""); name = substr($0, 1, 32); val = substr($0, 34);
		 sub(/ +$/, "", name); print name "\t" val }'
}

# Normalization of the fields perf fills from the running system. There is
# one: { sample_period, sample_freq } in frequency mode is capped by
# kernel.perf_event_max_sample_rate, which the kernel itself lowers while
# running when sampling interrupts take too long ("perf: interrupt took too
# long ... lowering kernel.perf_event_max_sample_rate"), so perf's run and
# hwprof's run may read different limits. When the attr is in freq mode and
# its value is the limit read before or after the runs, it becomes MAX_RATE.
# (exclude_kernel of the default event, exclude_guest on AMD, precise_ip 3
# of precise_max events, read_format LOST also depend on the host, but both
# tools derive them from the same facts of the same host, so they are
# compared as they are; the unprivileged runs below check the first.)
normalize() { # file, rate_before, rate_after
	awk -F'\t' -v r1="$2" -v r2="$3" '
		{ line[NR] = $0; key[NR] = $1; val[NR] = $2 }
		$1 == "freq" && $2 == "1" { freq = 1 }
		END { for (i = 1; i <= NR; i++) {
			if (freq && key[i] == "{ sample_period, sample_freq }" &&
			    (val[i] == r1 || val[i] == r2))
				print key[i] "\tMAX_RATE"
			else
				print line[i] } }' "$1"
}

# Field-by-field comparison; prints the differing fields.
compare() { # perf_file hwprof_file
	awk -F'\t' 'NR == FNR { p[$1] = $2; order[++n] = $1; next }
		    { h[$1] = $2; if (!($1 in p)) order[++n] = $1 }
		    END { bad = 0
			  for (i = 1; i <= n; i++) { k = order[i]
				if (seen[k]++) continue
				pv = (k in p) ? p[k] : "(absent)"; hv = (k in h) ? h[k] : "(absent)"
				if (pv != hv) { printf "    %s: perf %s, hwprof %s\n", k, pv, hv; bad = 1 } }
			  exit bad }' "$1" "$2"
}

# Rows: hwprof options | perf options (empty: the same) | branch_sample_type
# hwprof must print instead of perf's (for hwprof's -j extensions, spelled
# as the kernel spells them, that perf 6.1 rejects: the attr must otherwise
# equal perf's for the perf spelling). At least 20 rows are required.
rows=(
	"-b||"
	"-b -c 100000||"
	"-j any,u||"
	"-j call,k||"
	"--call-graph lbr||"
	"-e cycles:pp -b||"
	"-F 999 -b||"
	"-d||"
	"-e instructions:u||"
	"-e cpu-clock||"
	"-j any_call,any_ret,u||"
	"-j ind_call,ind_jmp||"
	"-j cond,save_type||"
	"--per-thread -b||"
	"-i -b||"
	"-e branches -b||"
	"-e cycles:k||"
	"-e task-clock -c 10000||"
	"-e cycles:ppp||"
	"-e cycles:p -j any_call||"
	"-j stack||"
	"-j any,priv||"
	"-j abort_tx,in_tx,no_tx||"
	"-j u||"
	"-j hv||"
	"-j k||"
	"-j u,k||"
	"-j k,hv||"
	"-j K,U||"
	"-e cycles:u -j k||"
	"-e cycles:k -j u||"
	"-j any,k,hv||"
	"-j ANY_CALL,k||"
	"-j u,no_flags|-j u|ANY|NO_FLAGS"
	"-e cycles:u -b||"
	"-e cycles:uk||"
	"-e cycles:P||"
	"-e cycles:Gk||"
	"-e cycles:H||"
	"-e cycles:I||"
	"-e cycles||"
	"--call-graph lbr -b||"
	"--call-graph lbr -e cycles:k||"
	"--call-graph lbr -e cpu-clock||"
	"-d -b||"
	"-W||"
	"-W -d -e r1cd:P -c 10007||"
	"-W -d --phys-data --data-page-size -e r1cd:P -c 10007||"
	"-d --phys-data -e r1cd:pp||"
	"--data-page-size -W -c 2000||"
	"--call-graph dwarf||"
	"--call-graph dwarf,4096||"
	"-g||"
	"-e cpu-clock -b||"
	"--per-thread -e cpu-clock||"
	"--per-thread -i -d||"
	"-e task-clock -F 1000 -i||"
	"-e page-faults||"
	"-e ref-cycles||"
	"-e cs||"
	"-F max||"
	"-F 200000||"
	"-e rc4||"
	"-e r20c4:pp -b||"
	"-e instructions:kp||"
	"-e cache-misses:u -c 5000||"
	"-e cpu-cycles:uppp -j any_ret||"
	"-e branch-misses -j cond,u -F 2000||"
	"-j any,no_flags,no_cycles|-j any|ANY|NO_FLAGS|NO_CYCLES"
	"-j any,hw_index|-j any|ANY|HW_INDEX"
	"-j call_stack|-j stack|"
	"-e cycles:u -j any_call,hw_index|-e cycles:u -j any_call|ANY_CALL|HW_INDEX"
)

run_row() { # label hwprof_opts perf_opts bst_override [runner...]
	local label=$1 hopts=$2 popts=$3 bst=$4
	shift 4
	local r1 r2
	r1=$(max_rate)
	# (perf.out too: the background job below opens it asynchronously, and
	# the wait loop must not read the previous row's)
	rm -f "$tmp/perf.data" "$tmp/perf.data.old" "$tmp/perf.out"
	# perf is stopped once its first attr is printed: the rest (opening,
	# recording `true`, post-processing: a second each) is not needed.
	"$@" perf record -vv $popts -o "$tmp/perf.data" -- true >"$tmp/perf.out" 2>&1 &
	local pid=$! i dashes
	for i in $(seq 200); do
		dashes=$(grep -c '^-----' "$tmp/perf.out" 2>/dev/null)
		[ "${dashes:-0}" -ge 2 ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.02
	done
	# SIGKILL: on SIGTERM perf signals its workload, which may be the
	# whole process group (this script) when the workload is gone
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	attr_block <"$tmp/perf.out" >"$tmp/p.raw"
	"$@" "$HWPROF" record --print-attr $hopts -- true >"$tmp/hw.out" 2>"$tmp/hw.err"
	local hrc=$?
	r2=$(max_rate)
	attr_block <"$tmp/hw.out" >"$tmp/h.raw"
	if [ ! -s "$tmp/p.raw" ]; then
		echo "FAIL attr[$label]: perf printed no attr for: perf record -vv $popts"
		head -3 "$tmp/perf.out" >&2
		return
	fi
	if [ $hrc -ne 0 ] || [ ! -s "$tmp/h.raw" ]; then
		echo "FAIL attr[$label]: hwprof record --print-attr $hopts: $(head -1 "$tmp/hw.err")"
		return
	fi
	if [ -n "$bst" ]; then
		# perf 6.1 has no name for these filters: it must refuse them
		if "$@" perf record -vv $hopts -o "$tmp/perf.data" -- true 2>&1 |
			grep -q "unknown branch filter"; then :; else
			echo "FAIL attr[$label]: perf 6.1 now accepts '$hopts': compare directly"
			return
		fi
		awk -F'\t' -v b="$bst" 'BEGIN { OFS = "\t" } $1 == "branch_sample_type" { $2 = b } { print }' \
			"$tmp/p.raw" >"$tmp/p.sub" && mv "$tmp/p.sub" "$tmp/p.raw"
	fi
	normalize "$tmp/p.raw" "$r1" "$r2" >"$tmp/p.txt"
	normalize "$tmp/h.raw" "$r1" "$r2" >"$tmp/h.txt"
	if compare "$tmp/p.txt" "$tmp/h.txt" >"$tmp/diff"; then
		echo "PASS attr[$label] ($(wc -l <"$tmp/p.txt") fields)"
	else
		echo "FAIL attr[$label]: fields differ from perf 6.1's"
		cat "$tmp/diff" >&2
	fi
}

n=0
for row in "${rows[@]}"; do
	hopts=${row%%|*}
	rest=${row#*|}
	popts=${rest%%|*}
	bst=${rest#*|}
	[ -z "$popts" ] && popts=$hopts
	run_row "$hopts" "$hopts" "$popts" "$bst"
	n=$((n + 1))
done
[ $n -ge 20 ] || echo "FAIL attr_table: only $n combinations"

# Named PMU events through libpfm4 must encode to the raw code perf would
# open for them (perf 6.1 on that CPU: cpu/event=0xc4,umask=0x20/, type 4 =
# PERF_TYPE_RAW here). The PMU model is forced, so this runs on any host.
# (perf's JSON alias also carries the event's SampleAfterValue as a period
# term; hwprof keeps the -F/-c default for libpfm4 events.)
if LIBPFM_FORCE_PMU=skl "$HWPROF" record --print-attr -e br_inst_retired.near_taken -- true \
	>/dev/null 2>&1; then
	for pair in "br_inst_retired.near_taken -b|r20c4 -b" \
		    "mem_load_retired.l3_miss:pp|r20d1:pp" \
		    "BR_INST_RETIRED:NEAR_TAKEN:u -j any,u|r20c4:u -j any,u"; do
		h=${pair%%|*}
		p=${pair#*|}
		run_row "libpfm skl: -e $h" "-e $h" "-e $p" "" env LIBPFM_FORCE_PMU=skl
	done
else
	for i in 1 2 3; do echo "SKIP attr_libpfm[$i]: hwprof built without libpfm4 (libpfm4-dev)"; done
fi

# Unprivileged: the default event gets exclude_kernel when the kernel cannot
# be profiled (perf_event_paranoid >= 2 without CAP_PERFMON).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$HWPROF" 2>/dev/null; then
	for o in "-b" "--call-graph lbr" "-e cycles -b" "-j any,k"; do
		run_row "unprivileged: $o" "$o" "$o" "" setpriv --reuid=65534 --regid=65534 --clear-groups
	done
else
	for i in 1 2 3 4; do
		echo "SKIP attr_unprivileged[$i]: needs root, setpriv and an hwprof binary user 65534 can run"
	done
fi

# Bad input: one line, non-zero exit, as perf refuses it too.
bad() { # label expected-substring args...
	local label=$1 want=$2
	shift 2
	"$HWPROF" record --print-attr "$@" -- true >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "^hwprof: .*$want" "$tmp/e"; then
		echo "PASS attr_error[$label]"
	else
		echo "FAIL attr_error[$label]: rc=$rc, stderr: $(head -2 "$tmp/e")"
	fi
}
bad "-j bogus" "unknown branch filter 'bogus'" -j any,bogus
bad "-b -j" "can't use --branch-any" -b -j any
bad "-c -F" "cannot set frequency" -c 1000 -F 100
bad "unknown event" "unknown event 'no_such_event_xyz'" -e no_such_event_xyz
bad "modifier" "modifier" -e cycles:pppp
bad "bad modifier" "bad modifier" -e cycles:x
bad "-F 0" "frequency and count are zero" -F 0
bad "-c 0" "at least 1" -c 0
bad "--call-graph" "unknown mode" --call-graph bogus

# -j lists perf 6.1 refuses (it splits at every comma: an empty name is an
# unknown filter): hwprof refuses them too, and perf must still refuse them.
for j in "any,,u" "" "any," ",any" "any, u"; do
	bad "-j '$j'" "unknown branch filter" -j "$j"
	if perf record -vv -j "$j" -o "$tmp/perf.data" -- true 2>&1 | grep -q "unknown branch filter"; then
		echo "PASS attr_error_perf_too[-j '$j']"
	else
		echo "FAIL attr_error_perf_too[-j '$j']: perf 6.1 accepts it"
	fi
done

# Privilege levels alone: the attr is perf's (rows above), and hwprof says
# in one warning that the levels were dropped; not when a type is named.
"$HWPROF" record --print-attr -j k -- true >/dev/null 2>"$tmp/e"
"$HWPROF" record --print-attr -j any,k -- true >/dev/null 2>"$tmp/e2"
if [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "^hwprof: warning: .*-j k names only privilege levels.*-j any,k" "$tmp/e" &&
	[ ! -s "$tmp/e2" ]; then
	echo "PASS attr_levels_alone_warned"
else
	echo "FAIL attr_levels_alone_warned: -j k said '$(head -2 "$tmp/e")'; -j any,k said '$(head -2 "$tmp/e2")'"
fi
