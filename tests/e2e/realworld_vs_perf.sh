#!/bin/bash
# hwprof branches gives perf 6.1's rows on emulated recordings of real,
# dynamically linked programs that call libc through their PLT: a driver
# linked against Debian's static SQLite and zlib (tests/fixtures/
# realworld_sqlite.c), built with the usual lazy .plt (+ .plt.got) and with
# IBT's .plt.sec, a C++ program (tests/fixtures/realworld_cxx.cc, with
# libstdc++.so), and Debian's own xz (its liblzma.so) and lua5.4 when
# installed. Symbols are compared exactly, PLT stubs included ("memcpy@plt",
# libc's nameless IRELATIVE slots "@plt", and _init or no symbol where perf's
# symbol tree gives those); see tests/e2e/realworld_compare.py for the few
# normalizations. perf 6.1 crashes on `perf report -b --sort symbol_from`, so
# its rows come from `-F overhead,sample,KEYS`.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: SQLite's checks, C++ 6 (1 SKIP without g++), xz and Lua 2 each (1
# SKIP when not installed); 1 (the SKIP) where a requirement is missing
ready=$(emu_ready realworld_vs_perf) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if ! command -v perf >/dev/null; then
	echo "PLAN 1"
	skip "realworld_vs_perf: perf not installed"
	exit 0
fi
lib=/usr/lib/x86_64-linux-gnu
if [ ! -f $lib/libsqlite3.a ] || [ ! -f $lib/libz.a ] || [ ! -f /usr/include/sqlite3.h ]; then
	echo "PLAN 1"
	skip "realworld_vs_perf: no static SQLite/zlib (apt-get install libsqlite3-dev zlib1g-dev)"
	exit 0
fi
plan=8
if command -v g++ >/dev/null; then plan=$((plan + 6)); else plan=$((plan + 1)); fi
if [ -x /usr/bin/xz ]; then plan=$((plan + 2)); else plan=$((plan + 1)); fi
if [ -x /usr/bin/lua5.4 ]; then plan=$((plan + 2)); else plan=$((plan + 1)); fi
echo "PLAN $plan"
build_rw() { # NAME gcc-args...
	local name=$1
	shift
	gcc -O2 -g "$@" -o "$tmp/$name" "$root/tests/fixtures/realworld_sqlite.c" \
		-l:libsqlite3.a -l:libz.a -lm 2>"$tmp/$name.gcc" ||
		{ fail "realworld_build_$name: $(head -1 "$tmp/$name.gcc")"; return 1; }
}
# compare NAME DATA KEYS [FILES_REGEX]
compare() {
	local name=$1 data=$2 keys=$3 out
	shift 3
	perf report -b --stdio -F "overhead,sample,$keys" -i "$data" >"$tmp/$name.perf" 2>"$tmp/$name.perr" || {
		fail "$name: perf report failed: $(grep -v '^#' "$tmp/$name.perr" | head -1)"; return; }
	"$HWPROF" branches -q --sort "$keys" -i "$data" >"$tmp/$name.txt" 2>"$tmp/$name.err" || {
		fail "$name: hwprof branches failed: $(head -1 "$tmp/$name.err")"; return; }
	if out=$(python3 "$root/tests/e2e/realworld_compare.py" "$tmp/$name.perf" "$tmp/$name.txt" "$keys" "$@"); then
		pass "$name ($out)"
	else
		fail "$name: $out"
	fi
}
# has_plt NAME DATA: perf names PLT stubs in the recording (else the
# recording missed what this test is about)
has_plt() {
	if grep -q '@plt' "$tmp/$1.perf"; then
		pass "$1_plt_names ($(grep -c '@plt' "$tmp/$1.perf") perf rows name a PLT stub)"
	else
		fail "$1_plt_names: perf names no PLT stub in $2"
	fi
}

SYM=symbol_from,symbol_to
DSO=dso_from,symbol_from,dso_to,symbol_to
if build_rw sqlite && build_rw sqlite_ibt -fcf-protection=full -Wl,-z,ibtplt; then
	if ! readelf -SW "$tmp/sqlite_ibt" | grep -q '\.plt\.sec'; then
		fail "realworld_build_sqlite_ibt: the linker made no .plt.sec"
	fi
	if emu_record sqlite -c 1000 -- "$tmp/sqlite" 2000; then
		compare realworld_sqlite_sym "$tmp/sqlite.data" $SYM
		has_plt realworld_sqlite_sym "$tmp/sqlite.data"
		compare realworld_sqlite_dso_sym "$tmp/sqlite.data" $DSO
		compare realworld_sqlite_dso "$tmp/sqlite.data" dso_from,dso_to
	else
		fail "realworld_sqlite: record --emulate failed: $(head -1 "$tmp/sqlite.err")"
	fi
	# perf resolves every source line through addr2line: a smaller sample
	# keeps it to seconds
	if emu_record sqlite_src -c 8000 -- "$tmp/sqlite" 2000; then
		compare realworld_sqlite_srcline "$tmp/sqlite_src.data" srcline_from,srcline_to
		compare realworld_sqlite_sym_srcline "$tmp/sqlite_src.data" symbol_from,srcline_from,symbol_to
	else
		fail "realworld_sqlite_src: record --emulate failed: $(head -1 "$tmp/sqlite_src.err")"
	fi
	# stripped: .dynsym defines nothing, and then perf 6.1 names no PLT stub
	if strip -o "$tmp/sqlite_stripped" "$tmp/sqlite" &&
		emu_record sqlite_stripped -c 3000 -- "$tmp/sqlite_stripped" 2000; then
		compare realworld_sqlite_stripped_dso_sym "$tmp/sqlite_stripped.data" $DSO
	else
		fail "realworld_sqlite_stripped: strip or record --emulate failed: $(head -1 "$tmp/sqlite_stripped.err" 2>/dev/null)"
	fi
	if emu_record sqlite_ibt -c 1000 -- "$tmp/sqlite_ibt" 2000; then
		compare realworld_sqlite_ibt_dso_sym "$tmp/sqlite_ibt.data" $DSO
	else
		fail "realworld_sqlite_ibt: record --emulate failed: $(head -1 "$tmp/sqlite_ibt.err")"
	fi
fi

# C++ (tests/fixtures/realworld_cxx.cc, g++ -O2): perf 6.1 demangles with
# libiberty and, without -v, prints names without parameter lists, clone
# suffixes or return types ("outer::inner::Square::area", "operator new@plt",
# "std::ostream::_M_insert<long>"); with -v the signatures, which hwprof
# gives in JSON's *_demangled fields. Of aliases perf keeps the longer
# demangled name. libstdc++.so.6 has only .dynsym.
if command -v g++ >/dev/null; then
	if g++ -O2 -g -o "$tmp/cxx" "$root/tests/fixtures/realworld_cxx.cc" 2>"$tmp/cxx.gcc"; then
		if emu_record cxx -c 500 -- "$tmp/cxx" 2000; then
			compare realworld_cxx_sym "$tmp/cxx.data" $SYM
			compare realworld_cxx_dso_sym "$tmp/cxx.data" $DSO
			missing=""
			for want in "outer::inner::Square::area" "outer::inner::Shape::grow" \
				"(anonymous namespace)::mix" "(anonymous namespace)::key_of" "checked_div" \
				"h<int, int, int>" "operator new@plt" "operator delete@plt" \
				"std::ostream::_M_insert<long>" "main::{lambda(long, long)#1}"; do
				grep -qF -- "$want" "$tmp/realworld_cxx_sym.perf" || missing="$missing '$want'"
			done
			# a parameter list ends a cell: "f(int) const", not "{lambda(long, long)#1}"
			params='\[clone |(?<!lambda)(?<!operator)\([^()]*\)( const)?(?= {2,}|\s*$)'
			if grep -v "^#" "$tmp/realworld_cxx_sym.perf" | grep -qP "$params"; then
				fail "realworld_cxx_names: perf printed parameters or clone suffixes by default: $(grep -v "^#" "$tmp/realworld_cxx_sym.perf" | grep -m1 -oP "$params")"
			elif [ -n "$missing" ]; then
				fail "realworld_cxx_names: perf printed none of$missing (the fixture no longer exercises them)"
			else
				pass "realworld_cxx_names (perf names methods, clones, aliases, operators, lambdas, std:: without parameters)"
			fi
			perf report -v -b --stdio -F overhead,sample,$SYM -i "$tmp/cxx.data" >"$tmp/cxx_v.perf" 2>/dev/null
			if "$HWPROF" branches -q --json --sort $SYM -i "$tmp/cxx.data" >"$tmp/cxx.json" 2>"$tmp/cxx_json.err" &&
				out=$(python3 "$root/tests/e2e/realworld_compare.py" --signatures "$tmp/cxx_v.perf" "$tmp/cxx.json"); then
				pass "realworld_cxx_signatures ($out, as perf report -v)"
			else
				fail "realworld_cxx_signatures: ${out:-$(head -1 "$tmp/cxx_json.err")}"
			fi
		else
			fail "realworld_cxx: record --emulate failed: $(head -1 "$tmp/cxx.err")"
		fi
		# source lines of every module, libc's (libc6-dbg) included: perf names
		# the file as addr2line does, which for a DWARF 5 sequence that never
		# sets its file is file 0 (__ctype_b_loc: ctype-info.c, not ctype.h)
		if emu_record cxx_src -c 8000 -- "$tmp/cxx" 2000; then
			compare realworld_cxx_srcline "$tmp/cxx_src.data" srcline_from,srcline_to
			# one line either way, so the plan holds
			if grep -q 'ctype-info\.c:' "$tmp/realworld_cxx_srcline.perf"; then
				pass "realworld_cxx_srcline_file0 (perf's ctype-info.c lines compared above)"
			else
				skip "realworld_cxx_srcline_file0: perf printed no ctype-info.c line (libc6-dbg not installed?)"
			fi
		else
			fail "realworld_cxx_src: record --emulate failed: $(head -1 "$tmp/cxx_src.err")"
		fi
	else
		fail "realworld_build_cxx: $(head -1 "$tmp/cxx.gcc")"
	fi
else
	skip "realworld_cxx: g++ not installed"
fi

# Debian's binaries: stripped executables and shared libraries (.dynsym only)
if [ -x /usr/bin/xz ]; then
	head -c 400000 "$HWPROF" >"$tmp/xz.in"
	if emu_record xz -c 1000 -- /usr/bin/xz -c -1 "$tmp/xz.in"; then
		compare realworld_xz_dso_sym "$tmp/xz.data" $DSO
		has_plt realworld_xz_dso_sym "$tmp/xz.data"
	else
		fail "realworld_xz: record --emulate failed: $(head -1 "$tmp/xz.err")"
	fi
else
	skip "realworld_xz: /usr/bin/xz not installed"
fi
if [ -x /usr/bin/lua5.4 ]; then
	cat >"$tmp/t.lua" <<'EOF'
local t = {}
for i = 1, 20000 do t[#t + 1] = string.format("%d:%s", i, tostring(i * 3)) end
table.sort(t)
local n = 0
for w in table.concat(t, ","):gmatch("%d+") do n = n + #w end
print(n)
EOF
	if emu_record lua -c 1000 -- /usr/bin/lua5.4 "$tmp/t.lua"; then
		compare realworld_lua_dso_sym "$tmp/lua.data" $DSO
		has_plt realworld_lua_dso_sym "$tmp/lua.data"
	else
		fail "realworld_lua: record --emulate failed: $(head -1 "$tmp/lua.err")"
	fi
else
	skip "realworld_lua: /usr/bin/lua5.4 not installed"
fi
