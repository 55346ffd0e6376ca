/*
 * Unit tests for the symbolizer (src/symbolize/symbolizer.c and friends).
 *
 * Fixtures are compiled here with gcc/g++ (PIE, non-PIE, C++ templates, a
 * stripped copy with its debug file in a build-id cache, a binary with
 * another build-id), and every answer is checked against the binutils
 * tools run on the same files: readelf -s (symbols), readelf -l (segments),
 * objdump -d --line-numbers (line of every instruction), addr2line -i
 * (inline chains; eu-addr2line when installed). The tools are used by the
 * test only: the library never runs them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"
#include "hwprof/symbolize.h"
#include "symbolize/build_id_lookup.h"
#include "symbolize/demangle.h"
#include "symbolize/symbolizer_internal.h"
#include "testlib.h"

/* ------------------------------------------------------------ helpers */

static char tmp[256];
static bool have_gcc, have_gxx, have_tools, fixtures_ok, have_llvm_a2l;
static char a2l[64] = "addr2line";

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

/* stdout of a shell command, malloc'd; NULL on failure. */
static char *capture(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *capture(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	FILE *p;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 131072;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	buf[len] = 0;
	if (pclose(p) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

static void path_of(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", tmp, name);
}

static void write_file(const char *name, const char *text)
{
	char p[512];
	FILE *f;

	path_of(p, sizeof(p), name);
	f = fopen(p, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

/* Line number of the line holding MARKER in fixture source NAME. */
static unsigned marker_line(const char *src, const char *marker)
{
	const char *m = strstr(src, marker);
	unsigned line = 1;

	if (!m)
		return 0;
	for (const char *p = src; p < m; p++)
		line += *p == '\n';
	return line;
}

/* ------------------------------------------------------------ oracles */

struct osym {
	char name[512];
	uint64_t value, size;
	char type[16], bind[16];
};

/* readelf -sW: the .symtab (or .dynsym when WANT_DYN) entries. */
static size_t readelf_syms(const char *file, bool demangle, bool want_dyn, struct osym **out)
{
	char *txt = capture("readelf -sW %s '%s'", demangle ? "-C" : "", file);
	char *save = NULL, *line;
	size_t n = 0, cap = 0;
	bool in = false;

	*out = NULL;
	if (!txt)
		return 0;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct osym s;
		char ndx[32];
		int pos = 0;
		unsigned num;
		char vis[32], sizebuf[32];

		if (!strncmp(line, "Symbol table '", 14)) {
			in = !strncmp(line + 14, want_dyn ? ".dynsym'" : ".symtab'", want_dyn ? 8 : 8);
			continue;
		}
		if (!in)
			continue;
		memset(&s, 0, sizeof(s));
		if (sscanf(line, " %u: %" SCNx64 " %31s %15s %15s %31s %31s %n", &num, &s.value,
			   sizebuf, s.type, s.bind, vis, ndx, &pos) < 7 || !pos)
			continue;
		s.size = strtoull(sizebuf, NULL, 0);
		snprintf(s.name, sizeof(s.name), "%s", line + pos);
		if (!strcmp(ndx, "UND") || !s.name[0])
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = realloc(*out, cap * sizeof(**out));
		}
		(*out)[n++] = s;
	}
	free(txt);
	return n;
}

static const struct osym *osym_named(const struct osym *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

struct oseg {
	uint64_t off, vaddr, filesz;
	bool x;
};

static size_t readelf_loads(const char *file, struct oseg *v, size_t max)
{
	char *txt = capture("readelf -lW '%s'", file);
	char *save = NULL, *line;
	size_t n = 0;

	if (!txt)
		return 0;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t off, va, pa, fs, ms;
		char flags[8] = "";

		if (sscanf(line, " LOAD 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64
				 " 0x%" SCNx64 " %3[RWE ]",
			   &off, &va, &pa, &fs, &ms, flags) >= 5 &&
		    n < max)
			v[n++] = (struct oseg){ off, va, fs, strchr(flags, 'E') != NULL };
	}
	free(txt);
	return n;
}

/* The file offset of VADDR per readelf -l (what perf's map_ip gives). */
static uint64_t off_of(const char *file, uint64_t vaddr)
{
	struct oseg v[16];
	size_t n = readelf_loads(file, v, 16);

	for (size_t i = 0; i < n; i++)
		if (v[i].x && vaddr >= v[i].vaddr && vaddr < v[i].vaddr + v[i].filesz)
			return vaddr - v[i].vaddr + v[i].off;
	for (size_t i = 0; i < n; i++)
		if (vaddr >= v[i].vaddr && vaddr < v[i].vaddr + v[i].filesz)
			return vaddr - v[i].vaddr + v[i].off;
	return UINT64_MAX;
}

static size_t read_build_id(const char *file, uint8_t *id)
{
	char *txt = capture("readelf -n '%s'", file);
	char *p = txt ? strstr(txt, "Build ID: ") : NULL;
	size_t n = 0;

	if (p) {
		p += 10;
		while (n < 20 && sscanf(p, "%2hhx", &id[n]) == 1) {
			n++;
			p += 2;
		}
	}
	free(txt);
	return n;
}

static void hex_of(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* One instruction per objdump -d --line-numbers: its address, the function
   it is in, and the file:line objdump prints before it. */
struct oinsn {
	uint64_t addr;
	char func[128];
	char file[256];
	unsigned line;
};

static size_t objdump_insns(const char *file, struct oinsn **out)
{
	char *txt = capture("objdump -d --line-numbers --no-show-raw-insn '%s'", file);
	char *save = NULL, *line;
	char func[128] = "", src[256] = "";
	unsigned lno = 0;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!txt)
		return 0;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t a;
		char name[128];
		int pos = 0;

		if (sscanf(line, "%" SCNx64 " <%127[^>]>:%n", &a, name, &pos) == 2 && pos) {
			snprintf(func, sizeof(func), "%s", name);
			src[0] = 0;
			lno = 0;
			continue;
		}
		if (line[0] == '/' || (line[0] != ' ' && strstr(line, ".c:"))) {
			char *colon = strrchr(line, ':');
			char *disc = strstr(line, " (discriminator");

			if (disc) {
				*disc = 0;
				colon = strrchr(line, ':');
			}
			if (colon && colon[1] >= '0' && colon[1] <= '9') {
				*colon = 0;
				snprintf(src, sizeof(src), "%s", line);
				lno = (unsigned)strtoul(colon + 1, NULL, 10);
			}
			continue;
		}
		if (sscanf(line, " %" SCNx64 ":%n", &a, &pos) == 1 && pos && line[0] == ' ' &&
		    line[pos] == '\t') {
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				*out = realloc(*out, cap * sizeof(**out));
			}
			(*out)[n].addr = a;
			snprintf((*out)[n].func, sizeof((*out)[n].func), "%s", func);
			snprintf((*out)[n].file, sizeof((*out)[n].file), "%s", src);
			(*out)[n].line = lno;
			n++;
		}
	}
	free(txt);
	return n;
}

/* addr2line -a -f -i: per address, (function, file:line) pairs, innermost first. */
struct oframe {
	char func[256];
	char file[256];
	unsigned line;
};

struct ochain {
	uint64_t addr;
	size_t n;
	struct oframe f[8];
};

static size_t addr2line_chains_with(const char *tool, const char *file, const uint64_t *addrs,
				    size_t naddrs, bool demangle, struct ochain **out)
{
	char in[512], *txt, *save = NULL, *line;
	FILE *f;
	size_t n = 0;
	struct ochain *cur = NULL;
	bool want_func = true;

	*out = NULL;
	path_of(in, sizeof(in), "addrs.txt");
	f = fopen(in, "w");
	if (!f)
		return 0;
	for (size_t i = 0; i < naddrs; i++)
		fprintf(f, "0x%" PRIx64 "\n", addrs[i]);
	fclose(f);
	txt = capture("%s -a -f -i %s -e '%s' < '%s'", tool, demangle ? "-C" : "", file, in);
	*out = calloc(naddrs ? naddrs : 1, sizeof(**out));
	if (!txt)
		return 0;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "0x", 2) && n < naddrs) {
			cur = &(*out)[n++];
			cur->addr = strtoull(line, NULL, 16);
			want_func = true;
			continue;
		}
		if (!cur)
			continue;
		if (want_func) {
			if (cur->n < 8)
				snprintf(cur->f[cur->n].func, sizeof(cur->f[0].func), "%s", line);
			want_func = false;
		} else {
			char *disc = strstr(line, " (discriminator");
			char *colon;

			if (disc)
				*disc = 0;
			colon = strrchr(line, ':');
			if (cur->n < 8) {
				if (colon) {
					*colon = 0;
					cur->f[cur->n].line = (unsigned)strtoul(colon + 1, NULL, 10);
				}
				snprintf(cur->f[cur->n].file, sizeof(cur->f[0].file), "%s", line);
				cur->n++;
			}
			want_func = true;
		}
	}
	free(txt);
	return n;
}

static size_t addr2line_chains(const char *file, const uint64_t *addrs, size_t naddrs,
			       bool demangle, struct ochain **out)
{
	return addr2line_chains_with(a2l, file, addrs, naddrs, demangle, out);
}

/* Same innermost line and same inline chain as addr2line -i gives:
   (f0, loc in f0), (f1, call site of f0 in f1), ... (fk = the function). */
static bool same_chain(const struct hwp_symbol_info *info, const struct ochain *c, bool verbose)
{
	bool ok = c->n == info->n_inline + 1 && info->file &&
		  !strcmp(base_name(info->file), base_name(c->f[0].file)) &&
		  info->line == c->f[0].line;

	for (size_t k = 0; ok && k < info->n_inline; k++) {
		const struct hwp_inline_frame *fr = &info->inlines[k];

		ok = fr->function_full && !strcmp(fr->function_full, c->f[k].func) && fr->file &&
		     !strcmp(base_name(fr->file), base_name(c->f[k + 1].file)) &&
		     fr->line == c->f[k + 1].line;
	}
	if (!ok && verbose) {
		fprintf(stderr, "0x%" PRIx64 ": %s:%u", c->addr,
			info->file ? base_name(info->file) : "?", info->line);
		for (size_t k = 0; k < info->n_inline; k++)
			fprintf(stderr, " <- %s@%s:%u", info->inlines[k].function_full,
				info->inlines[k].file ? base_name(info->inlines[k].file) : "?",
				info->inlines[k].line);
		fprintf(stderr, " | %s:", a2l);
		for (size_t k = 0; k < c->n; k++)
			fprintf(stderr, " %s %s:%u", c->f[k].func, base_name(c->f[k].file),
				c->f[k].line);
		fprintf(stderr, "\n");
	}
	return ok;
}

/* ------------------------------------------------------------ fixtures */

static const char inl_c[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"\n"
	"static inline __attribute__((always_inline)) int sq(int x)\n"
	"{\n"
	"\treturn x * x + (x >> 3); /* LINE_SQ */\n"
	"}\n"
	"\n"
	"static inline __attribute__((always_inline)) int compute(int a)\n"
	"{\n"
	"\tint r = 0;\n"
	"\tfor (int i = 0; i < a; i++)\n"
	"\t\tr ^= sq(i + a) * i; /* CALL_SQ */\n"
	"\treturn r;\n"
	"}\n"
	"\n"
	"__attribute__((noinline)) int work(int n)\n"
	"{\n"
	"\treturn compute(n) * 3 + 1; /* CALL_COMPUTE */\n"
	"}\n"
	"\n"
	"static __attribute__((noinline)) int helper_static(int n)\n"
	"{\n"
	"\treturn n * 7 - (n >> 2) + VARIANT;\n"
	"}\n"
	"\n"
	"__attribute__((noinline, weak)) int weak_fn(int n)\n"
	"{\n"
	"\treturn n + helper_static(n);\n"
	"}\n"
	"\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tint n = argc > 1 ? atoi(argv[1]) : 10;\n"
	"\n"
	"\tprintf(\"%d\\n\", work(n) + weak_fn(n));\n"
	"\tputs(\"done\");\n"
	"\treturn 0;\n"
	"}\n";

static const char cxx_cc[] =
	"#include <cstdio>\n"
	"#include <cstdlib>\n"
	"namespace outer {\n"
	"namespace inner {\n"
	"template <typename T> struct Box {\n"
	"\tT v;\n"
	"\t__attribute__((noinline)) T get(int k) const { return v * k + 1; }\n"
	"};\n"
	"template <typename T> struct Acc {\n"
	"\tT s;\n"
	"\tinline void add(T x) { s += x * x; } /* CXX_ADD */\n"
	"};\n"
	"template <typename T> inline T run(int n)\n"
	"{\n"
	"\tAcc<T> a{0};\n"
	"\tfor (int i = 0; i < n; i++)\n"
	"\t\ta.add((T)i); /* CXX_CALL_ADD */\n"
	"\treturn a.s;\n"
	"}\n"
	"template <typename T, int N> __attribute__((noinline)) T scale(T x)\n"
	"{\n"
	"\treturn x * N - 1;\n"
	"}\n"
	"} // namespace inner\n"
	"__attribute__((noinline)) long total(const inner::Box<long> &b, int k)\n"
	"{\n"
	"\treturn b.get(k) + inner::scale<long, 3>(k);\n"
	"}\n"
	"} // namespace outer\n"
	"/* aliases: _Z1hIiiiEll is shorter than _ZN3abc4defgEl, \"h<int, int, int>\"\n"
	"   longer than \"abc::defg\" */\n"
	"namespace abc {\n"
	"__attribute__((noinline)) long defg(long x) { return x * 3 + 1; }\n"
	"}\n"
	"long h_alias(long) __asm__(\"_Z1hIiiiEll\") __attribute__((alias(\"_ZN3abc4defgEl\")));\n"
	"int main(int argc, char **)\n"
	"{\n"
	"\touter::inner::Box<long> b{argc};\n"
	"\touter::inner::Box<double> d{argc * 0.5};\n"
	"\tstd::printf(\"%ld %f %d\\n\", outer::total(b, argc), d.get(argc),\n"
	"\t\t    outer::inner::scale<int, 7>(argc));\n"
	"\tstd::printf(\"%ld\\n\", outer::inner::run<long>(argc * 1000)); /* CXX_CALL_RUN */\n"
	"\treturn (int)h_alias(argc) & 1;\n"
	"}\n";

static char f_pie[512], f_nopie[512], f_stripped[512], f_debug[512], f_other[512],
	f_cxx[512], f_cache[512], f_linkonly[512];
static uint8_t bid_pie[20], bid_other[20];
static size_t bid_pie_n, bid_other_n;

static void build_fixtures(void)
{
	char src[512], cxxsrc[512], hex[41], dir[600];

	have_gcc = system("gcc --version >/dev/null 2>&1") == 0;
	have_gxx = system("g++ --version >/dev/null 2>&1") == 0;
	have_tools = system("readelf --version >/dev/null 2>&1 && objdump --version >/dev/null 2>&1"
			    " && objcopy --version >/dev/null 2>&1") == 0;
	if (system("eu-addr2line --version >/dev/null 2>&1") == 0)
		snprintf(a2l, sizeof(a2l), "eu-addr2line");
	else if (system("addr2line --version >/dev/null 2>&1") != 0)
		have_tools = false;
	/* a second opinion where binutils' reader falls short (DWARF 5 rnglistx) */
	have_llvm_a2l = system("llvm-addr2line --version >/dev/null 2>&1") == 0;
	if (!have_gcc || !have_tools)
		return;
	snprintf(tmp, sizeof(tmp), "/tmp/hwp_symtest.XXXXXX");
	if (!mkdtemp(tmp))
		return;
	write_file("inl.c", inl_c);
	write_file("cxx.cc", cxx_cc);
	path_of(src, sizeof(src), "inl.c");
	path_of(cxxsrc, sizeof(cxxsrc), "cxx.cc");
	path_of(f_pie, sizeof(f_pie), "inl_pie");
	path_of(f_nopie, sizeof(f_nopie), "inl_nopie");
	path_of(f_stripped, sizeof(f_stripped), "inl_stripped");
	path_of(f_debug, sizeof(f_debug), "inl_pie.debug");
	path_of(f_other, sizeof(f_other), "inl_other");
	path_of(f_cxx, sizeof(f_cxx), "cxx");
	path_of(f_cache, sizeof(f_cache), "cache");
	path_of(f_linkonly, sizeof(f_linkonly), "linkonly/inl_linkonly");
	if (sh("gcc -g -O2 -DVARIANT=0 -fPIE -pie -Wl,--build-id '%s' -o '%s'", src, f_pie) ||
	    sh("gcc -g -O2 -DVARIANT=0 -fno-pie -no-pie -Wl,--build-id '%s' -o '%s'", src,
	       f_nopie) ||
	    sh("gcc -g -O2 -DVARIANT=5 -fPIE -pie -Wl,--build-id '%s' -o '%s'", src, f_other) ||
	    sh("objcopy --only-keep-debug '%s' '%s'", f_pie, f_debug) ||
	    sh("objcopy --strip-all '%s' '%s'", f_pie, f_stripped))
		return;
	bid_pie_n = read_build_id(f_pie, bid_pie);
	bid_other_n = read_build_id(f_other, bid_other);
	if (!bid_pie_n || !bid_other_n)
		return;
	/* the debug file in a build-id cache: cache/.build-id/xx/rest.debug */
	hex_of(bid_pie, bid_pie_n, hex);
	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s", f_cache, hex);
	if (sh("mkdir -p '%s' && cp '%s' '%s/%s.debug'", dir, f_debug, dir, hex + 2))
		return;
	/* a stripped copy found through .gnu_debuglink only (in .debug/ beside it) */
	if (sh("mkdir -p '%s/linkonly/.debug' && cp '%s' '%s/linkonly/.debug/inl_pie.debug' && "
	       "objcopy --strip-all --remove-section=.note.gnu.build-id "
	       "--add-gnu-debuglink='%s' '%s' '%s'",
	       tmp, f_debug, tmp, f_debug, f_pie, f_linkonly))
		return;
	if (have_gxx && sh("g++ -g -O2 -fPIE -pie '%s' -o '%s'", cxxsrc, f_cxx))
		have_gxx = false;
	fixtures_ok = true;
}

#define NEED_FIXTURES()                                                              \
	do {                                                                         \
		if (!have_gcc)                                                       \
			SKIP("gcc not found");                                       \
		if (!have_tools)                                                     \
			SKIP("binutils (readelf, objdump, objcopy, addr2line) not found"); \
		if (!fixtures_ok)                                                    \
			SKIP("could not build the fixtures");                        \
	} while (0)

static struct hwp_symbolizer *new_symbolizer(const char *symfs, const char *debug_dirs)
{
	struct hwp_symbolizer_opts o = { .sz = sizeof(o) };

	o.symfs = symfs;
	/* never the machine's ~/.debug or /usr/lib/debug: only what the test made */
	o.debug_dirs = debug_dirs ? debug_dirs : "/nonexistent-debug-dir";
	return hwp_symbolizer__new(&o);
}

/* ------------------------------------------------------------ symbols */

/* Every sized function of FILE, at its start, middle and last byte, as the
   file offset perf would give: the name and offset readelf says. */
static void check_all_functions(const char *file, int *checked)
{
	struct hwp_symbolizer *s = new_symbolizer(NULL, NULL);
	struct osym *v;
	size_t n = readelf_syms(file, false, false, &v);
	int mod = hwp_symbolizer__module(s, file, NULL, 0);

	CHECK(n > 10);
	CHECK(mod >= 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t probes[3];

		if (strcmp(v[i].type, "FUNC") || !v[i].size)
			continue;
		probes[0] = v[i].value;
		probes[1] = v[i].value + v[i].size / 2;
		probes[2] = v[i].value + v[i].size - 1;
		for (int k = 0; k < 3; k++) {
			struct hwp_symbol_info info;
			uint64_t off = off_of(file, probes[k]);
			bool ok = false;

			CHECK(off != UINT64_MAX);
			CHECK(hwp_symbolizer__lookup(s, mod, off, &info) == 0);
			CHECK_EQ_U64(info.vaddr, probes[k]);
			/* any symbol readelf has covering the address at that start */
			for (size_t j = 0; j < n && info.symbol; j++)
				if (!strcmp(v[j].name, info.symbol) && v[j].value <= probes[k] &&
				    probes[k] < v[j].value + (v[j].size ? v[j].size : 1) &&
				    info.sym_offset == probes[k] - v[j].value)
					ok = true;
			if (!ok)
				fprintf(stderr, "%s: 0x%" PRIx64 ": got %s+0x%" PRIx64
						", readelf says %s\n",
					file, probes[k], info.symbol ? info.symbol : "(null)",
					info.sym_offset, v[i].name);
			CHECK(ok);
			(*checked)++;
		}
	}
	free(v);
	CHECK(hwp_symbolizer__missing(s, NULL, 0, NULL) == 0);
	hwp_symbolizer__delete(s);
}

static void test_symbols_pie(void)
{
	int checked = 0;

	NEED_FIXTURES();
	check_all_functions(f_pie, &checked);
	CHECK(checked >= 15); /* main, work, weak_fn, helper_static, _start: 3 probes each */
	{ /* and every function of this test binary (libhwprof inside) */
		char self[4096];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (len > 0) {
			self[len] = 0;
			checked = 0;
			check_all_functions(self, &checked);
			CHECK(checked > 300);
			printf("# self: %d probes of sized functions as readelf -s\n", checked);
		}
	}
}

static void test_symbols_nopie(void)
{
	int checked = 0;
	struct osym *v;
	size_t n;

	NEED_FIXTURES();
	n = readelf_syms(f_nopie, false, false, &v);
	const struct osym *w = osym_named(v, n, "work");
	CHECK(w && w->value >= 0x400000); /* really linked at a fixed address */
	free(v);
	check_all_functions(f_nopie, &checked);
	CHECK(checked >= 15);
}

/* Weak and static functions, and the best-symbol rule on aliases. */
static void test_symbol_binding(void)
{
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	struct osym *v;
	size_t n;
	int mod;

	NEED_FIXTURES();
	s = new_symbolizer(NULL, NULL);
	n = readelf_syms(f_pie, false, false, &v);
	mod = hwp_symbolizer__module(s, f_pie, bid_pie, (uint8_t)bid_pie_n);
	const struct osym *weak = osym_named(v, n, "weak_fn");
	const struct osym *helper = NULL;

	for (size_t i = 0; i < n; i++)
		if (!strncmp(v[i].name, "helper_static", 13))
			helper = &v[i];
	CHECK(weak && !strcmp(weak->bind, "WEAK"));
	CHECK(helper && !strcmp(helper->bind, "LOCAL"));
	if (weak && helper) {
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_pie, weak->value + 1), &info) == 0);
		CHECK(info.symbol && !strcmp(info.symbol, "weak_fn"));
		CHECK_EQ_U64(info.sym_offset, 1);
		CHECK_EQ_U64(info.sym_start, weak->value);
		CHECK_EQ_U64(info.sym_size, weak->size);
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_pie, helper->value), &info) == 0);
		CHECK(info.symbol && !strcmp(info.symbol, helper->name));
	}
	/* outside every segment: no symbol, no error */
	CHECK(hwp_symbolizer__lookup(s, mod, 0x7fffffff, &info) == 0);
	CHECK(info.symbol == NULL);
	{
		uint64_t va = 0;

		CHECK(hwp_symbolizer__module_vaddr(s, mod, 0x7fffffff, &va) == -ERANGE);
		CHECK_EQ_U64(va, 0x7fffffff);
		if (weak) {
			CHECK(hwp_symbolizer__module_vaddr(s, mod, off_of(f_pie, weak->value), &va) == 0);
			CHECK_EQ_U64(va, weak->value);
		}
		CHECK(!strcmp(hwp_symbolizer__module_file(s, mod), f_pie));
	}
	CHECK(hwp_symbolizer__lookup(s, 12345, 0, &info) == -EINVAL);
	free(v);
	hwp_symbolizer__delete(s);
}

/* PLT entries: with all_plt, named as objdump names them ("puts@plt"). By
   default as perf 6.1 shows them, which test_plt_layouts checks against perf
   itself: here only that a .plt entry is "name@plt" or gcc's zero-sized
   _init (crti.o) stretched over .plt, as perf's symbol tree finds one or the
   other. */
static void test_plt_symbols(void)
{
	struct hwp_symbolizer_opts o = { .sz = sizeof(o), .debug_dirs = "/nonexistent",
					 .all_plt = true };
	struct hwp_symbolizer *s, *p;
	char *txt, *save = NULL, *line;
	struct osym *v;
	size_t nv;
	int mod, pmod, found = 0;
	const struct osym *init;

	NEED_FIXTURES();
	s = hwp_symbolizer__new(&o);
	p = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, f_pie, NULL, 0);
	pmod = hwp_symbolizer__module(p, f_pie, NULL, 0);
	nv = readelf_syms(f_pie, false, false, &v);
	init = osym_named(v, nv, "_init");
	txt = capture("objdump -d '%s'", f_pie);
	CHECK(txt != NULL);
	for (line = txt ? strtok_r(txt, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint64_t a;
		char name[128];
		struct hwp_symbol_info info;
		size_t len;

		if (sscanf(line, "%" SCNx64 " <%127[^>]>:", &a, name) != 2)
			continue;
		len = strlen(name);
		if (len < 5 || strcmp(name + len - 4, "@plt"))
			continue;
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_pie, a), &info) == 0);
		if (!info.symbol || strcmp(info.symbol, name))
			fprintf(stderr, "PLT 0x%" PRIx64 ": got %s, objdump says %s\n", a,
				info.symbol ? info.symbol : "(null)", name);
		CHECK(info.symbol && !strcmp(info.symbol, name));
		CHECK_EQ_U64(info.sym_offset, 0);
		/* perf 6.1 */
		CHECK(hwp_symbolizer__lookup(p, pmod, off_of(f_pie, a), &info) == 0);
		if (init && init->size == 0 && init->value < a && info.symbol &&
		    !strcmp(info.symbol, "_init"))
			CHECK_EQ_U64(info.sym_offset, a - init->value);
		else if (!strcmp(name, "__cxa_finalize@plt")) /* .plt.got: perf names none */
			CHECK(!info.symbol || !strcmp(info.symbol, "_init"));
		else
			CHECK(info.symbol && !strcmp(info.symbol, name));
		found++;
	}
	CHECK(found >= 3); /* printf, puts, strtol, __cxa_finalize (.plt.got) */
	free(v);
	free(txt);
	hwp_symbolizer__delete(s);
	hwp_symbolizer__delete(p);

	/* without crti.o's _init nothing covers .plt: perf 6.1 names its entries */
	{
		char src[512], bin[512];
		int m2;

		found = 0;
		write_file("noinit.c", "#include <stdio.h>\n#include <stdlib.h>\n"
				       "void _start(void) { puts(\"x\"); fflush(stdout); exit(0); }\n");
		path_of(src, sizeof(src), "noinit.c");
		path_of(bin, sizeof(bin), "noinit");
		if (sh("gcc -O2 -nostartfiles '%s' -o '%s'", src, bin))
			return;
		p = new_symbolizer(NULL, NULL);
		m2 = hwp_symbolizer__module(p, bin, NULL, 0);
		txt = capture("objdump -d -j .plt '%s'", bin);
		save = NULL;
		for (line = txt ? strtok_r(txt, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			uint64_t a;
			char name[128];
			struct hwp_symbol_info info;
			size_t len;

			if (sscanf(line, "%" SCNx64 " <%127[^>]>:", &a, name) != 2)
				continue;
			len = strlen(name);
			if (len < 5 || strcmp(name + len - 4, "@plt"))
				continue;
			CHECK(hwp_symbolizer__lookup(p, m2, off_of(bin, a + 2), &info) == 0);
			CHECK(info.symbol && !strcmp(info.symbol, name));
			CHECK_EQ_U64(info.sym_offset, 2);
			found++;
		}
		CHECK(found >= 2); /* puts, fflush, exit */
		free(txt);
		hwp_symbolizer__delete(p);
	}
}

/* ------------------------------------------------------------ perf as the oracle */

/*
 * perf 6.1's symbol for link-time address VA[i] of BIN: one sample at each
 * address in a perf.data that maps BIN's executable segments as the loader
 * would (with BIN's build-id), read back by `perf script -F ip,sym,symoff`.
 * OUT[i] gets "name+0xoff" or "[unknown]". Returns the number of samples
 * perf printed (N when all went well), -1 when perf or the file failed.
 */
static int perf_symbols(const char *bin, const uint64_t *va, size_t n, char (*out)[256])
{
	struct oseg seg[16];
	size_t nseg = readelf_loads(bin, seg, 16), got = 0;
	uint8_t bid[20];
	size_t bid_n = read_build_id(bin, bid);
	uint64_t base = nseg && seg[0].vaddr == 0 ? 0x7f1200000000ULL : 0, t = 1000;
	char data[512], *txt, *save = NULL, *line;
	struct hwp_writer *w;
	struct hwp_attr a = { 0 };
	struct hwp_sample id = { 0 };
	const char *comm = base_name(bin);
	int idx;

	snprintf(data, sizeof(data), "%s/perf-oracle.data", tmp);
	if (!nseg || !(w = hwp_writer__open(data)))
		return -1;
	a.size = 128;
	a.sample_period = 1;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_PERIOD;
	a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) |
		  (1ULL << HWP_ATTR_COMM) | (1ULL << HWP_ATTR_MMAP2) | (1ULL << HWP_ATTR_EXCLUDE_KERNEL);
	idx = hwp_writer__add_attr(w, &a, NULL, 0, "cycles:u");
	if (idx < 0 || hwp_writer__set_host_features(w) < 0) {
		hwp_writer__abort(w);
		return -1;
	}
	id.sample_type = a.sample_type;
	id.pid = id.tid = 4242;
	id.time = t++;
	hwp_writer__add_comm(w, idx, 4242, 4242, comm, true, &id);
	for (size_t i = 0; i < nseg; i++) {
		uint64_t start = base + (seg[i].vaddr & ~0xfffULL);
		uint64_t end = base + ((seg[i].vaddr + seg[i].filesz + 0xfff) & ~0xfffULL);

		if (!seg[i].x)
			continue;
		id.time = t++;
		hwp_writer__add_mmap2(w, idx, 4242, 4242, start, end - start, seg[i].off & ~0xfffULL,
				      bid_n ? bid : NULL, (uint8_t)bid_n, 5, 2, bin, HWP_MISC_USER, &id);
	}
	if (bid_n)
		hwp_writer__add_build_id(w, -1, HWP_MISC_USER, bid, (uint8_t)bid_n, bin);
	for (size_t i = 0; i < n; i++) {
		struct hwp_sample smp = { 0 };
		struct hwp_sample_in in = { .s = &smp };

		smp.sample_type = a.sample_type;
		smp.cpumode = HWP_MISC_USER;
		smp.ip = base + va[i];
		smp.pid = smp.tid = 4242;
		smp.time = t++;
		smp.period = 1;
		if (hwp_writer__add_sample(w, idx, &in) < 0) {
			hwp_writer__abort(w);
			return -1;
		}
	}
	if (hwp_writer__close(w) < 0)
		return -1;
	txt = capture("perf script -i '%s' -F ip,sym,symoff 2>/dev/null", data);
	if (!txt)
		return -1;
	for (line = strtok_r(txt, "\n", &save); line && got < n; line = strtok_r(NULL, "\n", &save)) {
		uint64_t ip;
		int pos = 0;

		if (sscanf(line, " %" SCNx64 " %n", &ip, &pos) < 1 || !pos || ip != base + va[got])
			continue;
		snprintf(out[got], sizeof(out[got]), "%s", line + pos);
		got++;
	}
	free(txt);
	return (int)got;
}

/* hwprof's answer in perf script's spelling ("name+0xoff", "[unknown]"). */
static void hwprof_symbol(struct hwp_symbolizer *s, int mod, const char *bin, uint64_t va,
			  char *out, size_t size)
{
	struct hwp_symbol_info info;

	if (hwp_symbolizer__lookup(s, mod, off_of(bin, va), &info) == 0 && info.symbol)
		snprintf(out, size, "%s+0x%" PRIx64, info.symbol, info.sym_offset);
	else
		snprintf(out, size, "[unknown]");
}

static bool have_perf(void)
{
	static int have = -1;

	if (have < 0)
		have = system("perf version >/dev/null 2>&1") == 0;
	return have;
}

/* Every address of ADDRS symbolized as perf 6.1 does. Returns how many
   were compared (0 when perf is missing or failed). */
static size_t check_against_perf(struct hwp_symbolizer *s, int mod, const char *bin,
				 const uint64_t *addrs, size_t n, const char *what)
{
	char (*want)[256] = calloc(n ? n : 1, sizeof(*want));
	size_t same = 0;
	int got;

	if (!want)
		abort();
	got = have_perf() && n ? perf_symbols(bin, addrs, n, want) : -1;
	CHECK(got < 0 || (size_t)got == n);
	for (size_t i = 0; got > 0 && i < (size_t)got; i++) {
		char mine[256];

		hwprof_symbol(s, mod, bin, addrs[i], mine, sizeof(mine));
		if (strcmp(mine, want[i]) && same + 5 > i) /* the first few only */
			fprintf(stderr, "%s 0x%" PRIx64 ": hwprof %s, perf %s\n", what, addrs[i],
				mine, want[i]);
		same += !strcmp(mine, want[i]);
	}
	CHECK(got < 0 || same == (size_t)got);
	free(want);
	return got < 0 ? 0 : (size_t)got;
}

/* Instruction addresses of FILE in the sections named in SECS (a list like
   " .plt .plt.sec .plt.got "), from objdump -d; the "<name@plt>:" labels
   objdump puts on PLT entries are counted per section in LABELS. */
struct plt_entry {
	uint64_t addr;
	char name[128], sec[64];
};

static size_t objdump_section_insns(const char *file, const char *secs, uint64_t **addrs,
				    struct plt_entry **labels, size_t *nlabels)
{
	char *txt = capture("objdump -d -w '%s'", file), *save = NULL, *line;
	char sec[64] = "", key[80];
	size_t n = 0, cap = 0, nl = 0, capl = 0;

	*addrs = NULL;
	*labels = NULL;
	for (line = txt ? strtok_r(txt, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint64_t a;
		char name[128];

		if (sscanf(line, "Disassembly of section %63[^:]:", sec) == 1)
			continue;
		snprintf(key, sizeof(key), " %s ", sec);
		if (!strstr(secs, key))
			continue;
		if (sscanf(line, "%" SCNx64 " <%127[^>]>:", &a, name) == 2) {
			if (nl == capl) {
				capl = capl ? 2 * capl : 64;
				*labels = realloc(*labels, capl * sizeof(**labels));
			}
			(*labels)[nl].addr = a;
			snprintf((*labels)[nl].name, sizeof((*labels)[nl].name), "%s", name);
			snprintf((*labels)[nl].sec, sizeof((*labels)[nl].sec), "%s", sec);
			nl++;
		} else if (sscanf(line, " %" SCNx64 ":\t", &a) == 1 && strchr(line, '\t')) {
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				*addrs = realloc(*addrs, cap * sizeof(**addrs));
			}
			(*addrs)[n++] = a;
		}
	}
	free(txt);
	*nlabels = nl;
	return n;
}

/*
 * The three x86-64 PLT layouts: lazy .plt (+ .plt.got for __cxa_finalize),
 * IBT's .plt + .plt.sec (-fcf-protection -z ibtplt), -z now, -fno-plt, and
 * a stripped executable and shared libraries. With all_plt every entry is
 * named as objdump names it;
 * by default every instruction of the PLT sections resolves as perf 6.1
 * resolves it (perf names .plt entries by .rela.plt order and nothing in
 * .plt.sec or .plt.got; gcc's _init may cover some, as perf's tree finds).
 */
static void test_plt_layouts(void)
{
	static const struct {
		const char *name, *flags, *want_sec; /* a section that must hold labels */
	} variants[] = {
		{ "plt_lazy", "", ".plt" },
		{ "plt_ibt", "-fcf-protection=full -Wl,-z,ibtplt", ".plt.sec" },
		{ "plt_now", "-Wl,-z,now", ".plt" },
		{ "plt_noplt", "-fno-plt", ".plt.got" },
		{ "plt_stripped", "-s", ".plt" }, /* no defined symbol: perf names no stub */
		{ "plt_so.so", "-shared -fPIC", ".plt" },
		{ "plt_ibt_so.so", "-shared -fPIC -fcf-protection=full -Wl,-z,ibtplt", ".plt.sec" },
	};
	char src[512];
	size_t perf_checked = 0;

	NEED_FIXTURES();
	write_file("plt.c",
		   "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
		   "static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }\n"
		   "int work(int argc, char **argv) {\n"
		   "  int v[4] = { 3, 1, argc, 2 };\n"
		   "  qsort(v, 4, sizeof(int), cmp);\n"
		   "  char *e = getenv(\"PLT_TEST\");\n"
		   "  printf(\"%d %ld %zu\\n\", v[0], strtol(argv[0], NULL, 10), strlen(e ? e : \"\"));\n"
		   "  puts(argv[0]);\n  return atoi(argv[0]);\n}\n"
		   "int main(int argc, char **argv) { return work(argc, argv); }\n");
	path_of(src, sizeof(src), "plt.c");
	for (size_t k = 0; k < sizeof(variants) / sizeof(variants[0]); k++) {
		struct hwp_symbolizer_opts o = { .sz = sizeof(o), .debug_dirs = "/nonexistent",
						 .all_plt = true };
		struct hwp_symbolizer *all, *perfish;
		struct plt_entry *lab;
		uint64_t *insns;
		size_t nl, ni, in_want = 0;
		char bin[512];
		int m1, m2;

		path_of(bin, sizeof(bin), variants[k].name);
		if (sh("gcc -O2 %s '%s' -o '%s'", variants[k].flags, src, bin)) {
			CHECK(0);
			continue;
		}
		ni = objdump_section_insns(bin, " .plt .plt.sec .plt.got ", &insns, &lab, &nl);
		all = hwp_symbolizer__new(&o);
		perfish = new_symbolizer(NULL, NULL);
		m1 = hwp_symbolizer__module(all, bin, NULL, 0);
		m2 = hwp_symbolizer__module(perfish, bin, NULL, 0);
		CHECK(ni > 0);
		for (size_t i = 0; i < nl; i++) {
			struct hwp_symbol_info info;
			size_t len = strlen(lab[i].name);

			if (len < 5 || strcmp(lab[i].name + len - 4, "@plt"))
				continue; /* ".plt" (the header) and the like */
			in_want += !strcmp(lab[i].sec, variants[k].want_sec);
			CHECK(hwp_symbolizer__lookup(all, m1, off_of(bin, lab[i].addr + 2), &info) == 0);
			if (!info.symbol || strcmp(info.symbol, lab[i].name))
				fprintf(stderr, "%s %s 0x%" PRIx64 ": got %s, objdump says %s\n",
					variants[k].name, lab[i].sec, lab[i].addr,
					info.symbol ? info.symbol : "(null)", lab[i].name);
			CHECK(info.symbol && !strcmp(info.symbol, lab[i].name));
			CHECK_EQ_U64(info.sym_offset, 2);
		}
		if (!in_want)
			fprintf(stderr, "%s: objdump names no entry in %s\n", variants[k].name,
				variants[k].want_sec);
		CHECK(in_want > 0);
		size_t np = check_against_perf(perfish, m2, bin, insns, ni, variants[k].name);

		printf("# %s: %zu PLT entries as objdump names them, %zu PLT instructions "
		       "compared with perf\n", variants[k].name, nl, np);
		perf_checked += np;
		free(insns);
		free(lab);
		hwp_symbolizer__delete(all);
		hwp_symbolizer__delete(perfish);
	}
	if (!have_perf())
		printf("# perf not installed: PLT names not compared with perf's\n");
	else
		CHECK(perf_checked > 50);
}

/*
 * Of the aliases at one address perf keeps the sized, non-weak, global one
 * with the fewest leading underscores and the longest name, and of equals
 * the first in the table: "g@V_1.1" before "f@@V_22" at impl2 (the shape of
 * libc's sem_destroy@GLIBC_2.2.5 / sem_destroy@@GLIBC_2.34). Checked
 * against the table readelf shows, against perf, and on libc's own .symtab
 * when its debug file (libc6-dbg) is installed.
 */
static void test_symbol_versions(void)
{
	char src[512], map[512], so[512];
	struct hwp_symbolizer *s;
	struct osym *v;
	size_t n;
	int mod;

	NEED_FIXTURES();
	write_file("ver.c", "int impl(void) { return 42; }\n"
			    "int impl2(void) { return 43; }\n"
			    "__asm__(\".symver impl, f@V_1.1\");\n"
			    "__asm__(\".symver impl2, f@@V_22\");\n"
			    "__asm__(\".globl g_old\\n.set g_old, impl2\\n.type g_old,@function\\n"
			    ".size g_old, 4\");\n"
			    "__asm__(\".symver g_old, g@V_1.1\");\n");
	write_file("ver.map", "V_1.1 { global: f; g; }; V_22 { global: f; } V_1.1;\n");
	path_of(src, sizeof(src), "ver.c");
	path_of(map, sizeof(map), "ver.map");
	path_of(so, sizeof(so), "libver.so");
	if (sh("gcc -O2 -shared -fPIC -Wl,--version-script='%s' '%s' -o '%s'", map, src, so))
		SKIP("this toolchain cannot build a versioned library");
	s = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, so, NULL, 0);
	n = readelf_syms(so, false, false, &v);
	/* group readelf's function symbols by address; perf's pick among each */
	for (size_t i = 0; i < n; i++) {
		const struct osym *best = NULL;
		struct hwp_symbol_info info;
		bool first = true;

		if (strcmp(v[i].type, "FUNC") || !v[i].size)
			continue;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(v[j].type, "FUNC") && v[j].size && v[j].value == v[i].value)
				first = false;
		if (!first)
			continue;
		for (size_t j = i; j < n; j++) {
			const struct osym *c = &v[j];

			if (strcmp(c->type, "FUNC") || !c->size || c->value != v[i].value)
				continue;
			if (!best) {
				best = c;
				continue;
			}
			bool cw = !strcmp(c->bind, "WEAK"), bw = !strcmp(best->bind, "WEAK");
			bool cg = !strcmp(c->bind, "GLOBAL"), bg = !strcmp(best->bind, "GLOBAL");
			size_t cu = strspn(c->name, "_"), bu = strspn(best->name, "_");

			if (cw != bw) {
				if (bw)
					best = c;
			} else if (cg != bg) {
				if (cg)
					best = c;
			} else if (cu != bu) {
				if (cu < bu)
					best = c;
			} else if (strlen(c->name) > strlen(best->name)) {
				best = c;
			} /* equal: the earlier stays */
		}
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(so, v[i].value), &info) == 0);
		if (!info.symbol || strcmp(info.symbol, best->name))
			fprintf(stderr, "0x%" PRIx64 ": got %s, want %s\n", v[i].value,
				info.symbol ? info.symbol : "(null)", best->name);
		CHECK(info.symbol && !strcmp(info.symbol, best->name));
	}
	{ /* the equal-length pair, by name, and perf's word on it */
		const struct osym *a = osym_named(v, n, "f@V_1.1"), *b = osym_named(v, n, "f@@V_22");
		const struct osym *g = osym_named(v, n, "g@V_1.1");
		uint64_t addrs[3];
		size_t na = 0;

		CHECK(a && b && g);
		if (a)
			addrs[na++] = a->value;
		if (b)
			addrs[na++] = b->value;
		if (g)
			addrs[na++] = g->value + 1;
		if (check_against_perf(s, mod, so, addrs, na, "libver.so") == na)
			printf("# libver.so: of the equally long g@V_1.1 and f@@V_22 the first "
			       "in .symtab kept, as perf\n");
	}
	free(v);
	hwp_symbolizer__delete(s);

	/* libc: every address where .symtab (libc6-dbg) holds aliases */
	{
		const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
		uint8_t bid[20];
		char hex[41], dbg[256];
		size_t bn = read_build_id(libc, bid), na = 0;
		uint64_t *addrs;
		struct osym *d;
		size_t nd;

		if (!bn) {
			printf("# no libc.so.6 with a build-id: libc aliases not checked\n");
			return;
		}
		hex_of(bid, bn, hex);
		snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		if (access(dbg, R_OK) || !have_perf()) {
			printf("# no libc debug file or no perf: libc aliases not checked\n");
			return;
		}
		nd = readelf_syms(dbg, false, false, &d);
		addrs = calloc(nd ? nd : 1, sizeof(*addrs));
		for (size_t i = 1; i < nd && na < 400; i++)
			if (!strcmp(d[i].type, "FUNC") && d[i].size && strchr(d[i].name, '@'))
				addrs[na++] = d[i].value;
		{
			struct osym *libc_syms = NULL;
			s = new_symbolizer(NULL, "/usr/lib/debug");
			mod = hwp_symbolizer__module(s, libc, bid, (uint8_t)bn);
			CHECK(na > 100);
			CHECK(check_against_perf(s, mod, libc, addrs, na, "libc") == na);
			printf("# libc: %zu versioned symbols' addresses as perf names them\n", na);
			/* libc's .plt: IRELATIVE slots, perf's "@plt" */
			free(addrs);
			size_t nl, ni = objdump_section_insns(libc, " .plt .plt.got ", &addrs,
							      (struct plt_entry **)&libc_syms, &nl);
			CHECK(ni > 10);
			CHECK(check_against_perf(s, mod, libc, addrs, ni, "libc .plt") == ni);
			printf("# libc: %zu .plt/.plt.got instructions as perf names them\n", ni);
			free(libc_syms);
			hwp_symbolizer__delete(s);
		}
		free(addrs);
		free(d);
	}
}

/* ------------------------------------------------------------ lines, inlines */

/* file:line of every instruction of the fixture's own functions against
   objdump --line-numbers, and the whole inline chain against addr2line -i.
   objdump carries the last line over rows that have line 0 (clang's
   compiler-made code): there addr2line, which says 0 too, decides. */
static void check_lines(const char *file, const char *module_path, const uint8_t *bid,
			size_t bid_n, const char *debug_dirs, bool expect_exact)
{
	struct hwp_symbolizer *s = new_symbolizer(NULL, debug_dirs);
	struct oinsn *ins;
	struct osym *v;
	struct ochain *ch;
	size_t nv = readelf_syms(file, false, false, &v);
	size_t n = objdump_insns(file, &ins), total = 0, same = 0, line0 = 0, chains = 0, nc;
	size_t by_llvm = 0;
	uint64_t *addrs = calloc(n ? n : 1, sizeof(*addrs));
	int mod = hwp_symbolizer__module(s, module_path, bid, (uint8_t)bid_n);

	CHECK(n > 50);
	for (size_t i = 0; i < n; i++) {
		const char *f = ins[i].func;
		const struct osym *fs = osym_named(v, nv, f);

		if (strcmp(f, "work") && strcmp(f, "main") && strcmp(f, "weak_fn") &&
		    strncmp(f, "helper_static", 13))
			continue;
		/* objdump goes on naming the padding after a function by it */
		if (!ins[i].line || !fs || ins[i].addr >= fs->value + fs->size)
			continue;
		ins[total++] = ins[i];
	}
	for (size_t i = 0; i < total; i++)
		addrs[i] = ins[i].addr;
	nc = addr2line_chains(file, addrs, total, false, &ch);
	CHECK(nc == total);
	for (size_t i = 0; i < total && i < nc; i++) {
		struct hwp_symbol_info info;
		bool ok;

		CHECK(hwp_symbolizer__lookup(s, mod, off_of(file, ins[i].addr), &info) == 0);
		CHECK(info.symbol && !strcmp(info.symbol, ins[i].func));
		ok = info.file && !strcmp(base_name(info.file), base_name(ins[i].file)) &&
		     info.line == ins[i].line;
		if (!ok && info.line == 0 && ch[i].n && ch[i].f[0].line == 0) {
			ok = true; /* a line-0 row: objdump shows the line before it */
			line0++;
		}
		if (!ok)
			fprintf(stderr, "%s 0x%" PRIx64 " (%s): got %s:%u, objdump says %s:%u\n",
				base_name(file), ins[i].addr, ins[i].func,
				info.file ? base_name(info.file) : "(null)", info.line,
				base_name(ins[i].file), ins[i].line);
		same += ok;
		if (same_chain(&info, &ch[i], !have_llvm_a2l))
			chains++;
		else if (have_llvm_a2l) {
			struct ochain *ll;

			if (addr2line_chains_with("llvm-addr2line", file, &ins[i].addr, 1, false,
						  &ll) == 1 &&
			    same_chain(&info, &ll[0], true)) {
				chains++;
				by_llvm++;
			}
			free(ll);
		}
	}
	CHECK(total > 20);
	if (expect_exact) {
		CHECK(same == total);
		CHECK(chains == total);
	}
	printf("# %s: %zu/%zu instruction lines as objdump -l (%zu line-0 rows), %zu/%zu inline "
	       "chains as %s -i (%zu of them as llvm-addr2line, where %s differs)\n",
	       base_name(file), same, total, line0, chains, total, a2l, by_llvm, a2l);
	free(ch);
	free(addrs);
	free(v);
	free(ins);
	hwp_symbolizer__delete(s);
}

static void test_lines_pie(void)
{
	NEED_FIXTURES();
	check_lines(f_pie, f_pie, NULL, 0, NULL, true);
}

static void test_lines_nopie(void)
{
	NEED_FIXTURES();
	check_lines(f_nopie, f_nopie, NULL, 0, NULL, true);
}

/* Other producers and encodings: DWARF 4, compressed debug sections, clang
   (no .debug_aranges: CUs are found through their own ranges). */
static void test_lines_variants(void)
{
	static const struct {
		const char *name, *cc, *flags;
	} v[] = {
		{ "inl_dw4", "gcc", "-gdwarf-4" },
		{ "inl_gz", "gcc", "-gz=zlib" },
		{ "inl_clang", "clang", "" },
		{ "inl_clang_dw4", "clang", "-gdwarf-4" },
	};
	char src[512], out[512];
	int done = 0;

	NEED_FIXTURES();
	path_of(src, sizeof(src), "inl.c");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char probe[128];

		snprintf(probe, sizeof(probe), "%s --version >/dev/null 2>&1", v[i].cc);
		if (system(probe) != 0) {
			printf("# %s not found: %s skipped\n", v[i].cc, v[i].name);
			continue;
		}
		path_of(out, sizeof(out), v[i].name);
		if (sh("%s -g -O2 -DVARIANT=0 %s '%s' -o '%s'", v[i].cc, v[i].flags, src, out)) {
			printf("# %s %s cannot build: %s skipped\n", v[i].cc, v[i].flags, v[i].name);
			continue;
		}
		check_lines(out, out, NULL, 0, NULL, true);
		done++;
	}
	if (!done)
		SKIP("no variant could be built");
}

/* The inline chain of every instruction of work() against addr2line -i, and
   one chain checked against the source itself. */
static void test_inline_chains(void)
{
	struct hwp_symbolizer *s;
	struct oinsn *ins;
	struct ochain *ch;
	uint64_t *addrs;
	size_t n, na = 0, nc, deep = 0, agree = 0;
	unsigned l_sq = marker_line(inl_c, "LINE_SQ"), l_call_sq = marker_line(inl_c, "CALL_SQ"),
		 l_call_compute = marker_line(inl_c, "CALL_COMPUTE");
	int mod;

	NEED_FIXTURES();
	s = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, f_pie, NULL, 0);
	n = objdump_insns(f_pie, &ins);
	addrs = calloc(n ? n : 1, sizeof(*addrs));
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ins[i].func, "work"))
			addrs[na++] = ins[i].addr;
	CHECK(na > 5);
	nc = addr2line_chains(f_pie, addrs, na, false, &ch);
	CHECK(nc == na);
	for (size_t i = 0; i < nc; i++) {
		struct hwp_symbol_info info;
		bool ok;

		CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_pie, ch[i].addr), &info) == 0);
		if (ch[i].n == 0 || !ch[i].f[0].line)
			continue;
		ok = same_chain(&info, &ch[i], true);
		if (ok && info.n_inline)
			ok = !strcmp(ch[i].f[info.n_inline].func, "work");
		agree += ok;
		CHECK(ok);
		/* sq inlined into compute inlined into work: the source says where */
		if (info.n_inline == 2 && info.line == l_sq) {
			deep++;
			CHECK(!strcmp(info.inlines[0].function, "sq"));
			CHECK(info.inlines[0].line == l_call_sq);
			CHECK(!strcmp(info.inlines[1].function, "compute"));
			CHECK(info.inlines[1].line == l_call_compute);
			CHECK(!strcmp(info.symbol, "work"));
		}
	}
	CHECK(deep > 0);
	printf("# inline chains: %zu/%zu addresses as %s -i, %zu in sq<-compute<-work\n", agree,
	       nc, a2l, deep);
	/* no_inline: same lines, no chain */
	{
		struct hwp_symbolizer_opts o = { .sz = sizeof(o), .no_inline = true,
						 .debug_dirs = "/nonexistent" };
		struct hwp_symbolizer *s2 = hwp_symbolizer__new(&o);
		int m2 = hwp_symbolizer__module(s2, f_pie, NULL, 0);
		struct hwp_symbol_info a, b;

		for (size_t i = 0; i < na; i++) {
			CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_pie, addrs[i]), &a) == 0);
			CHECK(hwp_symbolizer__lookup(s2, m2, off_of(f_pie, addrs[i]), &b) == 0);
			CHECK(b.n_inline == 0 && a.line == b.line);
		}
		hwp_symbolizer__delete(s2);
	}
	free(ch);
	free(addrs);
	free(ins);
	hwp_symbolizer__delete(s);
}


/* Many addresses of this test binary (real code: libhwprof at -O2, lots of
   inlining) against addr2line -i: symbol, line and whole inline chain. */
static void test_self_against_addr2line(void)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct hwp_symbolizer *s;
	struct oseg segs[16];
	struct ochain *ch;
	uint64_t *addrs;
	size_t nseg, N = 3000, nc, lines_same = 0, chains_same = 0, with_line = 0, inl = 0;
	uint64_t vstart = 0, vsize = 0, off0 = 0;
	int mod;

	if (len <= 0)
		SKIP("no /proc/self/exe");
	self[len] = 0;
	if (!have_tools)
		SKIP("binutils not found");
	nseg = readelf_loads(self, segs, 16);
	for (size_t i = 0; i < nseg; i++)
		if (segs[i].x) {
			vstart = segs[i].vaddr;
			vsize = segs[i].filesz;
			off0 = segs[i].off;
		}
	CHECK(vsize > 0);
	if (!vsize)
		return;
	addrs = calloc(N, sizeof(*addrs));
	for (size_t i = 0; i < N; i++)
		addrs[i] = vstart + (vsize * (i + 1)) / (N + 1);
	nc = addr2line_chains(self, addrs, N, false, &ch);
	CHECK(nc == N);
	s = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, self, NULL, 0);
	for (size_t i = 0; i < nc; i++) {
		struct hwp_symbol_info info;
		bool same_line;

		CHECK(hwp_symbolizer__lookup(s, mod, ch[i].addr - vstart + off0, &info) == 0);
		if (!ch[i].n || !ch[i].f[0].line)
			continue;
		with_line++;
		same_line = info.file && !strcmp(base_name(info.file), base_name(ch[i].f[0].file)) &&
			    info.line == ch[i].f[0].line;
		lines_same += same_line;
		chains_same += same_chain(&info, &ch[i], getenv("HWPROF_TEST_VERBOSE") != NULL);
		inl += info.n_inline > 0;
	}
	printf("# self: %zu addresses with a line: %zu same line, %zu same inline chain "
	       "(%zu inlined) as %s -i\n",
	       with_line, lines_same, chains_same, inl, a2l);
	CHECK(with_line > N / 2);
	CHECK(lines_same * 100 >= with_line * 99);
	CHECK(chains_same * 100 >= with_line * 98);
	CHECK(inl > 100);
	free(ch);
	free(addrs);
	hwp_symbolizer__delete(s);
}

/* ------------------------------------------------------------ DWARF 5 file 0 */

/*
 * A function defined in a header and emitted first in .text starts the line
 * program's sequence in file 1 (the header) without a DW_LNS_set_file: the
 * standard (libdw, readelf's decoded lines) says the header; binutils'
 * addr2line, and so perf's srcline, says file 0, the .c file. glibc's
 * __ctype_b_loc is this case (ctype.h vs ctype-info.c). hwprof names what
 * addr2line names, here and at every instruction of the program.
 */
static void test_dwarf5_file0(void)
{
	char hdr[512], src[512], bin[512], *dl, *row;
	struct hwp_symbolizer *s;
	struct osym *v;
	struct oinsn *ins;
	struct ochain *ch;
	uint64_t fn = 0, *addrs;
	size_t n, ni, nc, same = 0, cmp = 0;
	int mod;
	bool disputed = false;

	NEED_FIXTURES();
	path_of(hdr, sizeof(hdr), "f0hdr.h");
	path_of(src, sizeof(src), "f0main.c");
	path_of(bin, sizeof(bin), "f0main");
	write_file("f0hdr.h", "__attribute__((noinline)) int in_header(int x)\n"
			      "{\n"
			      "\treturn x * 7 + 1; /* F0_BODY */\n"
			      "}\n");
	write_file("f0main.c", "#include \"f0hdr.h\"\n"
			       "int main(int argc, char **argv)\n"
			       "{\n"
			       "\t(void)argv;\n"
			       "\treturn in_header(argc) & 1;\n"
			       "}\n");
	if (sh("gcc -g -gdwarf-5 -O2 '%s' -o '%s'", src, bin))
		SKIP("gcc -gdwarf-5 failed");
	n = readelf_syms(bin, false, false, &v);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, "in_header"))
			fn = v[i].value;
	free(v);
	CHECK(fn != 0);
	/* the case is there: readelf's decoded rows put in_header in the header */
	dl = capture("readelf --debug-dump=decodedline '%s'", bin);
	if (dl) {
		char want[32];

		snprintf(want, sizeof(want), " 0x%" PRIx64 " ", fn);
		row = strstr(dl, want);
		while (row && row > dl && row[-1] != '\n')
			row--;
		disputed = row && !strncmp(row, "f0hdr.h ", 8);
		free(dl);
	}
	CHECK(disputed);
	s = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, bin, NULL, 0);
	{
		struct hwp_symbol_info info;

		CHECK(hwp_symbolizer__lookup(s, mod, off_of(bin, fn), &info) == 0);
		CHECK(info.file && !strcmp(base_name(info.file), "f0main.c"));
		CHECK(info.line == marker_line("__attribute__((noinline)) int in_header(int x)\n{\n"
					       "\treturn x * 7 + 1; /* F0_BODY */\n", "F0_BODY"));
	}
	/* every instruction: the file and line of addr2line's first location */
	ni = objdump_insns(bin, &ins);
	addrs = calloc(ni ? ni : 1, sizeof(*addrs));
	for (size_t i = 0; i < ni; i++)
		addrs[i] = ins[i].addr;
	nc = addr2line_chains_with("addr2line", bin, addrs, ni, false, &ch);
	CHECK(nc == ni && ni > 5);
	for (size_t i = 0; i < nc; i++) {
		struct hwp_symbol_info info;

		if (!ch[i].n || !ch[i].f[0].line)
			continue;
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(bin, ch[i].addr), &info) == 0);
		cmp++;
		if (info.file && !strcmp(base_name(info.file), base_name(ch[i].f[0].file)) &&
		    info.line == ch[i].f[0].line)
			same++;
		else
			fprintf(stderr, "0x%" PRIx64 ": %s:%u, addr2line %s:%u\n", ch[i].addr,
				info.file ? base_name(info.file) : "?", info.line,
				base_name(ch[i].f[0].file), ch[i].f[0].line);
	}
	CHECK(cmp > 5 && same == cmp);
	printf("# DWARF 5 file 0: %zu/%zu instructions' file:line as addr2line\n", same, cmp);
	free(ch);
	free(addrs);
	free(ins);
	hwp_symbolizer__delete(s);
}

/* ------------------------------------------------------------ C++ / Rust names */

/* c++filt -p NAME: the name without parameters (binutils' own demangler
   run; it differs from perf's only in std:: abbreviations, which the
   fixture avoids). Malloc'd, NULL when c++filt is missing. */
static char *cxxfilt_p(const char *name)
{
	char *out = capture("c++filt -p '%s' 2>/dev/null", name);

	if (out)
		out[strcspn(out, "\n")] = 0;
	if (out && !out[0]) {
		free(out);
		out = NULL;
	}
	return out;
}

static bool is_alias(const struct osym *v, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && v[j].value == v[i].value && !strcmp(v[j].type, "FUNC"))
			return true;
	return false;
}

static void test_cxx_demangle(void)
{
	struct hwp_symbolizer *s, *raw;
	struct osym *dem, *mang;
	size_t n, nm;
	int mod, mraw, checked = 0, filt = 0;
	bool saw_box = false, saw_scale = false, saw_total = false, saw_alias = false;

	NEED_FIXTURES();
	if (!have_gxx)
		SKIP("g++ not found");
	s = new_symbolizer(NULL, NULL);
	{
		struct hwp_symbolizer_opts o = { .sz = sizeof(o), .no_demangle = true,
						 .debug_dirs = "/nonexistent" };
		raw = hwp_symbolizer__new(&o);
	}
	mod = hwp_symbolizer__module(s, f_cxx, NULL, 0);
	mraw = hwp_symbolizer__module(raw, f_cxx, NULL, 0);
	n = readelf_syms(f_cxx, true, false, &dem);
	nm = readelf_syms(f_cxx, false, false, &mang);
	CHECK(n == nm && n > 10);
	for (size_t i = 0; i < n && i < nm; i++) {
		struct hwp_symbol_info info, rinfo;
		uint64_t off;

		if (strcmp(dem[i].type, "FUNC") || !dem[i].size || strncmp(mang[i].name, "_Z", 2))
			continue;
		off = off_of(f_cxx, dem[i].value);
		CHECK(hwp_symbolizer__lookup(s, mod, off, &info) == 0);
		CHECK(hwp_symbolizer__lookup(raw, mraw, off, &rinfo) == 0);
		if (is_alias(mang, nm, i)) {
			/* perf compares the names it prints: "h<int, int, int>" (16)
			   beats "abc::defg" (9), though its mangled name is shorter;
			   mangled names compare as themselves */
			saw_alias = true;
			CHECK(info.symbol && !strcmp(info.symbol, "h<int, int, int>"));
			CHECK(info.symbol_raw && !strcmp(info.symbol_raw, "_Z1hIiiiEll"));
			CHECK(info.symbol_full && !strcmp(info.symbol_full, "long h<int, int, int>(long)"));
			CHECK(rinfo.symbol && !strcmp(rinfo.symbol, "_ZN3abc4defgEl"));
			continue;
		}
		/* the full form is the signature, as readelf -C prints it */
		if (!info.symbol_full || strcmp(info.symbol_full, dem[i].name))
			fprintf(stderr, "C++ 0x%" PRIx64 ": got %s, readelf -C says %s\n",
				dem[i].value, info.symbol_full ? info.symbol_full : "(null)", dem[i].name);
		CHECK(info.symbol_full && !strcmp(info.symbol_full, dem[i].name));
		/* the name is perf's default: no parameters, as c++filt -p */
		{
			char *p = cxxfilt_p(mang[i].name);

			if (p) {
				if (!info.symbol || strcmp(info.symbol, p))
					fprintf(stderr, "C++ 0x%" PRIx64 ": got %s, c++filt -p says %s\n",
						dem[i].value, info.symbol ? info.symbol : "(null)", p);
				CHECK(info.symbol && !strcmp(info.symbol, p));
				filt++;
			}
			free(p);
		}
		CHECK(rinfo.symbol && !strcmp(rinfo.symbol, mang[i].name));
		CHECK(rinfo.symbol_full && !strcmp(rinfo.symbol_full, mang[i].name));
		CHECK(info.symbol_raw && !strcmp(info.symbol_raw, mang[i].name));
		/* g++ may clone it: "... const [clone .isra.0]"; the name drops that */
		saw_box |= info.symbol && !strcmp(info.symbol, "outer::inner::Box<long>::get") &&
			   !strncmp(info.symbol_full, "outer::inner::Box<long>::get(int) const", 39);
		saw_scale |= info.symbol_full &&
			     !strcmp(info.symbol_full, "long outer::inner::scale<long, 3>(long)") &&
			     !strcmp(info.symbol, "outer::inner::scale<long, 3>");
		saw_total |= info.symbol_full &&
			     !strcmp(info.symbol_full, "outer::total(outer::inner::Box<long> const&, int)") &&
			     !strcmp(info.symbol, "outer::total");
		checked++;
	}
	CHECK(checked >= 3);
	CHECK(saw_box && saw_total && saw_alias);
	printf("# C++ names: %d checked against readelf -C, %d against c++filt -p\n", checked, filt);
	/* inline frames carry demangled linkage names, as addr2line -C -i prints */
	{
		struct oinsn *ins;
		size_t ni = objdump_insns(f_cxx, &ins), na = 0, nc, agree = 0, deep = 0, cmp = 0;
		uint64_t *addrs = calloc(ni ? ni : 1, sizeof(*addrs));
		struct ochain *ch;

		for (size_t i = 0; i < ni; i++)
			if (!strcmp(ins[i].func, "main"))
				addrs[na++] = ins[i].addr;
		nc = addr2line_chains(f_cxx, addrs, na, true, &ch);
		CHECK(nc == na && na > 5);
		for (size_t i = 0; i < nc; i++) {
			struct hwp_symbol_info info;

			CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_cxx, ch[i].addr), &info) == 0);
			if (!ch[i].n || !ch[i].f[0].line)
				continue;
			bool ok = same_chain(&info, &ch[i], true);

			CHECK(ok);
			agree += ok;
			cmp++;
			if (info.n_inline >= 2 &&
			    !strcmp(info.inlines[0].function_full, "outer::inner::Acc<long>::add(long)") &&
			    !strcmp(info.inlines[0].function, "outer::inner::Acc<long>::add") &&
			    !strcmp(info.inlines[1].function_full, "long outer::inner::run<long>(int)") &&
			    !strcmp(info.inlines[1].function, "outer::inner::run<long>") &&
			    info.line == marker_line(cxx_cc, "CXX_ADD") &&
			    info.inlines[0].line == marker_line(cxx_cc, "CXX_CALL_ADD") &&
			    info.inlines[1].line == marker_line(cxx_cc, "CXX_CALL_RUN"))
				deep++;
		}
		CHECK(deep > 0);
		printf("# C++ inline chains: %zu/%zu as %s -C -i, %zu in Acc<long>::add <- run<long> <- main\n",
		       agree, cmp, a2l, deep);
		free(ch);
		free(addrs);
		free(ins);
	}
	if (!saw_scale)
		printf("# scale<long,3> was inlined or cloned by this g++\n");
	free(dem);
	free(mang);
	hwp_symbolizer__delete(s);
	hwp_symbolizer__delete(raw);
}

/*
 * Both forms. The names are what perf 6.1 printed for these symbols in
 * emulated recordings (`perf report -b -F symbol_from,symbol_to`), the full
 * forms what `perf report -v` printed (tests/e2e/realworld_vs_perf.sh checks
 * the same against perf on a whole program).
 */
static void test_demangle_strings(void)
{
	static const struct {
		const char *in, *name, *full;
	} cases[] = {
		{ "_ZN5outer5inner3BoxIlE3getEi", "outer::inner::Box<long>::get",
		  "outer::inner::Box<long>::get(int)" },
		{ "_ZNK5outer5inner6Square4areaEi", "outer::inner::Square::area",
		  "outer::inner::Square::area(int) const" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		/* clones: the name drops the suffix */
		{ "_ZN12_GLOBAL__N_13mixElli.constprop.0", "(anonymous namespace)::mix",
		  "(anonymous namespace)::mix(long, long, int) [clone .constprop.0]" },
		{ "_Z1fv.cold", "f", "f() [clone .cold]" },
		/* operators, lambdas, std:: abbreviations, thunks */
		{ "_ZdlPvm", "operator delete", "operator delete(void*, unsigned long)" },
		{ "_ZZ4mainENKUlllE_clEll", "main::{lambda(long, long)#1}::operator()",
		  "main::{lambda(long, long)#1}::operator()(long, long) const" },
		{ "_ZNSolsEl", "std::ostream::operator<<", "std::ostream::operator<<(long)" },
		{ "_ZThn8_N1D1fEv", "non-virtual thunk to D::f()", "non-virtual thunk to D::f()" },
		/* PLT entries keep "@plt"; a version suffix goes with the name */
		{ "_Znwm@plt", "operator new@plt", "operator new(unsigned long)@plt" },
		{ "_ZNSt8_Rb_treeIiiE5eraseEv@@GLIBCXX_3.4", "std::_Rb_tree<int, int>::erase",
		  "std::_Rb_tree<int, int>::erase()@@GLIBCXX_3.4" },
		/* Rust legacy: hash dropped, escapes decoded; v0 */
		{ "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE", "core::fmt::Formatter::pad",
		  "core::fmt::Formatter::pad" },
		{ "_ZN58_$LT$alloc..string..String$u20$as$u20$core..fmt..Debug$GT$3fmt17h9f8e7d6c5b4a3f2eE",
		  "<alloc::string::String as core::fmt::Debug>::fmt",
		  "<alloc::string::String as core::fmt::Debug>::fmt" },
		{ "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h5f9c3c2a1b0d9e8fE",
		  "std::rt::lang_start::{{closure}}", "std::rt::lang_start::{{closure}}" },
		{ "_ZN4core3ptr13drop_in_place17h0011223344556677E.llvm.123456",
		  "core::ptr::drop_in_place", "core::ptr::drop_in_place" },
		{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example", "mycrate::example" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = hwp__demangle(cases[i].in, HWP_DEMANGLE_NAME);
		char *f = hwp__demangle(cases[i].in, HWP_DEMANGLE_FULL);

		if (!n || strcmp(n, cases[i].name) || !f || strcmp(f, cases[i].full))
			fprintf(stderr, "demangle %s: got %s | %s, want %s | %s\n", cases[i].in,
				n ? n : "(null)", f ? f : "(null)", cases[i].name, cases[i].full);
		CHECK(n && !strcmp(n, cases[i].name));
		CHECK(f && !strcmp(f, cases[i].full));
		free(n);
		free(f);
	}
	for (int form = HWP_DEMANGLE_NAME; form <= HWP_DEMANGLE_FULL; form++) {
		CHECK(hwp__demangle("main", form) == NULL);
		CHECK(hwp__demangle("main.cold", form) == NULL);
		CHECK(hwp__demangle("_Zgarbage!", form) == NULL);
		CHECK(hwp__demangle("", form) == NULL);
		CHECK(hwp__demangle(NULL, form) == NULL);
	}
}

/* ------------------------------------------------------------ finding files */

/* Stripped binary + its debug file in a build-id cache (debug_dirs). */
static void test_stripped_with_buildid_cache(void)
{
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info, ref;
	struct osym *v;
	size_t n, dyn_n;
	int mod, checked = 0;
	struct hwp_symbolizer *r;
	int rmod;

	NEED_FIXTURES();
	{ /* the stripped copy really has no .symtab */
		struct osym *dv;

		dyn_n = readelf_syms(f_stripped, false, false, &dv);
		CHECK(dyn_n == 0);
		free(dv);
	}
	s = new_symbolizer(NULL, f_cache);
	r = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, f_stripped, bid_pie, (uint8_t)bid_pie_n);
	rmod = hwp_symbolizer__module(r, f_pie, bid_pie, (uint8_t)bid_pie_n);
	n = readelf_syms(f_pie, false, false, &v);
	for (size_t i = 0; i < n; i++) {
		uint64_t off;

		if (strcmp(v[i].type, "FUNC") || !v[i].size)
			continue;
		off = off_of(f_pie, v[i].value + v[i].size / 2);
		CHECK(hwp_symbolizer__lookup(s, mod, off, &info) == 0);
		CHECK(hwp_symbolizer__lookup(r, rmod, off, &ref) == 0);
		CHECK(info.symbol && ref.symbol && !strcmp(info.symbol, ref.symbol));
		CHECK(info.line == ref.line && info.n_inline == ref.n_inline);
		CHECK((!info.file && !ref.file) ||
		      (info.file && ref.file && !strcmp(info.file, ref.file)));
		checked++;
	}
	CHECK(checked >= 5);
	CHECK(!strcmp(hwp_symbolizer__module_file(s, mod), f_stripped));
	CHECK(hwp_symbolizer__missing(s, NULL, 0, NULL) == 0);
	free(v);
	hwp_symbolizer__delete(s);
	hwp_symbolizer__delete(r);
}

/* Stripped, no build-id, debug file found through .gnu_debuglink (.debug/NAME). */
static void test_debuglink(void)
{
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	struct osym *v;
	size_t n;
	int mod;
	uint8_t id[20];

	NEED_FIXTURES();
	CHECK(read_build_id(f_linkonly, id) == 0);
	s = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, f_linkonly, NULL, 0);
	n = readelf_syms(f_pie, false, false, &v);
	const struct osym *w = osym_named(v, n, "work");
	CHECK(w != NULL);
	if (w) {
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_pie, w->value), &info) == 0);
		CHECK(info.symbol && !strcmp(info.symbol, "work"));
		CHECK(info.file && !strcmp(base_name(info.file), "inl.c"));
	}
	CHECK(hwp_symbolizer__missing(s, NULL, 0, NULL) == 0);
	free(v);
	hwp_symbolizer__delete(s);
}

/* Only the debug file exists (binary gone): it stands in for the binary, its
   clobbered segments rebuilt. Offsets as the real binary has them. */
static void test_debug_file_only(void)
{
	struct hwp_symbolizer *s;
	struct osym *v;
	size_t n;
	int mod, checked = 0;

	NEED_FIXTURES();
	s = new_symbolizer(NULL, f_cache);
	mod = hwp_symbolizer__module(s, "/nonexistent/inl_pie", bid_pie, (uint8_t)bid_pie_n);
	n = readelf_syms(f_pie, false, false, &v);
	for (size_t i = 0; i < n; i++) {
		struct hwp_symbol_info info;
		uint64_t a;

		if (strcmp(v[i].type, "FUNC") || !v[i].size)
			continue;
		a = v[i].value + v[i].size / 2;
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_pie, a), &info) == 0);
		CHECK_EQ_U64(info.vaddr, a);
		CHECK(info.symbol != NULL);
		checked++;
	}
	CHECK(checked >= 5);
	CHECK(hwp_symbolizer__module_file(s, mod) == NULL); /* no binary to decode */
	free(v);
	hwp_symbolizer__delete(s);
}

/* dwz: DIEs shared by several binaries moved to a common file named by
   .gnu_debugaltlink; here only a build-id cache has it. The results must be
   those of the binary before dwz. */
static void test_dwz_altlink(void)
{
	char src[512], a[512], b[512], orig[512], common[512], cache[512], hex[41];
	uint8_t id[20];
	size_t idn, total = 0, same = 0, inl = 0;
	struct hwp_symbolizer *s, *r;
	struct osym *v;
	size_t nv;
	int ma, mo;

	NEED_FIXTURES();
	if (system("dwz --version >/dev/null 2>&1") != 0)
		SKIP("dwz not found (apt-get install dwz)");
	path_of(src, sizeof(src), "inl.c");
	path_of(a, sizeof(a), "dwz_a");
	path_of(b, sizeof(b), "dwz_b");
	path_of(orig, sizeof(orig), "dwz_a.orig");
	path_of(common, sizeof(common), "dwz_common");
	path_of(cache, sizeof(cache), "dwzcache");
	if (sh("gcc -g -O2 -DVARIANT=1 '%s' -o '%s' && gcc -g -O2 -DVARIANT=2 '%s' -o '%s' && "
	       "cp '%s' '%s' && dwz -m '%s' -M /nonexistent/dwz_common '%s' '%s'",
	       src, a, src, b, a, orig, common, a, b))
		SKIP("dwz could not process the fixtures");
	idn = read_build_id(common, id);
	CHECK(idn > 0);
	hex_of(id, idn, hex);
	CHECK(sh("mkdir -p '%s/.build-id/%.2s' && cp '%s' '%s/.build-id/%.2s/%s.debug'", cache, hex,
		 common, cache, hex, hex + 2) == 0);
	s = new_symbolizer(NULL, cache);
	r = new_symbolizer(NULL, NULL);
	ma = hwp_symbolizer__module(s, a, NULL, 0);
	mo = hwp_symbolizer__module(r, orig, NULL, 0);
	nv = readelf_syms(orig, false, false, &v);
	for (size_t i = 0; i < nv; i++) {
		if (strcmp(v[i].type, "FUNC") || !v[i].size)
			continue;
		for (uint64_t x = v[i].value; x < v[i].value + v[i].size; x++) {
			struct hwp_symbol_info p, q;
			bool ok;

			CHECK(hwp_symbolizer__lookup(s, ma, off_of(orig, x), &p) == 0);
			CHECK(hwp_symbolizer__lookup(r, mo, off_of(orig, x), &q) == 0);
			ok = p.symbol && q.symbol && !strcmp(p.symbol, q.symbol) &&
			     p.line == q.line && p.n_inline == q.n_inline;
			for (size_t k = 0; ok && k < p.n_inline; k++)
				ok = p.inlines[k].function && q.inlines[k].function &&
				     !strcmp(p.inlines[k].function, q.inlines[k].function) &&
				     p.inlines[k].line == q.inlines[k].line;
			total++;
			same += ok;
			inl += p.n_inline > 0;
		}
	}
	CHECK(total > 100 && same == total && inl > 0);
	printf("# dwz: %zu/%zu addresses as before dwz (%zu in inlined code)\n", same, total, inl);
	free(v);
	hwp_symbolizer__delete(s);
	hwp_symbolizer__delete(r);
}

/* --symfs: the binary under DIR at its recorded path. */
static void test_symfs(void)
{
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	char root[600];
	struct osym *v;
	size_t n;
	int mod;

	NEED_FIXTURES();
	snprintf(root, sizeof(root), "%s/root", tmp);
	CHECK(sh("mkdir -p '%s/opt/app/bin' && cp '%s' '%s/opt/app/bin/inl'", root, f_nopie,
		 root) == 0);
	s = new_symbolizer(root, NULL);
	mod = hwp_symbolizer__module(s, "/opt/app/bin/inl", NULL, 0);
	CHECK(!strcmp(hwp_symbolizer__module_short_name(s, mod), "inl"));
	CHECK(!strcmp(hwp_symbolizer__module_name(s, mod), "/opt/app/bin/inl"));
	n = readelf_syms(f_nopie, false, false, &v);
	const struct osym *w = osym_named(v, n, "main");
	CHECK(w != NULL);
	if (w) {
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_nopie, w->value + 2), &info) == 0);
		CHECK(info.symbol && !strcmp(info.symbol, "main"));
		CHECK_EQ_U64(info.sym_offset, 2);
	}
	free(v);
	hwp_symbolizer__delete(s);
}

/* perf's cache layout: DIR/.build-id/xx/rest -> ../../PATH/<build-id>/ holding "elf". */
static void test_perf_buildid_cache(void)
{
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	char pc[600], hex[41];
	struct osym *v;
	size_t n;
	int mod;

	NEED_FIXTURES();
	hex_of(bid_pie, bid_pie_n, hex);
	snprintf(pc, sizeof(pc), "%s/pcache", tmp);
	CHECK(sh("mkdir -p '%s/gone/app/%s' '%s/.build-id/%.2s' && cp '%s' '%s/gone/app/%s/elf' && "
		 "ln -sfn '../../gone/app/%s' '%s/.build-id/%.2s/%s'",
		 pc, hex, pc, hex, f_pie, pc, hex, hex, pc, hex, hex + 2) == 0);
	s = new_symbolizer(NULL, pc);
	mod = hwp_symbolizer__module(s, "/gone/app", bid_pie, (uint8_t)bid_pie_n);
	n = readelf_syms(f_pie, false, false, &v);
	const struct osym *w = osym_named(v, n, "work");
	CHECK(w != NULL);
	if (w) {
		CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_pie, w->value), &info) == 0);
		CHECK(info.symbol && !strcmp(info.symbol, "work"));
		CHECK(info.file != NULL); /* the cached binary has its DWARF */
	}
	CHECK(hwp_symbolizer__module_file(s, mod) != NULL);
	CHECK(strstr(hwp_symbolizer__module_file(s, mod), "/.build-id/") != NULL);
	free(v);
	hwp_symbolizer__delete(s);
}

/* A file at the path with another build-id is stale: not used, reported. */
static void test_stale_build_id(void)
{
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	struct hwp_missing_module mm[4];
	const char *names[4];
	char line[2048], hex[41];
	bool only_dbg = true;
	int mod;

	NEED_FIXTURES();
	CHECK(memcmp(bid_pie, bid_other, bid_pie_n) != 0);
	s = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, f_other, bid_pie, (uint8_t)bid_pie_n);
	CHECK(hwp_symbolizer__lookup(s, mod, 0x1000, &info) == -ESTALE);
	CHECK(info.symbol == NULL);
	CHECK(strstr(hwp_errmsg(), "inl_other") != NULL);
	CHECK(hwp_symbolizer__missing(s, names, 4, &only_dbg) == 1);
	CHECK(!strcmp(names[0], f_other) && !only_dbg);
	CHECK(hwp_symbolizer__missing_modules(s, mm, 4) == 1);
	hex_of(bid_pie, bid_pie_n, hex);
	CHECK(mm[0].kind == HWP_MISSING_STALE && mm[0].module == mod);
	CHECK(mm[0].build_id && !strcmp(mm[0].build_id, hex));
	hex_of(bid_other, bid_other_n, hex);
	CHECK(strstr(mm[0].reason, hex) != NULL); /* says which build-id the file has */
	CHECK(hwp_symbolizer__missing_warning(s, line, sizeof(line)) > 0);
	CHECK(strstr(line, f_other) && strstr(line, "perf buildid-cache -a"));
	CHECK(strstr(line, "symfs root") && !strstr(line, "--")); /* library messages name no flag */
	printf("# warning: %s\n", line);
	/* the same file without a recorded build-id cannot be checked: used */
	mod = hwp_symbolizer__module(s, f_other, NULL, 0);
	CHECK(hwp_symbolizer__lookup(s, mod, off_of(f_other, 0x1100), &info) == 0);
	hwp_symbolizer__delete(s);
}

static void test_missing_binary(void)
{
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	struct hwp_missing_module mm[4];
	char line[2048];
	static const uint8_t id[20] = { 0xab, 0xcd, 0xef, 1, 2, 3 };
	int a, b, c;

	s = new_symbolizer(NULL, "/nonexistent");
	a = hwp_symbolizer__module(s, "/nonexistent/libgone.so", id, 20);
	b = hwp_symbolizer__module(s, "//anon", NULL, 0);
	c = hwp_symbolizer__module(s, "/nonexistent/unused", NULL, 0);
	CHECK(a >= 0 && b >= 0 && c >= 0 && a != b && b != c);
	CHECK(hwp_symbolizer__lookup(s, a, 0x1234, &info) == -ENOENT);
	CHECK(hwp_symbolizer__lookup(s, a, 0x1234, &info) == -ENOENT); /* again, same answer */
	CHECK(strstr(hwp_errmsg(), "libgone.so") != NULL);
	CHECK(hwp_symbolizer__lookup(s, b, 0x1234, &info) == -ENOENT);
	/* anonymous memory and modules never looked up are not reported */
	CHECK(hwp_symbolizer__missing_modules(s, mm, 4) == 1);
	CHECK(mm[0].kind == HWP_MISSING_BINARY && mm[0].module == a);
	CHECK(strstr(mm[0].reason, "abcdef010203") != NULL); /* perf's zero padding dropped */
	CHECK(hwp_symbolizer__missing_warning(s, line, sizeof(line)) > 0);
	CHECK(strstr(line, "/nonexistent/libgone.so"));
	CHECK(strstr(line, "~/.debug/.build-id/ab/cdef010203"));
	CHECK(strchr(line, '\n') == NULL);
	/* a truncated buffer still says how long the line is */
	{
		char small[16];
		size_t full = hwp_symbolizer__missing_warning(s, small, sizeof(small));

		CHECK(full == strlen(line) && strlen(small) == 15);
	}
	hwp_symbolizer__delete(s);
}

/* Module identity: build-id first (zero padding ignored), else path. */
static void test_module_identity(void)
{
	struct hwp_symbolizer *s = new_symbolizer(NULL, NULL);
	uint8_t id8[20] = { 0x57, 0x2a, 0xc7, 0x24, 0x87, 0xae, 0x19, 0x66 };
	uint8_t id2[20] = { 1, 2, 3 };
	int a = hwp_symbolizer__module(s, "/a/libx.so", id8, 8);
	int b = hwp_symbolizer__module(s, "/chroot/a/libx.so", id8, 20); /* perf's padding */
	int c = hwp_symbolizer__module(s, "/a/libx.so", id2, 20);
	int d = hwp_symbolizer__module(s, "/a/liby.so", NULL, 0);
	int e = hwp_symbolizer__module(s, "/a/liby.so", NULL, 0);
	int k = hwp_symbolizer__kernel_module(s);
	int k2 = hwp_symbolizer__module(s, "[kernel.kallsyms]", NULL, 0);
	struct hwp_symbolizer_stats st = { .sz = sizeof(st) };

	CHECK(a >= 0 && a == b);
	CHECK(c >= 0 && c != a);
	CHECK(d >= 0 && d == e && d != a && d != c);
	CHECK(k >= 0 && k == k2 && k != d);
	CHECK(!strcmp(hwp_symbolizer__module_short_name(s, k), "[kernel.kallsyms]"));
	CHECK(!strcmp(hwp_symbolizer__module_short_name(s, a), "libx.so"));
	CHECK(hwp_symbolizer__module_name(s, 999) == NULL);
	CHECK(hwp_symbolizer__module(s, NULL, NULL, 0) == -EINVAL);
	/* a real 20-byte id may end in zero bytes; 4+ zero bytes are perf's padding */
	{
		uint8_t z[20] = { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0 };
		uint8_t zero[20] = { 0 };

		CHECK(hwp__build_id_canonical_size(z, 20) == 20);
		CHECK(hwp__build_id_canonical_size(id8, 20) == 8);
		CHECK(hwp__build_id_canonical_size(id8, 8) == 8);
		CHECK(hwp__build_id_canonical_size(id2, 20) == 8);
		CHECK(hwp__build_id_canonical_size(zero, 20) == 0);
		CHECK(hwp__build_id_equal(id8, 8, id8, 20));
		CHECK(!hwp__build_id_equal(id8, 8, id2, 20));
		CHECK(!hwp__build_id_equal(zero, 0, zero, 0));
		/* all-zero id: same as none, identified by path */
		CHECK(hwp_symbolizer__module(s, "/a/liby.so", zero, 20) == d);
	}
	hwp_symbolizer__stats(s, &st);
	CHECK(st.modules == 4 && st.modules_loaded == 0);
	hwp_symbolizer__delete(s);
	hwp_symbolizer__delete(NULL);
}

/* A module found without DWARF: symbols, no lines, reported as such. */
static void test_no_debug_info(void)
{
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	struct hwp_missing_module mm[2];
	const char *names[2];
	char line[1024];
	bool only = false;
	int mod;

	NEED_FIXTURES();
	s = new_symbolizer(NULL, NULL); /* no cache: the stripped copy alone */
	mod = hwp_symbolizer__module(s, f_stripped, NULL, 0);
	CHECK(hwp_symbolizer__lookup(s, mod, 0x10, &info) == 0);
	CHECK(info.file == NULL && info.line == 0);
	CHECK(hwp_symbolizer__missing(s, names, 2, &only) == 1 && only);
	CHECK(hwp_symbolizer__missing_modules(s, mm, 2) == 1);
	CHECK(mm[0].kind == HWP_MISSING_DEBUG_INFO);
	CHECK(hwp_symbolizer__missing_warning(s, line, sizeof(line)) > 0);
	CHECK(strstr(line, "debug info") && strstr(line, "inl_stripped"));
	printf("# warning: %s\n", line);
	/* for output without source lines: nothing to say of this module ... */
	CHECK(hwp_symbolizer__missing_symbols_warning(s, line, sizeof(line)) == 0 && line[0] == 0);
	/* ... and with a module whose binary is gone, only that one is named */
	int gone = hwp_symbolizer__module(s, "/nonexistent/libgone.so", NULL, 0);
	CHECK(hwp_symbolizer__lookup(s, gone, 0x10, &info) == -ENOENT);
	CHECK(hwp_symbolizer__missing_symbols_warning(s, line, sizeof(line)) > 0);
	CHECK(strstr(line, "libgone.so") && !strstr(line, "inl_stripped") && !strstr(line, "source lines"));
	CHECK(hwp_symbolizer__missing_warning(s, line, sizeof(line)) > 0);
	CHECK(strstr(line, "libgone.so") && strstr(line, "inl_stripped") && strstr(line, "source lines"));
	hwp_symbolizer__delete(s);
}

/* ------------------------------------------------------------ kernel */

static void test_kallsyms_file(void)
{
	struct hwp_symbolizer_opts o = { .sz = sizeof(o), .debug_dirs = "/nonexistent" };
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	char p[512];
	int k;

	if (!tmp[0]) {
		snprintf(tmp, sizeof(tmp), "/tmp/hwp_symtest.XXXXXX");
		CHECK(mkdtemp(tmp) != NULL);
	}
	write_file("kallsyms", "ffffffff81000000 T _text\n"
			       "ffffffff81000000 T startup_64\n"
			       "ffffffff81000100 t secondary_startup\n"
			       "ffffffff81000200 W weak_thing\n"
			       "ffffffff81000300 r some_rodata\n"
			       "ffffffff81000400 T do_syscall_64\n"
			       "ffffffff81000500 T memcpy\n"
			       "ffffffff81000500 T __memcpy\n"
			       "ffffffff81000500 T __pi_memcpy\n"
			       "ffffffff82000000 D jiffies\n"
			       "ffffffffc0000000 t nft_do_chain\t[nf_tables]\n"
			       "ffffffffc0000800 T nft_other\t[nf_tables]\n");
	path_of(p, sizeof(p), "kallsyms");
	o.kallsyms = p;
	s = hwp_symbolizer__new(&o);
	k = hwp_symbolizer__kernel_module(s);
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffff81000010, &info) == 0);
	CHECK(info.symbol && !strcmp(info.symbol, "startup_64")); /* over _text: fewer '_' */
	CHECK_EQ_U64(info.sym_offset, 0x10);
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffff81000250, &info) == 0);
	CHECK(info.symbol && !strcmp(info.symbol, "weak_thing")); /* 'r' is not kept */
	CHECK_EQ_U64(info.sym_offset, 0x50);
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffff81000420, &info) == 0);
	CHECK(info.symbol && !strcmp(info.symbol, "do_syscall_64"));
	/* aliases: perf fixes the ends first, so the last of them (the only
	   one with a size) wins over fewer underscores (Linux 6.18's kallsyms;
	   perf 6.1 reports __pi_memcpy) */
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffff81000510, &info) == 0);
	CHECK(info.symbol && !strcmp(info.symbol, "__pi_memcpy"));
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffffc0000010, &info) == 0);
	CHECK(info.symbol && !strcmp(info.symbol, "nft_do_chain"));
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffffc0000900, &info) == 0);
	CHECK(info.symbol && !strcmp(info.symbol, "nft_other"));
	CHECK(info.file == NULL && info.vaddr == 0xffffffffc0000900);
	/* the last kernel symbol before the modules does not reach them */
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffff90000000, &info) == 0);
	CHECK(info.symbol == NULL);
	/* a kernel module's map: named as perf names it, its symbols the
	   kallsyms ones tagged with its name, no other module's */
	int nft = hwp__symbolizer_kernel_module_file(s, "/lib/modules/6.1.0/kernel/net/nf_tables.ko.xz", NULL, 0, 0);
	int other = hwp__symbolizer_kernel_module_file(s, "/lib/modules/6.1.0/kernel/drivers/x/snd-hda-core.ko",
						       NULL, 0, 0);
	CHECK(nft >= 0 && other >= 0 && nft != k && other != nft);
	CHECK(hwp__symbolizer_kernel_module_file(s, "/lib/modules/6.1.0/kernel/net/nf_tables.ko.xz", NULL, 0, 0) ==
	      nft);
	CHECK(!strcmp(hwp_symbolizer__module_short_name(s, nft), "[nf_tables]"));
	CHECK(!strcmp(hwp_symbolizer__module_short_name(s, other), "[snd_hda_core]"));
	CHECK(hwp_symbolizer__lookup(s, nft, 0xffffffffc0000010, &info) == 0);
	CHECK(info.symbol && !strcmp(info.symbol, "nft_do_chain") && info.sym_offset == 0x10);
	CHECK(hwp_symbolizer__lookup(s, other, 0xffffffffc0000010, &info) == 0);
	CHECK(info.symbol == NULL);
	/* an address printed as perf prints it (its map_ip): a module's from
	   its load address, the first registration's (0: unknown, absolute) */
	int loaded_at = hwp__symbolizer_kernel_module_file(s, "/lib/modules/6.1.0/kernel/y/ext.ko", NULL, 0,
							  0xffffffffc0400000);
	CHECK(hwp__symbolizer_kernel_module_file(s, "/lib/modules/6.1.0/kernel/y/ext.ko", NULL, 0,
						 0xffffffffc0800000) == loaded_at);
	CHECK_EQ_U64(hwp__symbolizer_perf_address(s, loaded_at, 0xffffffffc0400123), 0x123);
	CHECK_EQ_U64(hwp__symbolizer_perf_address(s, nft, 0xffffffffc0000010), 0xffffffffc0000010);
	CHECK_EQ_U64(hwp__symbolizer_perf_address(s, k, 0xffffffff81000420), 0xffffffff81000420);
	/* a user binary of the same path is another module */
	CHECK(hwp_symbolizer__module(s, "/lib/modules/6.1.0/kernel/net/nf_tables.ko.xz", NULL, 0) != nft);
	CHECK(hwp_symbolizer__missing(s, NULL, 0, NULL) == 0);
	hwp_symbolizer__delete(s);

	/* kptr_restrict: every address 0 -> unresolved, with the reason */
	write_file("kallsyms0", "0000000000000000 T _text\n0000000000000000 T do_syscall_64\n");
	path_of(p, sizeof(p), "kallsyms0");
	o.kallsyms = p;
	s = hwp_symbolizer__new(&o);
	k = hwp_symbolizer__kernel_module(s);
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffff81000010, &info) == -EACCES);
	{
		struct hwp_missing_module mm[2];
		char line[1024];

		CHECK(hwp_symbolizer__missing_modules(s, mm, 2) == 1);
		CHECK(mm[0].kind == HWP_MISSING_KERNEL && strstr(mm[0].reason, "kptr_restrict"));
		CHECK(hwp_symbolizer__missing_warning(s, line, sizeof(line)) > 0);
		CHECK(strstr(line, "[kernel.kallsyms]") && strstr(line, "kptr_restrict"));
		printf("# warning: %s\n", line);
	}
	hwp_symbolizer__delete(s);

	/* no_kernel: unresolved, not reported */
	o.kallsyms = NULL;
	o.no_kernel = true;
	s = hwp_symbolizer__new(&o);
	k = hwp_symbolizer__kernel_module(s);
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffff81000010, &info) == -ENOTSUP);
	CHECK(hwp_symbolizer__missing(s, NULL, 0, NULL) == 0);
	hwp_symbolizer__delete(s);
}

/* The kallsyms saved in perf's build-id cache, chosen by the kernel build-id. */
static void test_kallsyms_cache(void)
{
	struct hwp_symbolizer_opts o = { .sz = sizeof(o) };
	struct hwp_symbolizer *s;
	struct hwp_symbol_info info;
	static const uint8_t kid[20] = { 0xd4, 0xeb, 0xa2, 0x4d, 0xde, 0x8e, 0xc6, 0x3c, 0xbf, 0x51,
					 0x9d, 0xd4, 0x16, 0xb4, 0x00, 0x8f, 0x1c, 0xf4, 0x9f, 0x49 };
	char dir[600];
	int k;

	snprintf(dir, sizeof(dir), "%s/kcache/[kernel.kallsyms]/d4eba24dde8ec63cbf519dd416b4008f1cf49f49", tmp);
	CHECK(sh("mkdir -p '%s' && printf 'ffffffff81000000 T _stext\\nffffffff81000800 T cached_fn\\n' > '%s/kallsyms'",
		 dir, dir) == 0);
	snprintf(dir, sizeof(dir), "%s/kcache", tmp);
	o.debug_dirs = dir;
	s = hwp_symbolizer__new(&o);
	k = hwp_symbolizer__kernel_module(s);
	CHECK(hwp_symbolizer__set_kernel_build_id(s, kid, 20) == 0);
	CHECK(hwp_symbolizer__lookup(s, k, 0xffffffff81000810, &info) == 0);
	CHECK(info.symbol && !strcmp(info.symbol, "cached_fn"));
	CHECK(hwp_symbolizer__set_kernel_build_id(s, kid, 20) < 0); /* too late */
	hwp_symbolizer__delete(s);

	/* a build-id that is neither cached nor the running kernel's: stale */
	{
		uint8_t other[20] = { 1, 2, 3, 4 };
		uint8_t running[20];
		FILE *f = fopen("/sys/kernel/notes", "rb");

		if (f)
			fclose(f);
		s = hwp_symbolizer__new(&o);
		k = hwp_symbolizer__kernel_module(s);
		CHECK(hwp_symbolizer__set_kernel_build_id(s, other, 20) == 0);
		int rc = hwp_symbolizer__lookup(s, k, 0xffffffff81000810, &info);
		(void)running;
		if (f) {
			CHECK(rc == -ESTALE);
			CHECK(strstr(hwp_errmsg(), "another kernel") != NULL);
		} else {
			CHECK(rc == 0 || rc < 0);
		}
		hwp_symbolizer__delete(s);
	}
}

/* The real /proc/kallsyms, when this machine lets us read it. */
static void test_proc_kallsyms(void)
{
	struct hwp_symbolizer_opts o = { .sz = sizeof(o), .debug_dirs = "/nonexistent" };
	struct hwp_symbolizer *s = hwp_symbolizer__new(&o);
	struct hwp_symbol_info info;
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256] = "";
	uint64_t addr = 0;
	char type;
	int k = hwp_symbolizer__kernel_module(s), rc;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) == 3 && addr &&
		    type == 'T' && !strchr(line, '['))
			break;
	if (f)
		fclose(f);
	rc = hwp_symbolizer__lookup(s, k, addr ? addr : 0xffffffff81000000, &info);
	if (!addr) {
		CHECK(rc == -EACCES || rc == -ENOENT);
		hwp_symbolizer__delete(s);
		SKIP("/proc/kallsyms addresses hidden here (%s)", hwp_errmsg());
	}
	CHECK(rc == 0);
	CHECK(info.symbol != NULL && info.sym_offset == 0);
	hwp_symbolizer__delete(s);
}

/* ------------------------------------------------------------ cache, speed */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This test binary itself (-g -O2, libhwprof inside): many distinct
   addresses, resolved once, then from the cache. */
static void test_cache_and_speed(void)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct hwp_symbolizer *s;
	struct oseg segs[16];
	size_t nseg, N = 20000, with_sym = 0, with_line = 0;
	uint64_t start = 0, size = 0;
	struct hwp_symbolizer_stats st = { .sz = sizeof(st) };
	double t0, t1, t2;
	int mod;

	if (len <= 0)
		SKIP("no /proc/self/exe");
	self[len] = 0;
	if (!have_tools)
		SKIP("readelf not found");
	nseg = readelf_loads(self, segs, 16);
	for (size_t i = 0; i < nseg; i++)
		if (segs[i].x) {
			start = segs[i].off;
			size = segs[i].filesz;
		}
	CHECK(size > 0);
	if (!size)
		return;
	s = new_symbolizer(NULL, NULL);
	mod = hwp_symbolizer__module(s, self, NULL, 0);
	{ /* load the module first: its cost is per module, not per address */
		struct hwp_symbol_info info;

		CHECK(hwp_symbolizer__lookup(s, mod, start, &info) == 0);
	}
	t0 = now();
	for (size_t i = 1; i <= N; i++) {
		struct hwp_symbol_info info;
		uint64_t off = start + (size * i) / (N + 1);

		CHECK(hwp_symbolizer__lookup(s, mod, off, &info) == 0);
		with_sym += info.symbol != NULL;
		with_line += info.line != 0;
	}
	t1 = now();
	for (size_t i = 1; i <= N; i++) {
		struct hwp_symbol_info info;

		CHECK(hwp_symbolizer__lookup(s, mod, start + (size * i) / (N + 1), &info) == 0);
	}
	t2 = now();
	hwp_symbolizer__stats(s, &st);
	CHECK(st.resolved == N + 1 || st.resolved == N); /* the first probe may repeat */
	CHECK(st.cache_hits >= N);
	CHECK(with_sym > N * 9 / 10);
	CHECK(with_line > N / 2);
	printf("# speed: %zu distinct addresses (symbol+line+inlines) in %.3f s = %.0f/s; "
	       "cached: %.0f/s; %zu with symbol, %zu with line\n",
	       N, t1 - t0, N / (t1 - t0), N / (t2 - t1 > 0 ? t2 - t1 : 1e-9), with_sym, with_line);
	CHECK(N / (t1 - t0) > 2000);
	hwp_symbolizer__delete(s);
}

int main(void)
{
	build_fixtures();
	if (!have_gcc)
		printf("# gcc not found: fixture tests skip\n");
	RUN(test_module_identity);
	RUN(test_demangle_strings);
	RUN(test_symbols_pie);
	RUN(test_symbols_nopie);
	RUN(test_symbol_binding);
	RUN(test_plt_symbols);
	RUN(test_plt_layouts);
	RUN(test_symbol_versions);
	RUN(test_lines_pie);
	RUN(test_lines_nopie);
	RUN(test_lines_variants);
	RUN(test_inline_chains);
	RUN(test_self_against_addr2line);
	RUN(test_cxx_demangle);
	RUN(test_dwarf5_file0);
	RUN(test_stripped_with_buildid_cache);
	RUN(test_debuglink);
	RUN(test_debug_file_only);
	RUN(test_dwz_altlink);
	RUN(test_symfs);
	RUN(test_perf_buildid_cache);
	RUN(test_stale_build_id);
	RUN(test_missing_binary);
	RUN(test_no_debug_info);
	RUN(test_kallsyms_file);
	RUN(test_kallsyms_cache);
	RUN(test_proc_kallsyms);
	RUN(test_cache_and_speed);
	if (tmp[0] && !getenv("HWPROF_KEEP_TMP"))
		sh("rm -rf '%s'", tmp);
	TL_EXIT();
}
