/* The unwinder (src/unwind/): perf's user registers as DWARF registers,
   against the kernel's perf_regs.h bit order and the psABIs' DWARF
   numbers (x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 = 0-15, the
   return address 16; AArch64: x0-x30 = 0-30, sp 31), bounds on what a
   sample holds; and this test's own stack, captured as perf would copy it,
   unwound back through the calls that led there (their return addresses,
   from __builtin_return_address), also through a frame found from rbx
   (glibc's lazy-binding trampoline's CFI) from a leaf that leaves rbx
   unspecified. */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwprof/maps.h"
#include "hwprof/perf_abi.h"
#include "testlib.h"
#include "unwind/unwind.h"
#include "unwind/unwind_internal.h"
#include "unwind/unwind_regs.h"

/* the words of MASK's registers, register N's value 0x1000 + N */
static size_t fill(uint64_t mask, uint8_t *out)
{
	size_t n = 0;

	for (unsigned bit = 0; bit < 64; bit++)
		if (mask >> bit & 1) {
			uint64_t v = 0x1000 + bit;
			memcpy(out + 8 * n++, &v, 8);
		}
	return 8 * n;
}

static void x86_64_registers(void)
{
	/* perf's PERF_REGS_MASK on x86-64: bits 0-23 but DS ES FS GS (12-15) */
	uint64_t mask = ((1ull << 24) - 1) & ~(0xfull << 12);
	uint8_t data[64 * 8];
	size_t size = fill(mask, data);
	struct hwp__dwarf_regs r;

	CHECK(hwp__unwind_regs(EM_X86_64, HWP__REGS_ABI_64, mask, data, size, &r) == 0);
	/* perf_regs.h: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 */
	static const unsigned perf_bit_of_dwarf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
	for (unsigned d = 0; d < 17; d++) {
		CHECK(r.have >> d & 1);
		CHECK_EQ_U64(r.val[d], 0x1000 + perf_bit_of_dwarf[d]);
	}
	CHECK_EQ_U64(r.nregs, 17);
	CHECK_EQ_U64(r.pc, 0x1000 + 8);
	CHECK_EQ_U64(r.sp, 0x1000 + 7);
	/* flags and segment registers have no DWARF number here */
	CHECK(hwp__unwind_perf_reg_to_dwarf(EM_X86_64, 9) < 0 && hwp__unwind_perf_reg_to_dwarf(EM_X86_64, 10) < 0);
}

static void aarch64_registers(void)
{
	/* x0-x29, lr, sp, pc: bits 0-32 */
	uint64_t mask = (1ull << 33) - 1;
	uint8_t data[64 * 8];
	size_t size = fill(mask, data);
	struct hwp__dwarf_regs r;

	CHECK(hwp__unwind_regs(EM_AARCH64, HWP__REGS_ABI_64, mask, data, size, &r) == 0);
	for (unsigned d = 0; d < 32; d++)
		CHECK_EQ_U64(r.val[d], 0x1000 + d);
	CHECK_EQ_U64(r.have, 0xffffffffu);
	CHECK_EQ_U64(r.nregs, 32);
	CHECK_EQ_U64(r.pc, 0x1000 + 32); /* PC: no DWARF number, the frame's pc */
	CHECK_EQ_U64(r.sp, 0x1000 + 31);
	CHECK(hwp__unwind_perf_reg_to_dwarf(EM_AARCH64, 32) == -2);
	/* perf's minimal mask for dwarf (pc, sp, fp, lr): only those set */
	uint64_t few = (1ull << 32) | (1ull << 31) | (1ull << 30) | (1ull << 29);
	size = fill(few, data);
	CHECK(hwp__unwind_regs(EM_AARCH64, HWP__REGS_ABI_64, few, data, size, &r) == 0);
	CHECK_EQ_U64(r.have, (1u << 29) | (1u << 30) | (1u << 31));
	CHECK_EQ_U64(r.val[29], 0x1000 + 29);
	CHECK_EQ_U64(r.val[30], 0x1000 + 30);
}

static void what_a_sample_lacks(void)
{
	uint64_t mask = (1ull << 7) | (1ull << 8);
	uint8_t data[16] = { 0 };
	struct hwp__dwarf_regs r;

	CHECK(hwp__unwind_regs(EM_X86_64, HWP__REGS_ABI_NONE, mask, data, 16, &r) == -ENODATA);
	CHECK(hwp__unwind_regs(EM_X86_64, HWP__REGS_ABI_32, mask, data, 16, &r) == -ENOTSUP);
	CHECK(hwp__unwind_regs(EM_386, HWP__REGS_ABI_64, mask, data, 16, &r) == -ENOTSUP);
	/* fewer words than the mask has bits */
	CHECK(hwp__unwind_regs(EM_X86_64, HWP__REGS_ABI_64, mask, data, 8, &r) == -EINVAL);
	/* no sp, no pc */
	CHECK(hwp__unwind_regs(EM_X86_64, HWP__REGS_ABI_64, 1ull << 8, data, 16, &r) == -EINVAL);
	CHECK(hwp__unwind_regs(EM_X86_64, HWP__REGS_ABI_64, 1ull << 7, data, 16, &r) == -EINVAL);
	CHECK(hwp__unwind_regs(EM_AARCH64, HWP__REGS_ABI_64, 1ull << 31, data, 16, &r) == -EINVAL);
}

#if defined(__x86_64__)
#define STACK 8192

struct snap {
	uint64_t ip, sp, bp;
	size_t len; /* of the copy, at most STACK */
	uint8_t stack[STACK];
	uint64_t ret[3]; /* return addresses of capture, level1, level2 */
};

static volatile int depth_sink;

/* How many bytes of this thread's stack lie above HERE, at most STACK: a
   copy stops at the stack's end, as perf's does (with a small environment
   the end is within STACK of this test's frames, and reading on faults). */
static size_t stack_room(uint64_t here)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr))
		return 0;
	int r = pthread_attr_getstack(&attr, &lo, &size);
	pthread_attr_destroy(&attr);
	uint64_t top = (uint64_t)(uintptr_t)lo + size;
	if (r || here >= top)
		return 0;
	return top - here < STACK ? (size_t)(top - here) & ~(size_t)7 : STACK;
}

/* LEN bytes of the raw stack above sp, redzones between locals included
   (what the kernel copies knows nothing of ASan's) */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint8_t *out, uint64_t sp, size_t len)
{
	const volatile uint64_t *p = (const volatile uint64_t *)(uintptr_t)sp;

	for (size_t i = 0; i < len / 8; i++) {
		uint64_t w = p[i];
		for (size_t b = 0; b < 8; b++)
			out[8 * i + b] = (uint8_t)(w >> (8 * b));
	}
}

/* this point's pc, sp and rbp (what perf's REGS_USER would hold) and the
   stack above sp, as perf copies it */
__attribute__((noinline)) static void capture(struct snap *s)
{
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(s->ip), "=r"(s->sp), "=r"(s->bp));
	s->len = stack_room(s->sp);
	copy_stack(s->stack, s->sp, s->len);
	s->ret[0] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	depth_sink++;
}

__attribute__((noinline)) static void level1(struct snap *s)
{
	capture(s);
	s->ret[1] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	depth_sink++;
}

__attribute__((noinline)) static void level2(struct snap *s)
{
	level1(s);
	s->ret[2] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	depth_sink++;
}

/* the executable's code mappings, from /proc/self/maps */
static int map_self(struct hwp_machine *m, const char *exe)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], path[PATH_MAX], perm[8];
	unsigned long long lo, hi, off;
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perm, &off, path) == 5 &&
		    !strcmp(path, exe) && strchr(perm, 'x')) {
			struct hwp_mmap_event e = { .pid = getpid(), .tid = getpid(), .cpumode = HWP_MISC_USER,
						    .start = lo, .len = hi - lo, .pgoff = off, .prot = 5, .flags = 2,
						    .filename = exe };
			n += hwp_machine__mmap(m, &e) == 0;
		}
	fclose(f);
	return n;
}

/* Address spaces holding this process's executable as it is mapped, or
   NULL with *WHY saying what is missing. */
static struct hwp_machine *self_machine(const char **why)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct hwp_machine *m;

	*why = "no /proc/self/exe";
	if (len <= 0)
		return NULL;
	exe[len] = 0;
	*why = "no mapping of the executable in /proc/self/maps";
	if (!(m = hwp_machine__new()) || !map_self(m, exe)) {
		hwp_machine__delete(m);
		return NULL;
	}
	return m;
}

/* A sample of this process at IP with the user registers WORDS (MASK,
   ascending) and LEN bytes of STACK copied above sp. */
static struct hwp_sample stack_sample(uint64_t ip, const uint64_t *words, size_t nwords, uint64_t mask,
				      const uint8_t *stack, size_t len)
{
	struct hwp_sample smp = {
		.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_REGS_USER | HWP_SAMPLE_STACK_USER,
		.cpumode = HWP_MISC_USER, .ip = ip, .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
		.regs_user_abi = HWP__REGS_ABI_64, .regs_user_mask = mask,
		.regs_user = { (const uint8_t *)words, nwords * sizeof(*words) },
		.stack_user = { stack, len }, .stack_user_dyn_size = len,
	};

	return smp;
}

static void own_stack_unwound(void)
{
	static struct snap s;
	const char *why;

	level2(&s);
	struct hwp_machine *m = self_machine(&why);
	if (!m)
		SKIP("%s", why);
	struct hwp_thread *th = hwp_machine__findnew_thread(m, getpid(), getpid());
	/* REGS_USER with BP SP IP (bits 6, 7, 8), ascending */
	uint64_t words[3] = { s.bp, s.sp, s.ip };
	struct hwp_sample smp = stack_sample(s.ip, words, 3, 7ull << 6, s.stack, s.len);
	for (int no_rules = 0; no_rules < 2; no_rules++) {
		struct hwp__unwind_env env = { .e_machine = EM_X86_64, .no_rules = no_rules };
		struct hwp__unwinder *u = hwp__unwinder_new(&env);
		uint64_t ips[32];
		size_t n = 0;

		CHECK(u != NULL);
		int r = u ? hwp__unwind(u, &smp, th, ips, 32, &n) : -1;
		/* the pc, then each return address minus one (the call) */
		CHECK(r >= 0 && n >= 4);
		if (n >= 4) {
			CHECK_EQ_U64(ips[0], s.ip);
			CHECK_EQ_U64(ips[1], s.ret[0] - 1);
			CHECK_EQ_U64(ips[2], s.ret[1] - 1);
			CHECK_EQ_U64(ips[3], s.ret[2] - 1);
		}
		/* a stack copy cut short: the unwinding says so */
		smp.stack_user.size = smp.stack_user_dyn_size = 64;
		r = u ? hwp__unwind(u, &smp, th, ips, 32, &n) : -1;
		CHECK(r == HWP__UNWIND_STACK_SHORT || (r == HWP__UNWIND_DONE && n == 32));
		smp.stack_user.size = smp.stack_user_dyn_size = s.len;
		/* no copy at all */
		smp.stack_user_dyn_size = 0;
		CHECK(u && hwp__unwind(u, &smp, th, ips, 32, &n) == HWP__UNWIND_NO_STACK && n == 0);
		smp.stack_user_dyn_size = s.len;
		hwp__unwinder_delete(u);
	}
	hwp_machine__delete(m);
}

/* ---- a frame found from rbx, as glibc's lazy-binding trampoline's ---- */

/* what hwp_test_tramp_leaf() saw: its pc, sp, rbx and rbp, its own
   return address and the trampoline's (and tramp_level()'s), then LEN
   bytes of the stack above sp (LEN set by the caller) */
struct tramp_snap {
	uint64_t ip, sp, bx, bp, ret0, ret1, ret2, len;
	uint8_t stack[STACK];
};

void hwp_test_tramp(struct tramp_snap *s);
_Static_assert(offsetof(struct tramp_snap, len) == 56 && offsetof(struct tramp_snap, stack) == 64,
	       "hwp_test_tramp_leaf's offsets");

/* hwp_test_tramp() realigns the stack and finds its frame from rbx (CFA =
   rbx + 16), as _dl_runtime_resolve_xsavec does; the leaf it calls never
   mentions rbx in its CFI, as _dl_fixup's first instructions do not: the
   trampoline's rbx is then the leaf's own (unspecified: same value), which
   elfutils' x86-64 defaults mark undefined. The leaf records the registers
   at its second instruction and copies the stack (rep movsb: no frame of
   its own). Offsets are struct tramp_snap's. */
__asm__(".text\n"
	".globl hwp_test_tramp\n"
	".hidden hwp_test_tramp\n"
	".type hwp_test_tramp, @function\n"
	"hwp_test_tramp:\n"
	".cfi_startproc\n"
	"	mov (%rsp), %rax\n"
	"	mov %rax, 40(%rdi)\n"
	"	push %rbx\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rbx, 0\n"
	"	mov %rsp, %rbx\n"
	".cfi_def_cfa_register %rbx\n"
	"	and $-64, %rsp\n"
	"	sub $192, %rsp\n"
	"	call hwp_test_tramp_leaf\n"
	"	mov %rbx, %rsp\n"
	".cfi_def_cfa_register %rsp\n"
	"	pop %rbx\n"
	".cfi_adjust_cfa_offset -8\n"
	".cfi_restore %rbx\n"
	"	ret\n"
	".cfi_endproc\n"
	".size hwp_test_tramp, .-hwp_test_tramp\n"
	".type hwp_test_tramp_leaf, @function\n"
	"hwp_test_tramp_leaf:\n"
	".cfi_startproc\n"
	"	lea 0(%rip), %rax\n"
	"	mov %rax, 0(%rdi)\n"
	"	mov %rsp, 8(%rdi)\n"
	"	mov %rbx, 16(%rdi)\n"
	"	mov %rbp, 24(%rdi)\n"
	"	mov (%rsp), %rax\n"
	"	mov %rax, 32(%rdi)\n"
	"	mov %rsp, %rsi\n"
	"	mov 56(%rdi), %rcx\n"
	"	lea 64(%rdi), %rdi\n"
	"	rep movsb\n"
	"	ret\n"
	".cfi_endproc\n"
	".size hwp_test_tramp_leaf, .-hwp_test_tramp_leaf\n");

__attribute__((noinline)) static void tramp_level(struct tramp_snap *s)
{
	/* the leaf's sp lies below this frame: as many bytes above it fit */
	s->len = stack_room((uint64_t)(uintptr_t)__builtin_frame_address(0));
	hwp_test_tramp(s);
	s->ret2 = (uint64_t)(uintptr_t)__builtin_return_address(0);
	depth_sink++;
}

/* a sample in the leaf: the cached rules and libdwfl alone both go on
   through the trampoline to its caller and that one's (perf 6.1's
   libunwind does), rbx kept (tramp_level()'s frame may be found from
   rbp: a build with frame pointers) */
static void rbx_frame_unwound(void)
{
	static struct tramp_snap s;
	const char *why;

	tramp_level(&s);
	struct hwp_machine *m = self_machine(&why);
	if (!m)
		SKIP("%s", why);
	struct hwp_thread *th = hwp_machine__findnew_thread(m, getpid(), getpid());
	/* REGS_USER with BX BP SP IP (bits 1, 6, 7, 8), ascending */
	uint64_t words[4] = { s.bx, s.bp, s.sp, s.ip };
	struct hwp_sample smp = stack_sample(s.ip, words, 4, (1ull << 1) | (7ull << 6), s.stack, s.len);
	for (int no_rules = 0; no_rules < 2; no_rules++) {
		struct hwp__unwind_env env = { .e_machine = EM_X86_64, .no_rules = no_rules };
		struct hwp__unwinder *u = hwp__unwinder_new(&env);
		uint64_t ips[32];
		size_t n = 0;

		CHECK(u != NULL);
		int r = u ? hwp__unwind(u, &smp, th, ips, 32, &n) : -1;
		CHECK(r >= 0 && n >= 4);
		if (n >= 4) {
			CHECK_EQ_U64(ips[0], s.ip);
			CHECK_EQ_U64(ips[1], s.ret0 - 1); /* in the trampoline */
			CHECK_EQ_U64(ips[2], s.ret1 - 1); /* its caller, found from rbx */
			CHECK_EQ_U64(ips[3], s.ret2 - 1);
		}
		hwp__unwinder_delete(u);
	}
	hwp_machine__delete(m);
}

/* ---- an executable (ET_EXEC) mapped twice, many address spaces ---- */

#if defined(__SANITIZE_ADDRESS__)
/* ASan's malloc ignores M_PERTURB: its own fill of freed memory (libdw is
   not instrumented, a read of memory it freed is caught only this way) */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "max_free_fill_size=4096:free_fill_byte=90";
}
#endif

/* a copy of this test's executable (a PIE) made an ET_EXEC: libdwfl
   places it at its link addresses, the text segment at TEXT_VADDR */
struct exec_copy {
	char dir[64], path[96];
	uint64_t text_off, text_vaddr, text_len;
	uint64_t bias; /* where this process runs the original */
};

static int load_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr; /* the first one: the executable */
	return 1;
}

static bool exec_copy_make(struct exec_copy *c)
{
	FILE *in = fopen("/proc/self/exe", "rb"), *out = NULL;
	static uint8_t buf[16 << 20];
	size_t n = in ? fread(buf, 1, sizeof(buf), in) : 0;
	bool ok = false;

	if (in)
		fclose(in);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)(void *)buf;
	if (n < sizeof(*eh) || n == sizeof(buf) || eh->e_type != ET_DYN || eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > n)
		return false;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(void *)(buf + eh->e_phoff + i * sizeof(Elf64_Phdr));
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && !c->text_len) {
			c->text_off = ph->p_offset & ~0xfffull;
			c->text_vaddr = ph->p_vaddr & ~0xfffull;
			c->text_len = (ph->p_vaddr + ph->p_filesz - c->text_vaddr + 0xfff) & ~0xfffull;
		}
	}
	eh->e_type = ET_EXEC;
	snprintf(c->dir, sizeof(c->dir), "/tmp/hwp_unwind_XXXXXX");
	if (!c->text_len || !mkdtemp(c->dir))
		return false;
	snprintf(c->path, sizeof(c->path), "%s/exe", c->dir);
	if ((out = fopen(c->path, "wb"))) {
		ok = fwrite(buf, 1, n, out) == n;
		ok &= fclose(out) == 0;
	}
	c->bias = 0;
	dl_iterate_phdr(load_bias, &c->bias);
	return ok;
}

static void exec_copy_remove(struct exec_copy *c)
{
	unlink(c->path);
	rmdir(c->dir);
}

static void map_text(struct hwp_machine *m, int pid, const char *path, uint64_t start, const struct exec_copy *c)
{
	struct hwp_mmap_event e = { .pid = pid, .tid = pid, .cpumode = HWP_MISC_USER, .start = start,
				    .len = c->text_len, .pgoff = c->text_off, .prot = 5, .flags = 2,
				    .filename = path };
	CHECK(hwp_machine__mmap(m, &e) == 0);
}

/* the copy's link-time address of this test's function FN */
#define LINK_ADDR(c, fn) ((uint64_t)(uintptr_t)(fn) - (c)->bias)

/* the stack a sample copies: at SP, the words W */
#define FAKE_SP 0x7ffd00001000ull

/* unwinds a sample of PID at PC (rbp = sp + 8, the stack words W) into
   IPS; the number of frames, or -1 */
static int unwind_at(struct hwp__unwinder *u, struct hwp_machine *m, int pid, uint64_t pc, const uint64_t *w,
		     uint64_t *ips)
{
	static uint8_t stack[64];
	uint64_t words[3] = { FAKE_SP + 8, FAKE_SP, pc };
	struct hwp_thread *th = hwp_machine__findnew_thread(m, pid, pid);
	size_t n = 0;

	memcpy(stack, w, sizeof(stack));
	struct hwp_sample smp = {
		.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_REGS_USER | HWP_SAMPLE_STACK_USER,
		.cpumode = HWP_MISC_USER, .ip = pc, .pid = (uint32_t)pid, .tid = (uint32_t)pid,
		.regs_user_abi = HWP__REGS_ABI_64, .regs_user_mask = 7ull << 6,
		.regs_user = { (const uint8_t *)words, sizeof(words) },
		.stack_user = { stack, sizeof(stack) }, .stack_user_dyn_size = sizeof(stack),
	};
	int r = th ? hwp__unwind(u, &smp, th, ips, 8, &n) : -1;
	return r < 0 ? -1 : (int)n;
}

/*
 * A process that maps pages of its executable (ET_EXEC) a second time
 * elsewhere (V8 does, for node's builtins): libdwfl can place an ET_EXEC
 * at its link addresses only, so the copy must not be reported as a
 * module (the report would find the executable's module in the way, and
 * libdwfl frees it). After a sample there, samples in the executable
 * unwind as a fresh unwinder unwinds them. (Freed memory is filled with
 * a byte so that a module used after libdwfl freed it fails here.)
 */
static void exec_mapped_twice(void)
{
	struct exec_copy c = { 0 };

	if (!exec_copy_make(&c))
		SKIP("cannot make an ET_EXEC copy of /proc/self/exe");
	mallopt(M_PERTURB, 0x5a);
	uint64_t p1 = LINK_ADDR(&c, level1), p2 = LINK_ADDR(&c, level2);
	uint64_t remap = 0x7f0000000000ull + c.text_vaddr;
	/* at P2 (level2's entry) the CFI's return address is the word at sp
	   (level1's entry + 1: its frame has the return address 0); the
	   frame-pointer step's is at rbp + 8 = sp + 16 */
	uint64_t w[8] = { p1 + 1, 0, p1 + 1 };
	uint64_t zero[8] = { 0 };
	for (int no_rules = 0; no_rules < 2; no_rules++) {
		struct hwp__unwind_env env = { .e_machine = EM_X86_64, .no_rules = no_rules };
		struct hwp__unwinder *u = hwp__unwinder_new(&env), *fresh = hwp__unwinder_new(&env);
		struct hwp_machine *m = hwp_machine__new();
		uint64_t ips[8], want[8];

		CHECK(u && fresh && m);
		if (!u || !fresh || !m)
			break;
		map_text(m, 100, c.path, c.text_vaddr, &c);
		map_text(m, 100, c.path, remap, &c);
		int nw = unwind_at(fresh, m, 100, p2, w, want);
		/* the executable's module reported, then a sample in the copy */
		CHECK(unwind_at(u, m, 100, p1, zero, ips) == 1);
		CHECK(unwind_at(u, m, 100, remap + (p1 - c.text_vaddr), zero, ips) >= 1);
		int n = unwind_at(u, m, 100, p2, w, ips);
		CHECK(nw == 2 && n == nw);
		for (int i = 0; i < nw && n == nw; i++)
			CHECK_EQ_U64(ips[i], want[i]);
		if (nw == 2)
			CHECK(want[0] == p2 && want[1] == p1);
		hwp__unwinder_delete(u);
		hwp__unwinder_delete(fresh);
		hwp_machine__delete(m);
	}
	mallopt(M_PERTURB, 0);
	exec_copy_remove(&c);
}

/*
 * More processes than the unwinder keeps address spaces for (the least
 * recently used goes), each sampled again after its space went, and one
 * whose module is replaced at the same place by another file (the space
 * starts afresh): every stack as a fresh unwinder gives it.
 */
static void many_spaces(void)
{
	struct exec_copy c = { 0 };
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0 || !exec_copy_make(&c))
		SKIP("cannot make an ET_EXEC copy of /proc/self/exe");
	self[len] = 0;
	mallopt(M_PERTURB, 0x5a);
	uint64_t p1 = LINK_ADDR(&c, level1), p2 = LINK_ADDR(&c, level2);
	uint64_t w[8] = { p1 + 1, 0, p1 + 1 }, zero[8] = { 0 };
	enum { NPROC = 40 };
	for (int no_rules = 0; no_rules < 2; no_rules++) {
		struct hwp__unwind_env env = { .e_machine = EM_X86_64, .no_rules = no_rules };
		struct hwp__unwinder *u = hwp__unwinder_new(&env);
		struct hwp_machine *m = hwp_machine__new();
		uint64_t ips[8], want[8];
		int bad = 0;

		CHECK(u && m);
		if (!u || !m)
			break;
		for (int i = 0; i < NPROC; i++)
			map_text(m, 200 + i, c.path, c.text_vaddr, &c);
		for (int round = 0; round < 3; round++)
			for (int i = 0; i < NPROC; i++) {
				int pid = 200 + (round == 1 ? NPROC - 1 - i : i);
				if (round == 2 && i == 7) {
					/* the original (a PIE, at bias 0 too) in the copy's place */
					map_text(m, pid, self, c.text_vaddr, &c);
				}
				struct hwp__unwinder *fresh = hwp__unwinder_new(&env);
				int nw = fresh ? unwind_at(fresh, m, pid, p2, w, want) : -1;
				int n = unwind_at(u, m, pid, p2, w, ips);
				bad += nw != 2 || n != nw || memcmp(ips, want, sizeof(*ips) * 2);
				n = unwind_at(u, m, pid, p1, zero, ips);
				bad += n != 1 || ips[0] != p1;
				hwp__unwinder_delete(fresh);
			}
		CHECK(bad == 0);
		/* a space per process in the first round, in the next two for
		   those the last one's most recent 16 are not, and once more
		   where the module changed */
		CHECK_EQ_U64(hwp__unwinder_stats(u)->spaces, NPROC + 2 * (NPROC - MAX_SPACES_KEPT) + 1);
		hwp__unwinder_delete(u);
		hwp_machine__delete(m);
	}
	mallopt(M_PERTURB, 0);
	exec_copy_remove(&c);
}
#else
static void own_stack_unwound(void)
{
	SKIP("an x86-64 test");
}

static void rbx_frame_unwound(void)
{
	SKIP("an x86-64 test");
}

static void exec_mapped_twice(void)
{
	SKIP("an x86-64 test");
}

static void many_spaces(void)
{
	SKIP("an x86-64 test");
}
#endif

int main(void)
{
	RUN(x86_64_registers);
	RUN(aarch64_registers);
	RUN(what_a_sample_lacks);
	RUN(own_stack_unwound);
	RUN(rbx_frame_unwound);
	RUN(exec_mapped_twice);
	RUN(many_spaces);
	TL_EXIT();
}
