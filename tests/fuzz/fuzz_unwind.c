/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the DWARF unwinder (src/unwind/): any user
 * registers (mask, ABI, words, possibly fewer than the mask says) and any
 * stack copy, on x86-64 or AArch64, with the pc landing in this program's
 * own code (mapped from /proc/self/maps, so real CFI is interpreted on
 * made-up register values) or anywhere. Every read must stay inside the
 * sample and the files (ASan), and the cached rules must unwind exactly as
 * libdwfl alone does: two unwinders, one with the rules off, must give the
 * same frames and the same end for every input (a difference aborts).
 *
 * Input: [0] machine (even x86-64, odd AArch64), [1] ABI word, [2..10)
 * sample_regs_user, [10..14) the pc as an offset into this program's code
 * (0xffffffff: the register word as given), [14..16) the copy's dyn_size,
 * then the register words (8 each, as many as the input holds) and the
 * stack copy (the rest, up to 64 KiB).
 */
#include <elf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwprof/maps.h"
#include "hwprof/perf_abi.h"
#include "unwind/unwind.h"
#include "util/bytes.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hwp_machine *machine;
static struct hwp_thread *thread;
static struct hwp__unwinder *with_rules[2], *dwfl_only[2]; /* per machine */
static uint64_t text_lo, text_len;
static char exe[PATH_MAX];

static void map_self(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], path[PATH_MAX], perm[8];
	unsigned long long lo, hi, off;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perm, &off, path) == 5 &&
		    !strcmp(path, exe) && strchr(perm, 'x')) {
			struct hwp_mmap_event e = { .pid = 1, .tid = 1, .cpumode = HWP_MISC_USER, .start = lo,
						    .len = hi - lo, .pgoff = off, .prot = 5, .flags = 2, .filename = exe };
			if (hwp_machine__mmap(machine, &e) == 0 && !text_len) {
				text_lo = lo;
				text_len = hi - lo;
			}
		}
	if (f)
		fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !(machine = hwp_machine__new()))
		abort();
	exe[n] = 0;
	map_self();
	if (!(thread = hwp_machine__findnew_thread(machine, 1, 1)))
		abort();
	for (int m = 0; m < 2; m++) {
		struct hwp__unwind_env env = { .e_machine = m ? EM_AARCH64 : EM_X86_64 };
		with_rules[m] = hwp__unwinder_new(&env);
		env.no_rules = true;
		dwfl_only[m] = hwp__unwinder_new(&env);
		if (!with_rules[m] || !dwfl_only[m])
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t regs[64 * 8];
	uint64_t a[64], b[64];
	size_t na = 0, nb = 0;

	if (size < 16)
		return 0;
	int m = data[0] & 1;
	uint64_t mask = ld64(data + 2);
	uint32_t pc_off = ld32(data + 10);
	uint16_t dyn = ld16(data + 14);
	size_t nwords = (size_t)__builtin_popcountll(mask), have = (size - 16) / 8;
	if (have > nwords)
		have = nwords;
	memcpy(regs, data + 16, have * 8);
	/* the pc's word: its place among the mask's bits */
	unsigned pc_bit = m ? 32 : 8;
	if (pc_off != UINT32_MAX && text_len && (mask >> pc_bit & 1)) {
		size_t at = (size_t)__builtin_popcountll(mask & ((1ull << pc_bit) - 1));
		if (at < have)
			st64(regs + 8 * at, text_lo + pc_off % text_len);
	}
	const uint8_t *stack = data + 16 + have * 8;
	size_t slen = size - 16 - have * 8;
	if (slen > 65536)
		slen = 65536;
	struct hwp_sample s = {
		.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_REGS_USER | HWP_SAMPLE_STACK_USER,
		.cpumode = HWP_MISC_USER, .ip = text_lo, .pid = 1, .tid = 1,
		.regs_user_abi = data[1], .regs_user_mask = mask,
		.regs_user = { regs, have * 8 },
		.stack_user = { stack, slen }, .stack_user_dyn_size = dyn,
	};
	int ra = hwp__unwind(with_rules[m], &s, thread, a, 64, &na);
	int rb = hwp__unwind(dwfl_only[m], &s, thread, b, 64, &nb);
	if (ra != rb || na != nb || memcmp(a, b, na * sizeof(*a))) {
		fprintf(stderr, "rules and libdwfl differ: end %d/%d, %zu/%zu frames\n", ra, rb, na, nb);
		abort();
	}
	return 0;
}
