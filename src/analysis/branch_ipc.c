/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1 (util/annotate.c) keeps, per symbol and per block-ending branch,
 * the LONGEST block seen ending there (a block starting earlier resets it):
 * so what counts is, per end, the executions and cycles of the blocks with
 * the smallest start in the same symbol. annotation__compute_ipc() then
 * walks the ends from the highest down; a block whose instructions are all
 * covered by blocks already walked adds nothing; the others add their
 * cycles, their instructions times their executions, and the instructions
 * they newly cover. IPC = instructions / cycles; coverage = covered / all
 * instructions of the symbol. Instructions are found by decoding the symbol
 * linearly from its start, as objdump does for perf.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_ipc.h"
#include "decode/insn_starts.h"
#include "symbolize/symbolizer_internal.h"

/* A block, with the symbol of its end (offsets are module offsets). */
struct block {
	int32_t module;
	uint64_t sym, sym_size, sym_vaddr;
	uint64_t end, start, num, cycles;
};

struct sym_ipc {
	int32_t module;
	uint64_t sym;
	double ipc, coverage;
};

struct hwp__ipc {
	struct sym_ipc *syms;
	size_t n;
};

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* highest end first, as perf walks */
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Blocks whose start lies in the symbol of their end (perf's -ERANGE
   otherwise); *N set. */
static struct block *collect(const struct hwp_branch_table *t, struct hwp_symbolizer *s, size_t *n)
{
	size_t nr;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(t, &nr);
	struct block *b = malloc((nr ? nr : 1) * sizeof(*b));

	*n = 0;
	if (!b)
		return NULL;
	for (size_t i = 0; i < nr; i++) {
		const struct hwp_code_loc *start = &rows[i].key.from, *end = &rows[i].key.to;
		struct hwp_symbol_info si;

		if (hwp_symbolizer__lookup(s, end->module, end->offset, &si) || !si.symbol)
			continue;
		uint64_t sym = end->offset - si.sym_offset;
		if (start->offset < sym || start->offset - sym >= si.sym_size)
			continue;
		b[(*n)++] = (struct block){ end->module, sym, si.sym_size, si.sym_start, end->offset,
					    start->offset, rows[i].c.count, rows[i].c.cycles_sum };
	}
	qsort(b, *n, sizeof(*b), cmp_block);
	return b;
}

static size_t count_bits(const uint8_t *bits, uint64_t from, uint64_t to, uint8_t *mark)
{
	size_t n = 0;

	for (uint64_t i = from; i <= to; i++) {
		if (!(bits[i / 8] & (1u << (i % 8))))
			continue;
		if (!mark) {
			n++;
		} else if (!(mark[i / 8] & (1u << (i % 8)))) {
			mark[i / 8] |= (uint8_t)(1u << (i % 8));
			n++;
		}
	}
	return n;
}

/* One symbol: blocks B[0..n) (same module and symbol, highest end first). */
static void one_symbol(struct hwp__code_file *f, const struct block *b, size_t n, struct sym_ipc *out)
{
	uint64_t size = b[0].sym_size;
	uint8_t *bits = size ? calloc((size + 7) / 8, 2) : NULL;
	double hit_insn = 0, hit_cycles = 0, cover = 0;

	*out = (struct sym_ipc){ b[0].module, b[0].sym, 0, 0 };
	if (!bits || !f || hwp__code_file_insn_starts(f, b[0].sym_vaddr, size, bits)) {
		free(bits);
		return;
	}
	uint8_t *covered = bits + (size + 7) / 8;
	size_t total = count_bits(bits, 0, size - 1, NULL);
	for (size_t i = 0; i < n; i++) {
		if (i && b[i].end == b[i - 1].end)
			continue; /* a shorter block: perf keeps the longest */
		uint64_t lo = b[i].start - b[i].sym, hi = b[i].end - b[i].sym;
		size_t insns = count_bits(bits, lo, hi, NULL);
		if (!insns || !b[i].num || !b[i].cycles)
			continue;
		size_t fresh = count_bits(bits, lo, hi, covered);
		if (fresh) {
			hit_cycles += (double)b[i].cycles;
			hit_insn += (double)insns * (double)b[i].num;
			cover += (double)fresh;
		}
	}
	out->ipc = hit_cycles ? hit_insn / hit_cycles : 0;
	out->coverage = total ? cover * 100.0 / (double)total : 0;
	free(bits);
}

struct hwp__ipc *hwp__ipc_new(const struct hwp_branch_table *blocks, struct hwp_symbolizer *s)
{
	struct hwp__ipc *x = calloc(1, sizeof(*x));
	size_t n = 0;
	struct block *b = x && blocks ? collect(blocks, s, &n) : NULL;

	if (!x || (blocks && !b) || !(x->syms = malloc((n ? n : 1) * sizeof(*x->syms)))) {
		free(b);
		hwp__ipc_delete(x);
		return NULL;
	}
	struct hwp__code_file *f = NULL;
	int32_t open_module = -1;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && b[j].module == b[i].module && b[j].sym == b[i].sym; j++)
			;
		if (b[i].module != open_module) {
			hwp__code_file_close(f);
			f = hwp__symbolizer_open_code(s, b[i].module); /* a binary, or JIT code */
			open_module = b[i].module;
		}
		one_symbol(f, &b[i], j - i, &x->syms[x->n++]);
	}
	hwp__code_file_close(f);
	free(b);
	return x;
}

void hwp__ipc_delete(struct hwp__ipc *x)
{
	if (!x)
		return;
	free(x->syms);
	free(x);
}

bool hwp__ipc_of(const struct hwp__ipc *x, struct hwp_symbolizer *s, const struct hwp_code_loc *l,
		 double *ipc, double *coverage)
{
	struct hwp_symbol_info si;

	*ipc = *coverage = 0;
	if (l->module < 0 || hwp_symbolizer__lookup(s, l->module, l->offset, &si) || !si.symbol)
		return false;
	uint64_t sym = l->offset - si.sym_offset;
	size_t lo = 0, hi = x->n;
	while (lo < hi) { /* syms are in (module, symbol) order */
		size_t mid = (lo + hi) / 2;
		const struct sym_ipc *m = &x->syms[mid];
		if (m->module < l->module || (m->module == l->module && m->sym < sym))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < x->n && x->syms[lo].module == l->module && x->syms[lo].sym == sym) {
		*ipc = x->syms[lo].ipc;
		*coverage = x->syms[lo].coverage;
	}
	return true;
}
