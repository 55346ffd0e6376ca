#!/bin/bash
# The library is the product: cli/ may include only the public headers
# (include/hwprof/*.h) and its own, and no library layer includes a private
# header of a layer above it (DESIGN.md: util -> format -> symbolize/decode ->
# session -> analysis -> output/export -> capture -> cli).
set -u
cd "${HWPROF_ROOT:-$(dirname "$0")/../..}"

# verdict NAME BAD: PASS when BAD (the offending places) is empty
verdict() {
	if [ -z "$2" ]; then echo "PASS $1"; else echo "FAIL $1:$2"; fi
}
# quoted_includes FILE: the "..." includes of FILE, one a line
quoted_includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

# cli/: every quoted include is hwprof/<public header> or a cli/ file.
bad=""
for f in cli/*.c cli/*.h; do
	while IFS= read -r inc; do
		if [[ $inc == hwprof/* ]]; then
			[ -f "include/$inc" ] || bad+=" $f:$inc(missing)"
		elif [ ! -f "cli/$inc" ]; then
			bad+=" $f:$inc"
		fi
	done < <(quoted_includes "$f")
done
verdict "cli includes only public headers" "$bad"

# Public headers include only public headers (a library user has no src/).
bad=""
for f in include/hwprof/*.h; do
	while IFS= read -r inc; do
		[[ $inc == hwprof/* && -f include/$inc ]] || bad+=" $f:$inc"
	done < <(quoted_includes "$f")
done
verdict "public headers include only public headers" "$bad"

# Layers: a private header "dir/x.h" may be included only from dir/ or a
# layer above it.
rank() {
	case $1 in
	util) echo 0 ;; format) echo 1 ;; symbolize | decode) echo 2 ;; session) echo 3 ;;
	analysis) echo 4 ;; output | export) echo 5 ;;
	# The plugin (emu) and its driver (capture) share the raw stream format.
	capture | emu) echo 6 ;;
	*) echo 99 ;;
	esac
}
bad=""
for f in $(find src -name '*.[ch]'); do
	layer=${f#src/}; layer=${layer%%/*}
	mine=$(rank "$layer")
	while IFS= read -r inc; do
		[[ $inc == */* && $inc != hwprof/* ]] || continue
		dir=${inc%%/*}
		[ -d "src/$dir" ] || continue
		[ "$(rank "$dir")" -le "$mine" ] || bad+=" $f:$inc"
	done < <(quoted_includes "$f")
done
verdict "library layers include downwards only" "$bad"

# Library messages describe the problem and never name one of hwprof's
# command-line flags (the command maps them to its own); naming another
# tool's ("perf record -o -") is fine.
bad=$(grep -rnoE '"[^"]*"' src --include=*.c --exclude-dir=emu |
	grep -E '(^|[ (`'"'"'])-(-[a-z][a-z-]+|[a-zA-Z])\b' |
	grep -vE "perf [a-z-]+ [^\"]*-|QEMU -cpu|-dbgsym|-dbg package" || true)
verdict "library messages name no command-line flag" "${bad:+ $bad}"
