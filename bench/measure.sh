#!/bin/bash
# shellcheck disable=SC2034,SC2154 # sourced: sets and reads the caller's variables
# Sourced by bench/run.sh: one measurement of one command.
#   measure LIMIT OUT CMD...
# runs CMD once with stdout to OUT (stderr to $dir/.err) under a time limit
# of LIMIT seconds (0: none) and sets
#   m_cpu   CPU seconds (user + system, children included: pipelines count whole)
#   m_wall  wall seconds
#   m_rss   peak RSS in MB (of the largest process: GNU time's %M)
#   m_rc    CMD's exit status; 124 when the limit stopped it
# Every column of the table (hwprof, hwprof -j N, the established tool) is
# measured through this one function.
measure() {
	local limit=$1 out=$2 u s kb
	shift 2
	local tm=(timeout "$limit")
	[ "$limit" = 0 ] && tm=()
	/usr/bin/time -f "%e %U %S %M" -o "$dir/.t" "${tm[@]}" "$@" >"$out" 2>"$dir/.err"
	m_rc=$?
	# the last line: GNU time puts "Command exited with non-zero status" first
	read -r m_wall u s kb < <(tail -1 "$dir/.t") || true
	m_cpu=$(echo "$u + $s" | bc -l)
	m_rss=$(echo "$kb / 1024" | bc -l)
	return 0
}

# fmt NUMBER DIGITS: printf with a fixed number of decimals
fmt() { printf "%.${2}f" "$1"; }

# ratio A B: A / B with one decimal, or "-" when B is 0
ratio() {
	if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then printf '%.1f' "$(echo "$1 / $2" | bc -l)"; else echo -; fi
}
