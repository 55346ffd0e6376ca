/* The unwinder (src/unwind/): perf's user registers as DWARF registers,
   against the kernel's perf_regs.h bit order and the psABIs' DWARF
   numbers (x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 = 0-15, the
   return address 16; AArch64: x0-x30 = 0-30, sp 31), bounds on what a
   sample holds; and this test's own stack, captured as perf would copy it,
   unwound back through the calls that led there (their return addresses,
   from __builtin_return_address). */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hwprof/maps.h"
#include "hwprof/perf_abi.h"
#include "testlib.h"
#include "unwind/unwind.h"
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
	uint8_t stack[STACK];
	uint64_t ret[3]; /* return addresses of capture, level1, level2 */
};

static volatile int depth_sink;

/* the raw stack above sp, redzones between locals included (what the
   kernel copies knows nothing of ASan's) */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint8_t *out, uint64_t sp)
{
	const volatile uint64_t *p = (const volatile uint64_t *)(uintptr_t)sp;

	for (size_t i = 0; i < STACK / 8; i++) {
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
	copy_stack(s->stack, s->sp);
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

static void own_stack_unwound(void)
{
	static struct snap s;
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0)
		SKIP("no /proc/self/exe");
	exe[len] = 0;
	level2(&s);
	struct hwp_machine *m = hwp_machine__new();
	if (!m || !map_self(m, exe))
		SKIP("no mapping of the executable in /proc/self/maps");
	struct hwp_thread *th = hwp_machine__findnew_thread(m, getpid(), getpid());
	/* REGS_USER with BP SP IP (bits 6, 7, 8), ascending */
	uint64_t words[3] = { s.bp, s.sp, s.ip };
	struct hwp_sample smp = {
		.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_REGS_USER | HWP_SAMPLE_STACK_USER,
		.cpumode = HWP_MISC_USER, .ip = s.ip, .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
		.regs_user_abi = HWP__REGS_ABI_64, .regs_user_mask = 7ull << 6,
		.regs_user = { (const uint8_t *)words, sizeof(words) },
		.stack_user = { s.stack, STACK }, .stack_user_dyn_size = STACK,
	};
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
		smp.stack_user.size = smp.stack_user_dyn_size = STACK;
		/* no copy at all */
		smp.stack_user_dyn_size = 0;
		CHECK(u && hwp__unwind(u, &smp, th, ips, 32, &n) == HWP__UNWIND_NO_STACK && n == 0);
		smp.stack_user_dyn_size = STACK;
		hwp__unwinder_delete(u);
	}
	hwp_machine__delete(m);
}
#else
static void own_stack_unwound(void)
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
	TL_EXIT();
}
