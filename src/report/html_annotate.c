/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's annotated code (html_annotate.h). Per function one
 * table: the samples and what the analyses know of each instruction in
 * columns (only the groups of columns the function has numbers for),
 * source lines as rows over their instructions. The jumps' arrows are laid
 * out here (each in a lane no overlapping jump uses, the shortest nearest
 * the code, as perf annotate's TUI draws them) and drawn by the page's
 * script from the rows' positions. Long runs of instructions nothing is
 * known of are folded behind a button.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/markup.h"
#include "report/annotate_internal.h"
#include "report/report_internal.h"
#include "report/html_annotate.h"
#include "report/source_text.h"
#include "util/error.h"
#include "util/vec.h"

/* Cold runs at least this long are folded, but for CONTEXT instructions
   at either end. */
#define FOLD_MIN 16
#define FOLD_CONTEXT 3
/* Lanes of arrows; more overlapping jumps share the outermost. */
#define MAX_LANES 12

/* The groups of columns a function shows. */
enum { G_BRANCH = 1, G_TARGETS = 2, G_BLOCK = 4, G_TIMING = 8, G_MEM = 16 };

struct jump {
	size_t from, to; /* instruction indexes in the function */
	unsigned lane;
};

static bool cond_known(const struct hwp_annotate_insn *x)
{
	return x->cond && x->cond->executions;
}

static bool timed(const struct hwp_annotate_insn *x)
{
	return x->timing && x->timing->d.samples;
}

/* Memory samples of X that know the access (not samples of another event
   counted with nothing known of it). */
static bool mem_known(const struct hwp_annotate_insn *x)
{
	return x->mem && x->mem->st.samples && (x->mem->st.loads || x->mem->st.stores || x->mem->st.lat_sum);
}

/* Whether the recording knows anything of X. */
static bool known(const struct hwp_annotate_insn *x)
{
	return x->samples || cond_known(x) || x->indirect || (x->block && x->block->count) || timed(x) ||
	       mem_known(x);
}

/* The instruction of IN[0..N) (by address) at VADDR, or N. */
static size_t insn_at(const struct hwp_annotate_insn *in, size_t n, uint64_t vaddr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in[mid].vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && in[lo].vaddr == vaddr ? lo : n;
}

static int by_span(const void *a, const void *b)
{
	const struct jump *x = a, *y = b;
	size_t sx = x->from > x->to ? x->from - x->to : x->to - x->from;
	size_t sy = y->from > y->to ? y->from - y->to : y->to - y->from;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The direct jumps of IN[0..N) within it, each with a lane: the shortest
   first, each in the lowest lane where no jump placed before overlaps it.
   *LANES the lanes used. NULL with *NJ 0 when none (or ENOMEM: no arrows). */
static struct jump *lay_out_jumps(const struct hwp_annotate_insn *in, size_t n, size_t *nj, unsigned *lanes)
{
	struct jump *j = NULL;
	size_t cnt = 0;

	*nj = 0;
	*lanes = 0;
	for (size_t i = 0; i < n; i++)
		cnt += in[i].has_target && (in[i].kind == HWP_ANNOTATE_COND || in[i].kind == HWP_ANNOTATE_JUMP);
	if (!cnt || !(j = calloc(cnt, sizeof(*j))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t to;

		if (!in[i].has_target || (in[i].kind != HWP_ANNOTATE_COND && in[i].kind != HWP_ANNOTATE_JUMP) ||
		    (to = insn_at(in, n, in[i].target)) == n || to == i)
			continue;
		j[(*nj)++] = (struct jump){ .from = i, .to = to };
	}
	hwp__sort(j, *nj, sizeof(*j), by_span);
	for (size_t k = 0; k < *nj; k++) {
		size_t lo = j[k].from < j[k].to ? j[k].from : j[k].to, hi = j[k].from ^ j[k].to ^ lo;
		unsigned lane = 0;

		for (bool clash = true; clash && lane < MAX_LANES - 1;) {
			clash = false;
			for (size_t m = 0; m < k && !clash; m++) {
				size_t mlo = j[m].from < j[m].to ? j[m].from : j[m].to, mhi = j[m].from ^ j[m].to ^ mlo;

				clash = j[m].lane == lane && mlo <= hi && lo <= mhi;
			}
			lane += clash;
		}
		j[k].lane = lane;
		if (lane + 1 > *lanes)
			*lanes = lane + 1;
	}
	return j;
}

/* The distribution D, timed to END, as a small histogram: 40 bars from 0
   cycles to a quarter past its 99th percentile (the values past that in the
   last bar), a tick under its median; the numbers in its title. */
static void sparkline(struct hwp_outbuf *o, const struct hwp_timing_dist *d, uint64_t end)
{
	enum { W = 80, H = 18, BAR = 14, BINS = 40 };
	uint64_t bin[BINS] = { 0 }, top = 0;
	uint32_t p99 = d->p99 ? d->p99 : d->max;
	double hi = (double)p99 + (p99 / 4 > 1 ? p99 / 4 : 1);

	for (size_t v = 0; v < d->nvalues; v++) {
		double b = (double)d->values[v].cycles / hi * BINS;

		bin[b >= BINS ? BINS - 1 : (size_t)b] += d->values[v].samples;
	}
	for (size_t b = 0; b < BINS; b++)
		top = bin[b] > top ? bin[b] : top;
	hwp__outbuf_printf(o, "<svg class=\"spark\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"><title>to %" PRIx64
			   ": %" PRIu64 " timed executions, min %u, median %u, p90 %u, p99 %u, max %u cycles",
			   W, H, W, H, end, d->samples, d->min, d->median, d->p90, d->p99, d->max);
	for (size_t m = 0; m < d->nmodes && m < 3; m++)
		hwp__outbuf_printf(o, "%s%u cycles (%.0f%%)", m ? ", " : "; peaks at ", d->modes[m].cycles,
				   100.0 * (double)d->modes[m].samples / (double)d->samples);
	hwp__outbuf_printf(o, " (the scale: 0 to %.0f cycles)</title><rect class=\"bg\" width=\"%d\" height=\"%d\"/>", hi,
			   W, BAR);
	for (size_t b = 0; b < BINS && top; b++) {
		if (!bin[b])
			continue;
		double h = 1 + (BAR - 1) * (double)bin[b] / (double)top;

		hwp__outbuf_printf(o, "<rect x=\"%zu\" y=\"%.1f\" width=\"2\" height=\"%.1f\"/>", b * 2, BAR - h, h);
	}
	double m = (double)d->median / hi * BINS;
	size_t mb = m >= BINS ? BINS - 1 : (size_t)m;
	hwp__outbuf_printf(o, "<line x1=\"%zu\" x2=\"%zu\" y1=\"%d\" y2=\"%d\"/></svg>", mb * 2 + 1, mb * 2 + 1,
			   BAR + 1, H);
}

static void cell_count(struct hwp_outbuf *o, bool set, uint64_t v)
{
	if (set)
		hwp__outbuf_printf(o, "<td>%" PRIu64 "</td>", v);
	else
		hwp__outbuf_puts(o, "<td></td>");
}

static void cell_text(struct hwp_outbuf *o, const char *cls, const char *title, const char *text)
{
	hwp__outbuf_printf(o, "<td class=\"%s\"", cls);
	if (title) {
		hwp__outbuf_puts(o, " title=\"");
		hwp__markup_escape(o, title);
		hwp__outbuf_putc(o, '"');
	}
	hwp__outbuf_putc(o, '>');
	hwp__markup_escape(o, text);
	hwp__outbuf_puts(o, "</td>");
}

/* A range timed from the start of instruction INSN (of a function). */
struct timed {
	size_t insn;
	const struct hwp_timing_block *tb;
};

struct view {
	struct hwp_outbuf *o;
	struct hwp_symbolizer *sym;
	const struct hwp_annotation *a;
	const struct hwp_timing *timing;
	struct hwp__sources ss;
	uint64_t total;
	/* the function's timed ranges, by instruction (each's own first, then
	   by samples) */
	struct timed *timed;
	size_t ntimed, timed_cap, next_timed;
};

/* Sparklines per block start at most. */
#define MAX_SPARKS 3

static int by_insn(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;

	if (x->insn != y->insn)
		return x->insn < y->insn ? -1 : 1;
	return x->tb->d.samples > y->tb->d.samples ? -1 : x->tb->d.samples < y->tb->d.samples;
}

/* The ranges timed from the instructions IN[0..N) of function F into
   V's list; 0 or -ENOMEM. */
static int find_timed(struct view *v, const struct hwp_annotate_func *f, const struct hwp_annotate_insn *in, size_t n)
{
	size_t nb = 0;
	const struct hwp_timing_block *b = v->timing ? hwp_timing__blocks(v->timing, &nb) : NULL;
	uint64_t lo = in[0].loc.offset, hi = in[n - 1].loc.offset + in[n - 1].len;

	v->ntimed = v->next_timed = 0;
	for (size_t i = 0; i < nb; i++) {
		if (b[i].start.module != f->module || b[i].start.offset < lo || b[i].start.offset >= hi ||
		    !b[i].d.samples)
			continue;
		size_t lo_i = 0, hi_i = n;
		while (lo_i < hi_i) {
			size_t mid = lo_i + (hi_i - lo_i) / 2;

			if (in[mid].loc.offset < b[i].start.offset)
				lo_i = mid + 1;
			else
				hi_i = mid;
		}
		if (lo_i == n || in[lo_i].loc.offset != b[i].start.offset)
			continue;
		struct timed *t = HWP_VEC_PUSH(v->timed, v->ntimed, v->timed_cap);
		if (!t)
			return -ENOMEM;
		*t = (struct timed){ lo_i, &b[i] };
	}
	hwp__sort(v->timed, v->ntimed, sizeof(*v->timed), by_insn);
	return 0;
}

/* The latency sparklines of the block starting at X (instruction I): the
   range annotate chose for it first, then the others timed from there. */
static void sparklines(struct view *v, const struct hwp_annotate_insn *x, size_t i)
{
	const struct hwp_timing_block *shown[MAX_SPARKS];
	size_t ns = 0;

	if (timed(x))
		shown[ns++] = x->timing;
	while (v->next_timed < v->ntimed && v->timed[v->next_timed].insn < i)
		v->next_timed++;
	for (; v->next_timed < v->ntimed && v->timed[v->next_timed].insn == i; v->next_timed++)
		if (ns < MAX_SPARKS && v->timed[v->next_timed].tb != x->timing)
			shown[ns++] = v->timed[v->next_timed].tb;
	for (size_t k = 0; k < ns; k++) {
		uint64_t end = shown[k]->end.offset;

		hwp_symbolizer__module_vaddr(v->sym, shown[k]->end.module, shown[k]->end.offset, &end);
		sparkline(v->o, &shown[k]->d, end);
	}
}

/* The columns' headers of the groups G, after the instruction. */
static size_t headers(struct hwp_outbuf *o, unsigned g, unsigned arrows_px)
{
	size_t n = 5;

	/* the arrows' column as wide as their lanes */
	hwp__outbuf_printf(o, "<thead><tr><th title=\"samples whose IP is the instruction\">Samples</th>"
			   "<th title=\"of the function's samples\">Share</th><th class=\"t\">Address</th>"
			   "<th class=\"ar\" style=\"width:%upx;min-width:%upx\"></th><th class=\"t\">Instruction</th>",
			   arrows_px, arrows_px);
	if (g & G_BRANCH) {
		hwp__outbuf_puts(o, "<th title=\"a conditional branch's sampled executions (fall-through ranges)\">Exec</th>"
				    "<th title=\"taken probability (hover: its 95% interval)\">Taken</th>"
				    "<th title=\"taken mispredicts per execution (a lower bound)\">Mispred</th>");
		n += 3;
	}
	if (g & G_TARGETS) {
		hwp__outbuf_puts(o, "<th class=\"t\" title=\"an indirect branch's top targets\">Targets</th>");
		n++;
	}
	if (g & G_BLOCK) {
		hwp__outbuf_puts(o, "<th title=\"sampled executions of the basic block starting here\">Block</th>");
		n++;
	}
	if (g & G_TIMING) {
		hwp__outbuf_puts(o, "<th title=\"the block's median cycles (branch-record cycle counts)\">Cycles</th>"
				    "<th title=\"the block's 90th percentile of cycles\">P90</th><th>IPC</th>"
				    "<th class=\"t\" title=\"the block's latency distribution\">Latency</th>");
		n += 4;
	}
	if (g & G_MEM) {
		hwp__outbuf_puts(o, "<th title=\"memory samples of this load or store\">Mem</th>"
				    "<th title=\"mean latency of its memory samples, cycles\">Lat</th>"
				    "<th class=\"t\">Data sources</th>"
				    "<th class=\"t\" title=\"the type and member it touches, from DWARF\">Data type</th>");
		n += 4;
	}
	hwp__outbuf_puts(o, "</tr></thead>\n");
	return n;
}

/* The operands of X, a direct jump within function K linked to its target,
   a call to another function shown linked to it. */
static void operands(struct view *v, size_t k, const struct hwp_annotate_insn *x, bool in_func)
{
	struct hwp_outbuf *o = v->o;
	const struct hwp_annotate_func *f;
	size_t nf = hwp_annotation__functions(v->a, &f), callee = nf;

	if (x->has_target && (x->kind == HWP_ANNOTATE_CALL || x->kind == HWP_ANNOTATE_JUMP))
		for (size_t m = 0; m < nf && callee == nf; m++)
			if (m != k && f[m].module == f[k].module && f[m].vaddr == x->target)
				callee = m;
	if (in_func)
		hwp__outbuf_printf(o, "<a href=\"#a%zu-%" PRIx64 "\">", k, x->target);
	else if (callee < nf)
		hwp__outbuf_printf(o, "<a href=\"#a%zu\">", callee);
	hwp__markup_escape(o, x->operands);
	if (callee < nf) {
		hwp__outbuf_puts(o, " &lt;");
		hwp__markup_escape(o, f[callee].name);
		hwp__outbuf_puts(o, "&gt;");
	}
	if (in_func || callee < nf)
		hwp__outbuf_puts(o, "</a>");
}

/* One instruction's row. */
static void insn_row(struct view *v, size_t k, const struct hwp_annotate_insn *in, size_t n, size_t i,
		     const struct jump *jump, unsigned g)
{
	struct hwp_outbuf *o = v->o;
	const struct hwp_annotate_func *f;
	const struct hwp_annotate_insn *x = &in[i];
	char buf[512], title[256];

	hwp_annotation__functions(v->a, &f);
	double share = f[k].samples ? 100.0 * (double)x->samples / (double)f[k].samples : 0;
	hwp__outbuf_printf(o, "<tr class=\"i%s\" id=\"a%zu-%" PRIx64 "\"",
			   share >= 5 ? " h5" : share >= 0.5 ? " h05" : "", k, x->vaddr);
	if (jump) {
		hwp__outbuf_printf(o, " data-to=\"a%zu-%" PRIx64 "\" data-lane=\"%u\"", k, in[jump->to].vaddr, jump->lane);
		if (cond_known(x))
			hwp__outbuf_printf(o, " data-p=\"%.3f\"", x->cond->p_taken);
	}
	hwp__outbuf_putc(o, '>');
	if (x->samples)
		hwp__outbuf_printf(o, "<td class=\"s\" title=\"%.2f%% of all samples\">%" PRIu64 "</td>"
				   "<td class=\"s\" style=\"background:linear-gradient(90deg,#fbb %.1f%%,transparent 0)\">"
				   "%.2f%%</td>",
				   v->total ? 100.0 * (double)x->samples / (double)v->total : 0, x->samples, share, share);
	else
		hwp__outbuf_puts(o, "<td></td><td></td>");
	hwp__outbuf_printf(o, "<td class=\"ad t\">%" PRIx64 "</td><td class=\"ar\"></td><td class=\"t\"><b>", x->vaddr);
	hwp__markup_escape(o, x->mnemonic);
	hwp__outbuf_puts(o, "</b> ");
	operands(v, k, x, jump != NULL || (x->has_target && (x->kind == HWP_ANNOTATE_COND || x->kind == HWP_ANNOTATE_JUMP) &&
					   insn_at(in, n, x->target) < n));
	hwp__outbuf_puts(o, "</td>");
	if (g & G_BRANCH) {
		if (cond_known(x)) {
			const struct hwp_flow_cond *c = x->cond;

			hwp__outbuf_printf(o, "<td>%" PRIu64 "</td><td title=\"95%% interval %.1f-%.1f%%: %" PRIu64
					   " taken of %" PRIu64 "\">%.1f%%</td>",
					   c->executions, 100 * c->p_taken_lo, 100 * c->p_taken_hi, c->taken, c->executions,
					   100 * c->p_taken);
			if (isnan(c->mispred_per_exec))
				hwp__outbuf_puts(o, "<td></td>");
			else
				hwp__outbuf_printf(o, "<td>%.1f%%</td>", 100 * c->mispred_per_exec);
		} else {
			hwp__outbuf_puts(o, "<td></td><td></td><td></td>");
		}
	}
	if (g & G_TARGETS) {
		if (x->indirect) {
			char t[400];

			hwp__annotate_targets_text(v->sym, x->indirect, t, sizeof(t));
			snprintf(buf, sizeof(buf), "%" PRIu64 " taken: %s", x->indirect->count, t);
			cell_text(o, "x", buf, buf);
		} else {
			hwp__outbuf_puts(o, "<td></td>");
		}
	}
	if (g & G_BLOCK)
		cell_count(o, x->block && x->block->count, x->block ? x->block->count : 0);
	if (g & G_TIMING) {
		if (timed(x)) {
			const struct hwp_timing_dist *d = &x->timing->d;

			hwp__outbuf_printf(o, "<td>%u</td><td>%u</td>", d->median, d->p90);
			if (x->timing->insns)
				hwp__outbuf_printf(o, "<td>%.2f</td>", x->timing->ipc);
			else
				hwp__outbuf_puts(o, "<td></td>");
		} else {
			hwp__outbuf_puts(o, "<td></td><td></td><td></td>");
		}
		hwp__outbuf_puts(o, "<td class=\"t\">");
		sparklines(v, x, i);
		hwp__outbuf_puts(o, "</td>");
	}
	if (g & G_MEM) {
		if (mem_known(x)) {
			const struct hwp_mem_stats *st = &x->mem->st;

			hwp__annotate_sources_text(st, buf, sizeof(buf));
			snprintf(title, sizeof(title), "%" PRIu64 " loads, %" PRIu64 " stores, %" PRIu64 " HITM", st->loads,
				 st->stores, st->hitm);
			hwp__outbuf_printf(o, "<td title=\"%s\">%" PRIu64 "</td><td>%.1f</td>", title, st->samples,
					   (double)st->lat_sum / (double)st->samples);
			cell_text(o, "x", NULL, buf);
			hwp__report_data_type_text(x->mem->data_type, x->mem->data_member, x->mem->data_stack_op, buf,
						   sizeof(buf));
			cell_text(o, "x", NULL, buf);
		} else {
			hwp__outbuf_puts(o, "<td></td><td></td><td></td><td></td>");
		}
	}
	hwp__outbuf_puts(o, "</tr>\n");
}

/* The source line of X as a row spanning NCOLS, as the text view puts it
   over its instructions: the file's base name, the line and its text. */
static void source_row(struct view *v, const struct hwp_annotate_insn *x, size_t ncols)
{
	size_t len = 0;
	const char *text = hwp__source_line(&v->ss, x->file, x->line, &len);
	const char *base = strrchr(x->file, '/');
	char buf[4096];

	/* the place under the numbers and the address, the text from the
	   instruction's column on: the arrows' column stays clear */
	hwp__outbuf_puts(v->o, "<tr class=\"src\"><td colspan=\"3\" class=\"ln\" title=\"");
	hwp__markup_escape(v->o, x->file);
	hwp__outbuf_puts(v->o, "\">");
	hwp__markup_escape(v->o, base ? base + 1 : x->file);
	hwp__outbuf_printf(v->o, ":%u</td><td class=\"ar\"></td><td colspan=\"%zu\">", x->line, ncols - 4);
	if (text) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), text);
		hwp__markup_escape(v->o, buf);
	}
	hwp__outbuf_puts(v->o, "</td></tr>\n");
}

static int function_view(struct view *v, size_t k)
{
	struct hwp_outbuf *o = v->o;
	const struct hwp_annotate_func *fs, *f;
	const struct hwp_annotate_insn *all;

	hwp_annotation__functions(v->a, &fs);
	hwp_annotation__insns(v->a, &all);
	f = &fs[k];
	const char *mod = hwp_symbolizer__module_name(v->sym, f->module);
	const struct hwp_annotate_insn *in = all + f->first;
	size_t n = f->n, nj;
	unsigned g = 0, lanes;

	hwp__outbuf_printf(o, "<div class=\"fn\" id=\"a%zu\"><h3>", k);
	hwp__markup_escape(o, f->name);
	hwp__outbuf_puts(o, " <small>[");
	hwp__markup_escape(o, mod ? mod : "?");
	hwp__outbuf_printf(o, "] at 0x%" PRIx64 ", %" PRIu64 " bytes: %" PRIu64 " samples (%.2f%% of %" PRIu64 ")</small></h3>\n",
			   f->vaddr, f->size, f->samples, v->total ? 100.0 * (double)f->samples / (double)v->total : 0,
			   v->total);
	if (f->decoded || !n) {
		hwp__outbuf_printf(o, "<p class=\"note\">Its code cannot be shown: %s.</p></div>\n",
				   f->decoded == -ENOENT    ? "no binary found"
				   : f->decoded == -ENOTSUP ? "no decoder for this machine"
				   : f->decoded            ? "not in an executable segment of the binary"
							   : "no instruction decoded");
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct hwp_annotate_insn *x = &in[i];

		g |= (cond_known(x) ? G_BRANCH : 0) | (x->indirect ? G_TARGETS : 0) |
		     (x->block && x->block->count ? G_BLOCK : 0) | (timed(x) ? G_TIMING : 0) | (mem_known(x) ? G_MEM : 0);
	}
	if (find_timed(v, f, in, n) < 0)
		return hwp__set_error(ENOMEM, "out of memory writing the annotated code");
	if (v->ntimed)
		g |= G_TIMING;
	struct jump *jumps = lay_out_jumps(in, n, &nj, &lanes);
	const struct jump **jump_of = calloc(n, sizeof(*jump_of));
	if (!jump_of) {
		free(jumps);
		return hwp__set_error(ENOMEM, "out of memory writing the annotated code");
	}
	for (size_t j = 0; j < nj; j++)
		jump_of[jumps[j].from] = &jumps[j];
	hwp__outbuf_puts(o, "<div class=\"code\"><table class=\"asm\">");
	size_t ncols = headers(o, g, 10 + 6 * lanes);
	const char *last_file = NULL;
	unsigned last_line = 0;
	hwp__outbuf_puts(o, "<tbody>\n");
	for (size_t i = 0; i < n;) {
		/* a run of instructions nothing is known of, from I */
		size_t run = 0;
		while (i + run < n && !known(&in[i + run]))
			run++;
		size_t fold_from = i + FOLD_CONTEXT, fold_to = i + run - FOLD_CONTEXT;
		bool fold = run >= FOLD_MIN;
		size_t end = run ? i + run : i + 1;

		for (; i < end; i++) {
			const struct hwp_annotate_insn *x = &in[i];

			if (fold && i == fold_from)
				hwp__outbuf_printf(o, "</tbody><tbody class=\"fold\"><tr><td colspan=\"3\"></td><td class=\"ar\">"
						   "</td><td colspan=\"%zu\"><button>show %zu instructions nothing is "
						   "known of</button></td></tr></tbody><tbody hidden>\n",
						   ncols - 4, fold_to - fold_from);
			if (fold && i == fold_to)
				hwp__outbuf_puts(o, "</tbody><tbody>\n");
			if (x->file && (x->line != last_line || !last_file || strcmp(x->file, last_file))) {
				source_row(v, x, ncols);
				last_file = x->file;
				last_line = x->line;
			}
			insn_row(v, k, in, n, i, jump_of[i], g);
		}
	}
	hwp__outbuf_puts(o, "</tbody></table></div></div>\n");
	free(jump_of);
	free(jumps);
	return 0;
}

int hwp__html_annotation(struct hwp_html_page *page, struct hwp_symbolizer *sym, const struct hwp_annotation *a,
			 const struct hwp__html_code_opts *opts)
{
	struct view v = { .o = hwp__html_page_out(page), .sym = sym, .a = a, .timing = opts ? opts->timing : NULL,
			  .total = hwp_annotation__total_samples(a) };
	const struct hwp_annotate_func *f;
	size_t nf = hwp_annotation__functions(a, &f);
	int rc = 0;

	if (opts) {
		v.ss.prefix = opts->prefix;
		v.ss.strip = opts->prefix_strip;
	}
	hwp__outbuf_puts(v.o, "<ul class=\"fns\">");
	for (size_t k = 0; k < nf; k++) {
		hwp__outbuf_printf(v.o, "<li><a href=\"#a%zu\">", k);
		hwp__markup_escape(v.o, f[k].name);
		hwp__outbuf_printf(v.o, "</a> %.2f%%</li>",
				   v.total ? 100.0 * (double)f[k].samples / (double)v.total : 0);
	}
	hwp__outbuf_puts(v.o, "</ul>\n");
	for (size_t k = 0; k < nf && !rc; k++)
		rc = function_view(&v, k);
	hwp__sources_free(&v.ss);
	free(v.timed);
	return rc;
}

bool hwp__html_annotation_link(const struct hwp_annotation *a, const struct hwp_code_loc *l, char *buf, size_t len)
{
	const struct hwp_annotate_func *f;
	const struct hwp_annotate_insn *in;
	size_t nf = hwp_annotation__functions(a, &f);

	hwp_annotation__insns(a, &in);
	for (size_t k = 0; k < nf; k++) {
		if (f[k].module != l->module || !f[k].n)
			continue;
		for (size_t i = f[k].first; i < f[k].first + f[k].n; i++)
			if (in[i].loc.module == l->module && l->offset >= in[i].loc.offset &&
			    l->offset < in[i].loc.offset + in[i].len) {
				snprintf(buf, len, "#a%zu-%" PRIx64, k, in[i].vaddr);
				return true;
			}
	}
	return false;
}
