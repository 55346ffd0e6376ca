/* SPDX-License-Identifier: MIT */
/*
 * The instruction cache (src/decode/code_cache) against the disassemblers
 * binutils and LLVM ship: every instruction of the executable sections of
 * fixtures compiled here (x86-64 with gcc, PIE and non-PIE with CET; AArch64
 * with clang + lld when present) must come out of one range walk with
 * objdump's address, length, class (classified here from objdump's mnemonic
 * text) and direct target (objdump's, turned into a file offset through
 * readelf's program headers). Then the walk's errors and the cache's reuse.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/code_cache.h"
#include "decode/insn_starts.h"
#include "hwprof/symbolize.h"
#include "testlib.h"

static char dir[256];

struct ref {
	uint64_t vaddr, target_vaddr;
	unsigned cls;
	bool has_target;
	int section;
};

struct seg {
	uint64_t off, vaddr, filesz;
};

static struct ref *refs;
static size_t n_refs;
static struct seg segs[16];
static size_t n_segs;

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static bool vaddr_to_off(uint64_t v, uint64_t *off)
{
	for (size_t i = 0; i < n_segs; i++)
		if (v >= segs[i].vaddr && v - segs[i].vaddr < segs[i].filesz) {
			*off = segs[i].off + (v - segs[i].vaddr);
			return true;
		}
	return false;
}

/* PT_LOAD rows of readelf -lW: Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align */
static int read_segments(const char *bin)
{
	char cmd[512], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -lW %s", bin);
	if (!(p = popen(cmd, "r")))
		return -1;
	n_segs = 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long off, va, pa, fs;
		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va, &pa, &fs) == 4 && n_segs < 16)
			segs[n_segs++] = (struct seg){ off, va, fs };
	}
	return pclose(p) == 0 && n_segs ? 0 : -1;
}

static bool is_prefix(const char *w)
{
	static const char *const pre[] = { "bnd", "notrack", "repz", "rep", "repnz", "repe", "repne", "lock",
					   "data16", "cs", "ds", "ss", "es", "fs", "gs", "addr32", NULL };
	for (size_t i = 0; pre[i]; i++)
		if (!strcmp(w, pre[i]))
			return true;
	return !strncmp(w, "rex", 3);
}

/* The class of objdump's MNEMONIC (x86-64, AT&T) or llvm-objdump's (AArch64). */
static unsigned classify(bool a64, const char *mn, const char *ops)
{
	static const char *const sys_x86[] = { "syscall", "sysenter", "sysexit", "sysret", "sysretq", "int",
					       "int3", "int1", "icebp", "into", "iret", "iretd", "iretq",
					       "ljmp", "lcall", NULL };
	static const char *const sys_a64[] = { "svc", "hvc", "smc", "eret", "brk", NULL };
	const char *const *sys = a64 ? sys_a64 : sys_x86;

	if (!strcmp(mn, "(bad)"))
		return HWP_INSN_BAD;
	for (size_t i = 0; sys[i]; i++)
		if (!strcmp(mn, sys[i]))
			return HWP_INSN_SYSCALL;
	if (a64) {
		if (!strncmp(mn, "b.", 2) || !strcmp(mn, "cbz") || !strcmp(mn, "cbnz") || !strcmp(mn, "tbz") ||
		    !strcmp(mn, "tbnz"))
			return HWP_INSN_COND;
		if (!strcmp(mn, "b"))
			return HWP_INSN_JUMP;
		if (!strcmp(mn, "bl"))
			return HWP_INSN_CALL;
		if (!strcmp(mn, "br"))
			return HWP_INSN_IND_JUMP;
		if (!strcmp(mn, "blr"))
			return HWP_INSN_IND_CALL;
		if (!strcmp(mn, "ret"))
			return HWP_INSN_RET;
		return HWP_INSN_OTHER;
	}
	if (!strcmp(mn, "ret") || !strcmp(mn, "retq") || !strcmp(mn, "lret") || !strcmp(mn, "lretq") ||
	    !strcmp(mn, "retf"))
		return HWP_INSN_RET;
	if (!strcmp(mn, "jmp") || !strcmp(mn, "jmpq"))
		return *ops == '*' ? HWP_INSN_IND_JUMP : HWP_INSN_JUMP;
	if (!strcmp(mn, "call") || !strcmp(mn, "callq"))
		return *ops == '*' ? HWP_INSN_IND_CALL : HWP_INSN_CALL;
	if (mn[0] == 'j' || !strncmp(mn, "loop", 4))
		return HWP_INSN_COND;
	return HWP_INSN_OTHER;
}

/* The disassembler's direct target: x86 objdump prints it bare ("jne 1140
   <f+0x20>"), llvm-objdump as the first 0x number that is no immediate
   ('#') ("tbz w8, #0x3, 0x2102f0 <sw+0xc>"). */
static bool parse_target(bool a64, const char *ops, uint64_t *t)
{
	if (!a64)
		return sscanf(ops, "%" SCNx64, t) == 1 && isxdigit((unsigned char)*ops);
	const char *best = NULL;
	for (const char *p = ops; !best && (p = strstr(p, "0x")); p += 2)
		if (p == ops || p[-1] != '#')
			best = p;
	return best && sscanf(best, "0x%" SCNx64, t) == 1;
}

/* Reads DISASM's output (objdump -d style) into refs. */
static int read_disasm(const char *cmd, bool a64)
{
	char line[1024];
	FILE *p = popen(cmd, "r");
	int section = -1;

	if (!p)
		return -1;
	n_refs = 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long va;
		int used = 0;

		if (!strncmp(line, "Disassembly of section", 22)) {
			section++;
			continue;
		}
		if (sscanf(line, " %llx:%n", &va, &used) != 1 || !used || line[used] == 0)
			continue;
		char *s = line + used, words[4][64] = { "" };
		int nw = 0;
		/* mnemonic after any prefixes; the rest are operands */
		while (nw < 4) {
			while (*s == ' ' || *s == '\t')
				s++;
			int len = (int)strcspn(s, " \t\n");
			if (!len)
				break;
			snprintf(words[nw], sizeof(words[nw]), "%.*s", len, s);
			s += len;
			if (a64 || !is_prefix(words[nw]))
				break;
			nw++;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		s[strcspn(s, "\n")] = 0;
		if (!words[nw][0])
			continue;
		struct ref *r = realloc(refs, (n_refs + 1) * sizeof(*r));
		if (!r)
			break;
		refs = r;
		r = &refs[n_refs++];
		memset(r, 0, sizeof(*r));
		r->vaddr = va;
		r->section = section;
		r->cls = classify(a64, words[nw], s);
		if (r->cls == HWP_INSN_COND || r->cls == HWP_INSN_JUMP || r->cls == HWP_INSN_CALL)
			r->has_target = parse_target(a64, s, &r->target_vaddr);
	}
	return pclose(p) == 0 && n_refs ? 0 : -1;
}

struct walk {
	struct hwp__insn *v;
	size_t n, cap;
};

static int collect(void *ctx, const struct hwp__insn *in)
{
	struct walk *w = ctx;

	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		w->v = realloc(w->v, w->cap * sizeof(*w->v));
		if (!w->v)
			return -ENOMEM;
	}
	w->v[w->n++] = *in;
	return 0;
}

/* Walks every section of BIN in one range each; compares with refs. */
static void compare(const char *bin, const char *what)
{
	struct hwp_symbolizer_opts so = { .sz = sizeof(so) };
	struct hwp_symbolizer *sym = hwp_symbolizer__new(&so);
	struct hwp__code_cache *c = sym ? hwp__code_cache_new(sym) : NULL;
	int mod = sym ? hwp_symbolizer__module(sym, bin, NULL, 0) : -1;
	size_t checked = 0, classes[HWP_INSN_CLASS_NR] = { 0 };

	CHECK(c && mod >= 0);
	if (!c || mod < 0)
		goto out;
	for (size_t i = 0; i < n_refs;) {
		size_t j = i;
		while (j + 1 < n_refs && refs[j + 1].section == refs[i].section)
			j++;
		uint64_t start = 0, end = 0;
		struct walk w = { 0 };
		CHECK(vaddr_to_off(refs[i].vaddr, &start) && vaddr_to_off(refs[j].vaddr, &end));
		int rc = hwp__code_cache_range(c, mod, start, end, collect, &w);
		if (rc) {
			fprintf(stderr, "%s: walk %#" PRIx64 "-%#" PRIx64 ": %d (%s)\n", what, start, end, rc, hwp_errmsg());
			tl_case_failed = 1;
		}
		CHECK_EQ_U64(w.n, j - i + 1);
		for (size_t k = 0; k < w.n && i + k <= j; k++) {
			const struct ref *r = &refs[i + k];
			const struct hwp__insn *in = &w.v[k];
			uint64_t off = 0, toff = 0;

			vaddr_to_off(r->vaddr, &off);
			bool ok = in->offset == off && in->cls == r->cls;
			if (i + k < j)
				ok = ok && in->len == refs[i + k + 1].vaddr - r->vaddr;
			if (r->has_target)
				ok = ok && vaddr_to_off(r->target_vaddr, &toff) && in->has_target && in->target == toff;
			else
				ok = ok && !in->has_target;
			if (!ok) {
				fprintf(stderr, "%s: insn at %#" PRIx64 ": cache %s len %u target %d/%#" PRIx64
					", disassembler %s target %d/%#" PRIx64 "\n", what, r->vaddr,
					hwp__insn_class_name(in->cls), in->len, in->has_target, in->target,
					hwp__insn_class_name(r->cls), r->has_target, toff);
				tl_case_failed = 1;
				break;
			}
			classes[in->cls]++;
			checked++;
		}
		free(w.v);
		i = j + 1;
	}
	/* the fixtures hold every class but BAD */
	for (unsigned k = 0; k < HWP_INSN_BAD; k++)
		if (!classes[k] && !(k == HWP_INSN_SYSCALL && strstr(what, "plt"))) {
			fprintf(stderr, "%s: no %s instruction seen\n", what, hwp__insn_class_name(k));
			tl_case_failed = 1;
		}
	printf("# %s: %zu instructions compared\n", what, checked);
out:
	hwp__code_cache_delete(c);
	hwp_symbolizer__delete(sym);
}

static void x86_case(const char *name, const char *flags)
{
	char bin[512], cmd[2048];

	if (run("gcc --version >/dev/null 2>&1 && objdump --version >/dev/null 2>&1 && readelf --version >/dev/null 2>&1"))
		SKIP("gcc, objdump or readelf missing");
	snprintf(bin, sizeof(bin), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "gcc -O2 %s -o %s %s/tests/fixtures/decode_classes.c 2>/dev/null", flags, bin,
		 getenv("HWPROF_ROOT") ? getenv("HWPROF_ROOT") : ".");
	CHECK(run(cmd) == 0);
	CHECK(read_segments(bin) == 0);
	snprintf(cmd, sizeof(cmd),
		 "objdump -d -z -w --no-show-raw-insn -j .init -j .plt -j .plt.got -j .plt.sec -j .text -j .fini %s",
		 bin);
	CHECK(read_disasm(cmd, false) == 0);
	if (!tl_case_failed)
		compare(bin, name);
}

static void test_x86_pie(void)
{
	x86_case("pie", "-fPIE -pie");
}

static void test_x86_nopie_cet(void)
{
	x86_case("nopie_cet", "-no-pie -fcf-protection=full -Wl,-z,ibtplt");
}

static void test_aarch64(void)
{
	char bin[512], src[512], cmd[2048];
	FILE *f;

	if (run("clang --version >/dev/null 2>&1 && ld.lld --version >/dev/null 2>&1 && "
		"llvm-objdump-19 --version >/dev/null 2>&1 && readelf --version >/dev/null 2>&1"))
		SKIP("clang, ld.lld or llvm-objdump-19 missing");
	snprintf(src, sizeof(src), "%s/a64.c", dir);
	snprintf(bin, sizeof(bin), "%s/a64", dir);
	f = fopen(src, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	/* freestanding: no AArch64 libc here */
	fputs("typedef int (*fn)(int);\n"
	      "__attribute__((noinline)) static int f1(int x) { return x + 1; }\n"
	      "__attribute__((noinline)) static int f2(int x) { return x * 3; }\n"
	      "fn volatile tab[2] = { f1, f2 };\n"
	      "__attribute__((noinline)) int sw(int v) { switch (v) { case 0: return f1(v) * 3; case 1: return f2(v) + 7;\n"
	      "  case 2: return v * 11; case 3: return v ^ 0x55; case 4: return v - 9; case 5: return v << 3;\n"
	      "  case 6: return v / 5; case 7: return v % 13; default: return -1; } }\n"
	      "__attribute__((noinline)) int loop(int n) { int a = 0; for (int i = 0; i < n; i++) {\n"
	      "  a += (i & 1) ? tab[i & 1](i) : sw(i & 7); if (a & (1 << 20)) a >>= 1; } return a; }\n"
	      "__attribute__((noinline)) int tail(int v) { if (v & 8) return 0; return sw(v + 1); }\n"
	      "void _start(void) { register long x8 __asm__(\"x8\") = 93; register long x0 __asm__(\"x0\") = loop(10) + tail(3);\n"
	      "  __asm__ volatile(\"svc #0\" :: \"r\"(x8), \"r\"(x0)); for (;;); }\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "clang --target=aarch64-linux-gnu -O2 -nostdlib -static -fuse-ld=lld -o %s %s 2>/dev/null",
		 bin, src);
	if (run(cmd))
		SKIP("clang cannot link an AArch64 binary here");
	CHECK(read_segments(bin) == 0);
	snprintf(cmd, sizeof(cmd), "llvm-objdump-19 -d --no-show-raw-insn %s", bin);
	CHECK(read_disasm(cmd, true) == 0);
	if (!tl_case_failed)
		compare(bin, "aarch64");
}

/* Programs against libraries: a PIE and a non-PIE program are programs;
   libc.so.6 (an interpreter and a soname: it runs, but it is a library)
   and a plain shared library are not. */
static void test_is_program(void)
{
	char cmd[1024], path[512];
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	const struct {
		const char *name, *flags;
		bool program;
	} cases[] = { { "prog_pie", "-fPIE -pie", true }, { "prog_nopie", "-no-pie", true },
		      { "lib.so", "-fPIC -shared", false } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].name);
		snprintf(cmd, sizeof(cmd), "echo 'int f(int x){return x+1;} int main(void){return f(0);}' | "
			 "gcc -O1 %s -x c -o %s - 2>/dev/null", cases[i].flags, path);
		CHECK(run(cmd) == 0);
		struct hwp__code_file *f = hwp__code_file_open(path);
		CHECK(f != NULL);
		if (f)
			CHECK(hwp__code_file_is_program(f) == cases[i].program);
		hwp__code_file_close(f);
	}
	if (access(libc, R_OK))
		SKIP("no %s", libc);
	struct hwp__code_file *f = hwp__code_file_open(libc);
	CHECK(f != NULL);
	if (f)
		CHECK(!hwp__code_file_is_program(f));
	hwp__code_file_close(f);
}

static int count_only(void *ctx, const struct hwp__insn *in)
{
	(void)in;
	++*(size_t *)ctx;
	return 0;
}

static int stop_at_second(void *ctx, const struct hwp__insn *in)
{
	(void)in;
	return ++*(size_t *)ctx == 2 ? 42 : 0;
}

/* Errors, reuse, single instructions (on the PIE of test_x86_pie). */
static void test_walk_errors_and_reuse(void)
{
	char bin[512];
	struct hwp_symbolizer_opts so = { .sz = sizeof(so) };

	snprintf(bin, sizeof(bin), "%s/pie", dir);
	if (access(bin, R_OK))
		SKIP("no x86-64 fixture");
	CHECK(read_segments(bin) == 0);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "objdump -d -z -w --no-show-raw-insn -j .text %s", bin);
	CHECK(read_disasm(cmd, false) == 0);
	if (tl_case_failed || n_refs < 8)
		return;
	struct hwp_symbolizer *sym = hwp_symbolizer__new(&so);
	struct hwp__code_cache *c = hwp__code_cache_new(sym);
	int mod = hwp_symbolizer__module(sym, bin, NULL, 0);
	int missing = hwp_symbolizer__module(sym, "/nonexistent/hwprof-test-binary", NULL, 0);
	uint64_t a = 0, b = 0, mid = 0;
	size_t n = 0;

	vaddr_to_off(refs[0].vaddr, &a);
	vaddr_to_off(refs[7].vaddr, &b);
	CHECK_EQ_U64(hwp__code_cache_range(c, mod, a, b, count_only, &n), 0);
	CHECK_EQ_U64(n, 8);
	size_t decoded = hwp__code_cache_size(c);
	CHECK_EQ_U64(decoded, 8);
	/* the same and a shorter range: nothing decoded again */
	n = 0;
	CHECK_EQ_U64(hwp__code_cache_range(c, mod, a, b, count_only, &n), 0);
	vaddr_to_off(refs[2].vaddr, &a);
	CHECK_EQ_U64(hwp__code_cache_range(c, mod, a, b, NULL, NULL), 0);
	CHECK_EQ_U64(hwp__code_cache_size(c), decoded);
	/* the callback stops the walk with its value */
	n = 0;
	CHECK_EQ_U64(hwp__code_cache_range(c, mod, a, b, stop_at_second, &n), 42);
	/* an end inside an instruction (the first multi-byte one) */
	for (size_t i = 2; i < 7; i++)
		if (refs[i + 1].vaddr - refs[i].vaddr > 1) {
			vaddr_to_off(refs[i].vaddr + 1, &mid);
			CHECK_EQ_U64(hwp__code_cache_range(c, mod, a, mid, NULL, NULL), (uint64_t)-EILSEQ);
			break;
		}
	CHECK_EQ_U64(hwp__code_cache_range(c, mod, b, a, NULL, NULL), (uint64_t)-EILSEQ);
	/* outside every executable segment: the ELF header */
	CHECK_EQ_U64(hwp__code_cache_range(c, mod, 0, 4, NULL, NULL), (uint64_t)-ERANGE);
	CHECK(strstr(hwp_errmsg(), "not in an executable segment") != NULL);
	/* no file */
	CHECK_EQ_U64(hwp__code_cache_range(c, missing, 0, 0, NULL, NULL), (uint64_t)-ENOENT);
	CHECK(hwp__code_cache_module_ok(c, missing) == -ENOENT);
	CHECK(hwp__code_cache_module_ok(c, mod) == 0);
	/* one instruction, with its direct target as objdump has it */
	for (size_t i = 0; i < n_refs; i++)
		if (refs[i].cls == HWP_INSN_CALL && refs[i].has_target) {
			struct hwp__insn in;
			uint64_t off = 0, t = 0;
			vaddr_to_off(refs[i].vaddr, &off);
			vaddr_to_off(refs[i].target_vaddr, &t);
			CHECK_EQ_U64(hwp__code_cache_insn(c, mod, off, &in), 0);
			CHECK(in.cls == HWP_INSN_CALL && in.has_target && in.target == t);
			break;
		}
	hwp__code_cache_delete(c);
	hwp_symbolizer__delete(sym);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hwprof-test-code-cache-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_x86_pie);
	RUN(test_x86_nopie_cet);
	RUN(test_aarch64);
	RUN(test_walk_errors_and_reuse);
	RUN(test_is_program);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
	}
	free(refs);
	TL_EXIT();
}
