/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1 `perf script -F ip,brstack` syntax:
 *   without a callchain:  " %16lx" ip
 *   with one:             "\n" then "\t%16lx\n" per callchain address
 *   each branch entry:    " 0x%lx/0x%lx/%c/%c/%c/%d/ " (from, to, M|P|-,
 *                         X|-, A|-, cycles); then "\n".
 * Callchain addresses follow perf's resolution: context markers are dropped,
 * at most 127 addresses, and in LBR call-stack mode (branch_sample_type
 * CALL_STACK) the user part is rebuilt from the branch stack: the kernel
 * addresses, then entries[0].to, then every entries[i].from.
 */
#include "output/perf_script.h"

static char mispred_char(const struct hwp_branch_entry *e)
{
	if (!e->mispred && !e->predicted)
		return '-';
	return e->predicted ? 'P' : 'M';
}

static void put_chain_ip(struct hwp_outbuf *o, uint64_t ip)
{
	hwp_outbuf__putc(o, '\t');
	hwp_outbuf__hex(o, ip, 16);
	hwp_outbuf__putc(o, '\n');
}

static void print_lbr_callstack(struct hwp_outbuf *o, const struct hwp_sample *s, uint64_t user_at)
{
	struct hwp_branch_entry e;

	for (uint64_t j = 0; j < user_at; j++) {
		uint64_t ip = hwp_sample__callchain_ip(s, j);
		if (ip < HWP_CONTEXT_MAX)
			put_chain_ip(o, ip);
	}
	/* perf 6.1 reads entries[0] even when the stack is empty (past the end
	   of the record); there is nothing honest to print in that case. */
	if (s->branch_nr == 0)
		return;
	hwp_sample__branch(s, 0, &e);
	put_chain_ip(o, e.to);
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		hwp_sample__branch(s, i, &e);
		put_chain_ip(o, e.from);
	}
}

static void print_callchain(struct hwp_outbuf *o, const struct hwp_event *ev)
{
	const struct hwp_sample *s = &ev->sample;
	uint64_t nr = s->callchain_nr;

	if (ev->evsel && (ev->evsel->attr.branch_sample_type & HWP_BRANCH_CALL_STACK) &&
	    (s->sample_type & HWP_SAMPLE_BRANCH_STACK)) {
		uint64_t lim = nr < HWP_SCRIPT_MAX_STACK ? nr : HWP_SCRIPT_MAX_STACK;
		for (uint64_t i = 0; i < lim; i++) {
			if (hwp_sample__callchain_ip(s, i) == HWP_CONTEXT_USER) {
				print_lbr_callstack(o, s, i);
				return;
			}
		}
	}
	unsigned printed = 0;
	for (uint64_t i = 0; i < nr && printed < HWP_SCRIPT_MAX_STACK; i++) {
		uint64_t ip = hwp_sample__callchain_ip(s, i);
		if (ip >= HWP_CONTEXT_MAX) {
			if (ip != HWP_CONTEXT_HV && ip != HWP_CONTEXT_KERNEL && ip != HWP_CONTEXT_USER)
				return; /* perf drops the rest of the chain on an unknown context */
			continue;
		}
		put_chain_ip(o, ip);
		printed++;
	}
}

static void print_entry(struct hwp_outbuf *o, const struct hwp_branch_entry *e)
{
	char *p = hwp_outbuf__reserve(o, 64);
	char *start = p;

	*p++ = ' ';
	*p++ = '0';
	*p++ = 'x';
	p += hwp_fmt_hex(p, e->from);
	*p++ = '/';
	*p++ = '0';
	*p++ = 'x';
	p += hwp_fmt_hex(p, e->to);
	*p++ = '/';
	*p++ = mispred_char(e);
	*p++ = '/';
	*p++ = e->in_tx ? 'X' : '-';
	*p++ = '/';
	*p++ = e->abort ? 'A' : '-';
	*p++ = '/';
	p += hwp_fmt_u64(p, e->cycles);
	*p++ = '/';
	*p++ = ' ';
	o->len += (size_t)(p - start);
}

void hwp_perf_script__sample(struct hwp_outbuf *o, const struct hwp_event *ev, bool use_callchain)
{
	const struct hwp_sample *s = &ev->sample;

	if (use_callchain && (s->sample_type & HWP_SAMPLE_CALLCHAIN)) {
		hwp_outbuf__putc(o, '\n');
		print_callchain(o, ev);
	} else {
		hwp_outbuf__putc(o, ' ');
		hwp_outbuf__hex(o, s->ip, 16);
	}
	if (s->sample_type & HWP_SAMPLE_BRANCH_STACK) {
		struct hwp_branch_entry e;
		for (uint64_t i = 0; i < s->branch_nr; i++) {
			hwp_sample__branch(s, i, &e);
			print_entry(o, &e);
		}
	}
	hwp_outbuf__putc(o, '\n');
}
