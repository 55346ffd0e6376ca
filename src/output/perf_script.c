/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1 `perf script -F ip,brstack` syntax:
 *   without a callchain:  " %16lx" ip
 *   with one:             "\n" then "\t%16lx\n" per callchain address
 *   each branch entry:    " 0x%lx/0x%lx/%c/%c/%c/%d/%s " (from, to, M|P|-,
 *                         X|-, A|-, cycles, branch type name or ""); then "\n".
 * Callchain addresses follow perf's resolution: context markers are dropped,
 * at most 127 addresses, and in LBR call-stack mode (branch_sample_type
 * CALL_STACK) the user part is rebuilt from the branch stack: the kernel
 * addresses, then entries[0].to, then every entries[i].from.
 * Given the sample's thread (symbolize/maps.h), a user-space address that
 * falls in a mapped file is printed as its offset in that file, as perf does
 * (ip - start + pgoff; anon, heap and stack maps print the address itself);
 * kernel addresses and unmapped ones are printed as they are.
 */
#include <string.h>

#include "format/perf_data_internal.h"
#include "output/perf_script.h"
#include "util/bytes.h"

static void put_chain_ip(struct hwp_outbuf *o, uint64_t ip)
{
	hwp__outbuf_putc(o, '\t');
	hwp__outbuf_hex(o, ip, 16);
	hwp__outbuf_putc(o, '\n');
}

/*
 * perf's add_callchain_ip() for one callchain word: a context marker sets
 * *CPUMODE and prints nothing (returns 0); an unknown marker makes perf
 * discard the whole chain (returns -1); an address is printed (returns 1),
 * as perf's sample__fprintf_callchain() does: relative to its map when it
 * falls in a user-space map of the thread, as is otherwise.
 */
static int chain_step(uint16_t *cpumode, uint64_t ip)
{
	if (ip < HWP_CONTEXT_MAX)
		return 1;
	switch (ip) {
	case HWP_CONTEXT_HV:
		*cpumode = HWP_MISC_HYPERVISOR;
		return 0;
	case HWP_CONTEXT_KERNEL:
		*cpumode = HWP_MISC_KERNEL;
		return 0;
	case HWP_CONTEXT_USER:
		*cpumode = HWP_MISC_USER;
		return 0;
	default:
		return -1;
	}
}

static void put_resolved(struct hwp_outbuf *o, const struct hwp_thread *th, uint16_t cpumode,
			 uint64_t ip)
{
	if (th) {
		const struct hwp_map *m = hwp_thread__find_map(th, cpumode, ip);
		if (m && !m->kernel)
			ip = hwp_map__map_ip(m, ip);
	}
	put_chain_ip(o, ip);
}

/* The callchain words perf's plain path walks: stops after
   HWP_SCRIPT_MAX_STACK addresses. Returns false when perf discards it all. */
static bool plain_chain_ok(const struct hwp_sample *s)
{
	uint16_t cpumode = HWP_MISC_USER;
	unsigned n = 0;

	for (uint64_t i = 0; i < s->callchain_nr && n < HWP_SCRIPT_MAX_STACK; i++) {
		int r = chain_step(&cpumode, hwp_sample__callchain_ip(s, i));
		if (r < 0)
			return false;
		n += (unsigned)r;
	}
	return true;
}

/* thread__resolve_callchain_sample() without LBR. */
static void print_plain_chain(struct hwp_outbuf *o, const struct hwp_sample *s,
			      const struct hwp_thread *th)
{
	uint16_t cpumode = HWP_MISC_USER;
	unsigned printed = 0;

	if (!plain_chain_ok(s))
		return;
	for (uint64_t i = 0; i < s->callchain_nr && printed < HWP_SCRIPT_MAX_STACK; i++) {
		uint64_t ip = hwp_sample__callchain_ip(s, i);
		if (chain_step(&cpumode, ip) <= 0)
			continue;
		put_resolved(o, th, cpumode, ip);
		printed++;
	}
}

/*
 * resolve_lbr_callchain_sample() (callee order, no stitching): the words up
 * to and including the PERF_CONTEXT_USER at USER_AT, then entries[0].to and
 * every entries[i].from, these in cpumode USER. Where perf discards the
 * chain here it falls back to the plain path.
 */
static void print_lbr_callstack(struct hwp_outbuf *o, const struct hwp_sample *s,
				const struct hwp_thread *th, uint64_t user_at)
{
	struct hwp_branch_entry e;
	uint16_t cpumode = HWP_MISC_USER;

	for (uint64_t j = 0; j <= user_at; j++)
		if (chain_step(&cpumode, hwp_sample__callchain_ip(s, j)) < 0)
			return; /* the plain path discards it too */
	cpumode = HWP_MISC_USER;
	for (uint64_t i = 0; i <= s->branch_nr && s->branch_nr; i++) {
		hwp_sample__branch(s, i ? i - 1 : 0, &e);
		if (chain_step(&cpumode, i ? e.from : e.to) < 0) {
			print_plain_chain(o, s, th);
			return;
		}
	}

	cpumode = HWP_MISC_USER;
	for (uint64_t j = 0; j <= user_at; j++) {
		uint64_t ip = hwp_sample__callchain_ip(s, j);
		if (chain_step(&cpumode, ip) > 0)
			put_resolved(o, th, cpumode, ip);
	}
	/* perf 6.1 reads entries[0] even when the stack is empty (past the end
	   of the record); there is nothing honest to print in that case. */
	if (s->branch_nr == 0)
		return;
	cpumode = HWP_MISC_USER;
	for (uint64_t i = 0; i <= s->branch_nr; i++) {
		hwp_sample__branch(s, i ? i - 1 : 0, &e);
		uint64_t ip = i ? e.from : e.to;
		if (chain_step(&cpumode, ip) > 0)
			put_resolved(o, th, cpumode, ip);
	}
}

static void print_callchain(struct hwp_outbuf *o, const struct hwp_event *ev,
			    const struct hwp_thread *th)
{
	const struct hwp_sample *s = &ev->sample;
	uint64_t nr = s->callchain_nr;

	if (ev->evsel && (ev->evsel->attr.branch_sample_type & HWP_BRANCH_CALL_STACK) &&
	    (s->sample_type & HWP_SAMPLE_BRANCH_STACK)) {
		uint64_t lim = nr < HWP_SCRIPT_MAX_STACK ? nr : HWP_SCRIPT_MAX_STACK;
		for (uint64_t i = 0; i < lim; i++) {
			if (hwp_sample__callchain_ip(s, i) == HWP_CONTEXT_USER) {
				print_lbr_callstack(o, s, th, i);
				return;
			}
		}
	}
	print_plain_chain(o, s, th);
}

/* One entry straight from the record's {from, to, flags} words: this runs
   for every entry of every sample, so no full decode and no strlen. */
static void print_entry(struct hwp_outbuf *o, const uint8_t *raw)
{
	static const char mp[4] = { '-', 'M', 'P', 'P' }; /* predicted wins, as in perf */
	uint64_t from = ld64(raw), to = ld64(raw + 8), flags = ld64(raw + 16);
	char *p = hwp__outbuf_reserve(o, 96);
	char *start = p;

	*p++ = ' ';
	*p++ = '0';
	*p++ = 'x';
	p += hwp__fmt_hex(p, from);
	*p++ = '/';
	*p++ = '0';
	*p++ = 'x';
	p += hwp__fmt_hex(p, to);
	*p++ = '/';
	*p++ = mp[flags & 3];
	*p++ = '/';
	*p++ = (flags >> HWP_BRF_IN_TX_SHIFT) & 1 ? 'X' : '-';
	*p++ = '/';
	*p++ = (flags >> HWP_BRF_ABORT_SHIFT) & 1 ? 'A' : '-';
	*p++ = '/';
	p += hwp__fmt_u64(p, (flags >> HWP_BRF_CYCLES_SHIFT) & 0xffff);
	*p++ = '/';
	if ((flags >> HWP_BRF_TYPE_SHIFT) & 0xf) {
		struct hwp_branch_entry e;
		hwp_branch_entry__decode(from, to, flags, &e);
		const char *type = hwp__branch_entry_type_name(&e);
		size_t tl = strlen(type);
		memcpy(p, type, tl);
		p += tl;
	}
	*p++ = ' ';
	o->len += (size_t)(p - start);
}

void hwp__perf_script_sample(struct hwp_outbuf *o, const struct hwp_event *ev, bool use_callchain)
{
	hwp__perf_script_sample_in(o, ev, use_callchain, NULL);
}

void hwp__perf_script_sample_in(struct hwp_outbuf *o, const struct hwp_event *ev,
				bool use_callchain, const struct hwp_thread *th)
{
	const struct hwp_sample *s = &ev->sample;

	if (use_callchain && (s->sample_type & HWP_SAMPLE_CALLCHAIN)) {
		hwp__outbuf_putc(o, '\n');
		print_callchain(o, ev, th);
	} else {
		hwp__outbuf_putc(o, ' ');
		hwp__outbuf_hex(o, s->ip, 16);
	}
	if (s->sample_type & HWP_SAMPLE_BRANCH_STACK) {
		for (uint64_t i = 0; i < s->branch_nr; i++)
			print_entry(o, s->branch_entries + i * 24);
	}
	hwp__outbuf_putc(o, '\n');
}
