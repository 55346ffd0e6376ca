/* SPDX-License-Identifier: MIT */
/*
 * The user part of a --call-graph dwarf sample's chain: its stack copy
 * unwound (src/unwind/) after the kernel part, as perf 6.1's
 * thread__resolve_callchain() appends unwind__get_entries() to the
 * callchain's kernel addresses. The unwinder is the chain's own; what it
 * needs of the session is taken once, here.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callchain.h"
#include "hwprof/perf_abi.h"
#include "symbolize/symbolizer_internal.h"
#include "unwind/unwind.h"
#include "util/error.h"
#include "util/vec.h"

#define UNWIND_MAX 127 /* perf's default kernel.perf_event_max_stack, the unwinder's depth too */

/* perf's HEADER_ARCH (uname -m) as an ELF machine; 0 when unknown (the
   sampled binary's is used). */
static uint16_t arch_machine(const char *arch)
{
	if (!arch)
		return 0;
	if (!strcmp(arch, "x86_64"))
		return EM_X86_64;
	if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
		return EM_AARCH64;
	return 0;
}

int hwp__chain_unwind_setup(struct hwp__chain *c, struct hwp_session *s)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(s);
	const struct hwp_header_info *h = hwp_session__header(s);
	struct hwp_find_ctx ctx = { 0 };
	const char *off = getenv("HWPROF_UNWIND_NO_RULES"); /* tests: "1" unwinds through libdwfl alone */

	if (c->unwinder)
		return 0;
	if (sym)
		hwp__symbolizer_find_ctx(sym, &ctx);
	struct hwp__unwind_env env = {
		.symfs = ctx.symfs,
		.debug_dirs = ctx.debug_dirs,
		.n_debug_dirs = ctx.n_debug_dirs,
		.build_ids = h ? h->build_ids : NULL,
		.nr_build_ids = h ? h->nr_build_ids : 0,
		.e_machine = arch_machine(h ? h->arch : NULL),
		.no_rules = off && !strcmp(off, "1"),
	};
	if (!(c->unwinder = hwp__unwinder_new(&env)))
		return hwp__set_error(ENOMEM, "out of memory making the stack unwinder");
	return 0;
}

int hwp__chain_unwind(struct hwp__chain *c, const struct hwp_event *ev, const struct hwp_thread *th)
{
	const struct hwp_sample *s = &ev->sample;
	size_t n;
	int err;

	/* perf record --call-graph dwarf records both; user registers alone
	   are counted (as having no stack copy) where the chain has no user
	   part of its own */
	if (!(s->sample_type & HWP_SAMPLE_STACK_USER)) {
		if (!(s->sample_type & HWP_SAMPLE_REGS_USER))
			return 0;
		for (size_t i = 0; i < c->n; i++)
			if (!(c->flags[i] & HWP__CHAIN_KERNEL))
				return 0;
	}
	if (!c->unwinder && (err = hwp__chain_unwind_setup(c, c->session)))
		return err;
	if (!c->uips && !(c->uips = malloc(UNWIND_MAX * sizeof(*c->uips))))
		return hwp__set_error(ENOMEM, "out of memory unwinding a stack");
	int r = hwp__unwind(c->unwinder, s, th, c->uips, UNWIND_MAX, &n);
	if (r < 0)
		return hwp__set_error(-r, "out of memory unwinding a stack");
	for (size_t i = 0; i < n; i++)
		if ((err = hwp__chain_push(c, c->uips[i], 0)))
			return err;
	return 0;
}

const struct hwp__unwind_stats *hwp__chain_unwind_stats(const struct hwp__chain *c)
{
	return c->unwinder ? hwp__unwinder_stats(c->unwinder) : NULL;
}

int hwp__chain_unwind_merge(struct hwp__chain *dst, struct hwp_session *s, const struct hwp__chain *part)
{
	int err;

	if (!part->unwinder)
		return 0;
	if (!dst->unwinder && (err = hwp__chain_unwind_setup(dst, s)))
		return err;
	hwp__unwinder_add_stats(dst->unwinder, hwp__unwinder_stats(part->unwinder));
	return 0;
}
