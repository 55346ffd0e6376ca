#!/bin/bash
# hwprof record --emulate with threads, fork and signal handlers: exact counts
# equal the analytic ones and callgrind's; samples carry the right pids and
# tids; branch stacks across signal delivery stay consistent with the code.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 3 fewer without perf (the pid and tid checks); 1 (the SKIP) where
# emulated recording cannot run
ready=$(emu_ready emulate_tasks) || { echo "PLAN 1"; echo "$ready"; exit 0; }
have_perf=1
command -v perf >/dev/null || have_perf=0
if [ $have_perf = 1 ]; then echo "PLAN 26"; else echo "PLAN $((26 - 3))"; fi

# --- two threads (plus main): work(1000) + work(3000) + work(5000)
if emu_build threads; then
	if emu_record th -c 499 --exact "$tmp/th.exact" -- "$tmp/threads"; then
		exact emulate_threads "$tmp/th.exact" "$tmp/threads" \
			"work:has:cond:9000:8997|3" "every_3rd:ret:3001:3001" "work:call:3001:3001"
		callgrind emulate_threads_callgrind "$tmp/threads" "$tmp/th.exact"
		check emulate_threads_consistent "$tmp/th.data"
		if [ $have_perf = 1 ]; then
			n=$(perf script -i "$tmp/th.data" -F tid 2>/dev/null | sort -u | wc -l)
			[ "$n" -eq 3 ] && pass "emulate_threads_tids (3 threads sampled)" ||
				fail "emulate_threads_tids: $n distinct tids in samples, want 3"
			if perf script -i "$tmp/th.data" --show-task-events 2>/dev/null |
				grep -c "PERF_RECORD_FORK" | grep -qx 2; then
				pass "emulate_threads_fork_records"
			else
				fail "emulate_threads_fork_records: want 2 PERF_RECORD_FORK (one per thread)"
			fi
		fi
	else
		fail "emulate_threads: record failed: $(head -1 "$tmp/th.err")"
	fi
fi

# --- fork: parent work(3000), child work(2000), grandchild work(1000)
if emu_build fork; then
	if emu_record fk -c 499 --exact "$tmp/fk.exact" -- "$tmp/fork"; then
		exact emulate_fork "$tmp/fk.exact" "$tmp/fork" \
			"work:has:cond:6000:5997|3" "every_3rd:ret:2001:2001"
		# a forked child's callgrind output repeats its parent's counts at the
		# fork: compare the code that runs after the forks
		CG_FILTER="--only work,every_3rd" \
			callgrind emulate_fork_callgrind "$tmp/fork" "$tmp/fk.exact"
		check emulate_fork_consistent "$tmp/fk.data"
		if [ $have_perf = 1 ]; then
			n=$(perf script -i "$tmp/fk.data" -F pid 2>/dev/null | sort -u | wc -l)
			[ "$n" -eq 3 ] && pass "emulate_fork_pids (3 processes sampled)" ||
				fail "emulate_fork_pids: $n distinct pids in samples, want 3"
			# every process symbolizes its samples in work() (maps inherited)
			m=$(perf script -i "$tmp/fk.data" -F pid,ip,sym 2>/dev/null | awk '$3 == "work" {print $1}' | sort -u | wc -l)
			[ "$m" -eq 3 ] && pass "emulate_fork_symbols (work() in all 3 processes)" ||
				fail "emulate_fork_symbols: work() symbolized in $m processes, want 3"
		fi
	else
		fail "emulate_fork: record failed: $(head -1 "$tmp/fk.err")"
	fi
fi

# --- signals
if emu_build signal; then
	# raise(): 100 deliveries right after a syscall
	if emu_record sr -c 97 -j any,u,save_type --exact "$tmp/sr.exact" -- "$tmp/signal" raise 100; then
		exact emulate_signal_raise "$tmp/sr.exact" "$tmp/signal" \
			"on_usr1:has:cond:1000:900|100" "on_usr1:ret:100:100" "raise_loop:has:cond:100:99|1"
		callgrind emulate_signal_raise_callgrind "$tmp/signal" "$tmp/sr.exact" raise 100
		check emulate_signal_raise_consistent "$tmp/sr.data"
	else
		fail "emulate_signal_raise: record failed: $(head -1 "$tmp/sr.err")"
	fi
	# SIGSEGV handled: the faulting store runs again (synchronous signal)
	if emu_record ss -c 97 -j any,u,save_type --exact "$tmp/ss.exact" -- "$tmp/signal" segv 100; then
		exact emulate_signal_segv "$tmp/ss.exact" "$tmp/signal" \
			"on_segv:ret:100:100" "segv_loop:has:cond:100:99|1"
		# callgrind miscounts the block whose store faults and restarts
		CG_FILTER="--skip segv_loop" \
			callgrind emulate_signal_segv_callgrind "$tmp/signal" "$tmp/ss.exact" segv 100
		check emulate_signal_segv_consistent "$tmp/ss.data"
	else
		fail "emulate_signal_segv: record failed: $(head -1 "$tmp/ss.err")"
	fi
	# timer: SIGALRMs land anywhere in spin(); its loop count stays exact
	n=3000000
	if emu_record st -c 997 -j any,u,save_type --exact "$tmp/st.exact" -- "$tmp/signal" timer $n; then
		ticks=$(awk '{print $2}' "$tmp/st.out")
		exact emulate_signal_timer "$tmp/st.exact" "$tmp/signal" \
			"spin:has:cond:$n:$((n - 1))|1" "on_alrm:ret:$ticks:$ticks"
		[ "${ticks:-0}" -gt 0 ] && pass "emulate_signal_timer_delivered ($ticks signals)" ||
			skip "emulate_signal_timer_delivered: no SIGALRM arrived during the run"
		check emulate_signal_timer_consistent "$tmp/st.data"
	else
		fail "emulate_signal_timer: record failed: $(head -1 "$tmp/st.err")"
	fi
fi
