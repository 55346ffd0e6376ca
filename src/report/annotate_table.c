/* SPDX-License-Identifier: MIT */
/*
 * hwprof annotate's views: the table model (one row per instruction, every
 * number in a column of its own: JSON and CSV) and the text view
 * (perf annotate --stdio's layout: source lines over their instructions,
 * the numbers after each instruction, hot lines coloured).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/annotate.h"
#include "hwprof/data_src.h"
#include "report/annotate_internal.h"
#include "report/report_internal.h"
#include "report/source_text.h"
#include "util/vec.h"

enum {
	A_FUNCTION, A_MODULE, A_ADDRESS, A_INSN, A_FILE, A_LINE, A_SAMPLES, A_SHARE, A_TOTAL_SHARE, A_KIND, A_TARGET,
	A_EXECUTIONS, A_TAKEN, A_TAKEN_LO, A_TAKEN_HI, A_MISPRED, A_TARGETS, A_BLOCK_EXECS, A_BLOCK_END, A_CYC_MEDIAN,
	A_CYC_P90, A_CYC_MODES, A_IPC, A_MEM_SAMPLES, A_MEM_LAT, A_MEM_P90, A_MEM_SOURCES, A_MEM_TYPE, A_MEM_OBJECT, A_NCOLS
};

static const struct hwp__report_column cols[A_NCOLS] = {
	[A_FUNCTION] = { "Function", "function", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_MODULE] = { "Shared Object", "module", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_ADDRESS] = { "Address", "address", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_INSN] = { "Instruction", "instruction", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_FILE] = { "File", "file", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_LINE] = { "Line", "line", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_SAMPLES] = { "Samples", "samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL }, /* of the function's */
	[A_TOTAL_SHARE] = { "Total share", "total_share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_KIND] = { "Kind", "kind", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_TARGET] = { "Target", "target", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_EXECUTIONS] = { "Executions", "executions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_TAKEN] = { "Taken", "taken_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_TAKEN_LO] = { "Taken low", "taken_low_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_TAKEN_HI] = { "Taken high", "taken_high_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_MISPRED] = { "Mispredicts/exec", "mispredicts_per_execution_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[A_TARGETS] = { "Targets", "targets", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_BLOCK_EXECS] = { "Block executions", "block_executions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_BLOCK_END] = { "Timed to", "block_timed_to", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_CYC_MEDIAN] = { "Median", "block_median_cycles", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_CYC_P90] = { "P90", "block_p90_cycles", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_CYC_MODES] = { "Modes", "block_modes", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_IPC] = { "IPC", "block_ipc", HWP_COL_REAL, HWP_SHOW_ALL },
	[A_MEM_SAMPLES] = { "Memory samples", "memory_samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[A_MEM_LAT] = { "Latency", "memory_mean_latency_cycles", HWP_COL_REAL, HWP_SHOW_ALL },
	[A_MEM_P90] = { "Latency p90", "memory_p90_latency_range", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_MEM_SOURCES] = { "Sources", "memory_sources", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_MEM_TYPE] = { "Data type", "memory_data_type", HWP_COL_TEXT, HWP_SHOW_ALL },
	[A_MEM_OBJECT] = { "Data object", "memory_data_object", HWP_COL_TEXT, HWP_SHOW_ALL },
};

static const char *const kind_names[] = { "", "cond", "jump", "ind_jump", "call", "ind_call", "ret" };

/* An indirect branch's top targets: "0x401230 70.0%, 0x401250 20.0%, +2". */
void hwp__annotate_targets_text(struct hwp_symbolizer *sym, const struct hwp_flow_indirect *ind, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t t = 0; t < ind->ntargets && t < 3 && used < len; t++) {
		char where[256];
		uint64_t vaddr = ind->targets[t].loc.offset;

		hwp_symbolizer__module_vaddr(sym, ind->targets[t].loc.module, ind->targets[t].loc.offset, &vaddr);
		hwp_loc__format_addr(sym, &ind->targets[t].loc, where, sizeof(where));
		used += (size_t)snprintf(buf + used, len - used, "%s%s %.1f%%", t ? ", " : "",
					 where + (where[0] == '[' ? 4 : 0), 100.0 * ind->targets[t].share);
	}
	if (ind->ntargets > 3 && used < len)
		snprintf(buf + used, len - used, ", +%zu", ind->ntargets - 3);
}

/* A memory group's data sources by share: "L1 60.0%, DRAM 40.0%". */
void hwp__annotate_sources_text(const struct hwp_mem_stats *st, char *buf, size_t len)
{
	size_t used = 0;
	bool done[HWP_MEM_SRC__COUNT] = { false };

	buf[0] = 0;
	for (int shown = 0; shown < 3 && used < len; shown++) {
		int best = -1;

		for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
			if (!done[s] && st->by_source[s] && (best < 0 || st->by_source[s] > st->by_source[best]))
				best = s;
		if (best < 0)
			break;
		done[best] = true;
		used += (size_t)snprintf(buf + used, len - used, "%s%s %.1f%%", shown ? ", " : "",
					 hwp_mem_source__name((enum hwp_mem_source)best),
					 100.0 * (double)st->by_source[best] / (double)st->samples);
	}
}

static double pct(double v)
{
	return isnan(v) ? v : 100.0 * v;
}

struct hwp_table *hwp_report__annotate(struct hwp_symbolizer *sym, const struct hwp_annotation *a)
{
	const struct hwp_annotate_func *f;
	const struct hwp_annotate_insn *in;
	size_t nf = hwp_annotation__functions(a, &f);
	uint64_t total = hwp_annotation__total_samples(a);
	struct hwp_table *t = hwp_table__new();
	char buf[512];

	const char *const *ev;
	const uint64_t *ev_total;
	size_t ne = hwp_annotation__events(a, &ev, &ev_total);

	hwp_annotation__insns(a, &in);
	if (!t || hwp__report_add_columns(t, cols, A_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	/* several events: each one's samples in a column of its own */
	for (size_t e = 0; e < ne; e++)
		if (hwp_table__add_column(t, ev[e], hwp__annotation_event_key(a, e), HWP_COL_COUNT) < 0) {
			hwp_table__delete(t);
			return NULL;
		}
	for (size_t k = 0; k < nf; k++)
		for (size_t i = f[k].first; i < f[k].first + f[k].n; i++) {
			const struct hwp_annotate_insn *x = &in[i];

			hwp_table__new_row(t);
			hwp_table__set_text(t, A_FUNCTION, f[k].name);
			hwp_table__set_text(t, A_MODULE, hwp_symbolizer__module_name(sym, f[k].module));
			snprintf(buf, sizeof(buf), "0x%" PRIx64, x->vaddr);
			hwp_table__set_text(t, A_ADDRESS, buf);
			snprintf(buf, sizeof(buf), "%s%s%s", x->mnemonic, x->operands[0] ? " " : "", x->operands);
			hwp_table__set_text(t, A_INSN, buf);
			if (x->file) {
				hwp_table__set_text(t, A_FILE, x->file);
				hwp_table__set_count(t, A_LINE, x->line);
			}
			hwp_table__set_count(t, A_SAMPLES, x->samples);
			hwp_table__set_real(t, A_SHARE,
					    f[k].samples ? 100.0 * (double)x->samples / (double)f[k].samples : 0);
			hwp_table__set_real(t, A_TOTAL_SHARE, total ? 100.0 * (double)x->samples / (double)total : 0);
			if (x->kind) {
				hwp_table__set_text(t, A_KIND, kind_names[x->kind]);
				if (x->has_target) {
					snprintf(buf, sizeof(buf), "0x%" PRIx64, x->target);
					hwp_table__set_text(t, A_TARGET, buf);
				}
			}
			if (x->cond) {
				hwp_table__set_count(t, A_EXECUTIONS, x->cond->executions);
				hwp__report_set_real(t, A_TAKEN, pct(x->cond->p_taken));
				hwp__report_set_real(t, A_TAKEN_LO, pct(x->cond->p_taken_lo));
				hwp__report_set_real(t, A_TAKEN_HI, pct(x->cond->p_taken_hi));
				hwp__report_set_real(t, A_MISPRED, pct(x->cond->mispred_per_exec));
			}
			if (x->indirect) {
				hwp__annotate_targets_text(sym, x->indirect, buf, sizeof(buf));
				hwp_table__set_text(t, A_TARGETS, buf);
			}
			if (x->block)
				hwp_table__set_count(t, A_BLOCK_EXECS, x->block->count);
			if (x->timing && x->timing->d.samples) {
				uint64_t end = x->timing->end.offset;

				hwp_symbolizer__module_vaddr(sym, x->timing->end.module, x->timing->end.offset, &end);
				snprintf(buf, sizeof(buf), "0x%" PRIx64, end);
				hwp_table__set_text(t, A_BLOCK_END, buf);
				hwp_table__set_count(t, A_CYC_MEDIAN, x->timing->d.median);
				hwp_table__set_count(t, A_CYC_P90, x->timing->d.p90);
				hwp__timing_modes_text(&x->timing->d, true, buf, sizeof(buf));
				hwp_table__set_text(t, A_CYC_MODES, buf);
				if (x->timing->insns)
					hwp_table__set_real(t, A_IPC, x->timing->ipc);
			}
			if (x->mem && x->mem->st.samples) {
				hwp_table__set_count(t, A_MEM_SAMPLES, x->mem->st.samples);
				hwp_table__set_real(t, A_MEM_LAT,
						    (double)x->mem->st.lat_sum / (double)x->mem->st.samples);
				hwp__annotate_sources_text(&x->mem->st, buf, sizeof(buf));
				hwp_table__set_text(t, A_MEM_SOURCES, buf);
				hwp__report_data_type_text(x->mem->data_type, x->mem->data_member,
							   x->mem->data_stack_op, buf, sizeof(buf));
				hwp_table__set_text(t, A_MEM_TYPE, buf);
				hwp__report_mem_p90(&x->mem->st, buf, sizeof(buf));
				hwp_table__set_text(t, A_MEM_P90, buf);
				hwp_table__set_text(t, A_MEM_OBJECT, x->mem->data_var);
			}
			for (size_t e = 0; e < ne && x->event_samples; e++)
				hwp_table__set_count(t, A_NCOLS + e, x->event_samples[e]);
		}
	return t;
}

/* ---- the text view ---- */

#define RED "\033[31m"
#define GREEN "\033[32m"
#define DIM "\033[2m"
#define OFF "\033[0m"

/* What the recording knows of X beyond its samples, one clause each. */
static void notes(struct hwp_symbolizer *sym, const struct hwp_annotate_insn *x, char *buf, size_t len)
{
	size_t used = 0;
	char more[256];

#define ADD(...) (used += used < len ? (size_t)snprintf(buf + used, len - used, __VA_ARGS__) : 0)
	buf[0] = 0;
	if (x->cond && x->cond->executions) {
		ADD("  %" PRIu64 " exec, taken %.1f%% [%.1f-%.1f]", x->cond->executions, 100 * x->cond->p_taken,
		    100 * x->cond->p_taken_lo, 100 * x->cond->p_taken_hi);
		if (!isnan(x->cond->mispred_per_exec))
			ADD(", mispredicted %.1f%%/exec", 100 * x->cond->mispred_per_exec);
	}
	if (x->indirect) {
		hwp__annotate_targets_text(sym, x->indirect, more, sizeof(more));
		ADD("  %" PRIu64 " taken to %s", x->indirect->count, more);
	}
	if (x->block && x->block->count)
		ADD("  | block %" PRIu64 " exec", x->block->count);
	if (x->timing && x->timing->d.samples) {
		ADD(", %u cycles median, p90 %u", x->timing->d.median, x->timing->d.p90);
		/* more than one mode: the block takes distinct paths (a miss, a
		   mispredict); each with its share */
		if (x->timing->d.nmodes > 1) {
			hwp__timing_modes_text(&x->timing->d, false, more, sizeof(more));
			ADD(", modes %s", more);
		}
		if (x->timing->insns)
			ADD(", IPC %.2f", x->timing->ipc);
	}
	if (x->mem && x->mem->st.samples) {
		hwp__annotate_sources_text(&x->mem->st, more, sizeof(more));
		char p90[32];

		hwp__report_mem_p90(&x->mem->st, p90, sizeof(p90));
		ADD("  | mem %" PRIu64 " samples, %.1f cycles mean, p90 %s, %s", x->mem->st.samples,
		    (double)x->mem->st.lat_sum / (double)x->mem->st.samples, p90, more);
		hwp__report_data_type_text(x->mem->data_type, x->mem->data_member, x->mem->data_stack_op, more,
					   sizeof(more));
		ADD(", type %s", more);
		if (x->mem->data_var) /* the object: the pointer, parameter or global it is reached through */
			ADD(" (%s)", x->mem->data_var);
	}
#undef ADD
}

/* Whether some instruction of IN[first, first + n) jumps to VADDR. */
static bool jumped_to(const struct hwp_annotate_insn *in, size_t first, size_t n, uint64_t vaddr)
{
	for (size_t i = first; i < first + n; i++)
		if (in[i].has_target && in[i].target == vaddr &&
		    (in[i].kind == HWP_ANNOTATE_COND || in[i].kind == HWP_ANNOTATE_JUMP))
			return true;
	return false;
}

int hwp_report__print_annotation(struct hwp_symbolizer *sym, const struct hwp_annotation *a,
				 const struct hwp_annotate_text_opts *o, FILE *out)
{
	const struct hwp_annotate_func *f;
	const struct hwp_annotate_insn *in;
	size_t nf = hwp_annotation__functions(a, &f);
	uint64_t total = hwp_annotation__total_samples(a);
	char note[1024];
	const char *const *ev;
	const uint64_t *ev_total;
	size_t ne = hwp_annotation__events(a, &ev, &ev_total);

	struct hwp__sources ss = { .prefix = o->prefix, .strip = o->prefix_strip };

	hwp_annotation__insns(a, &in);
	for (size_t k = 0; k < nf; k++) {
		const char *mod = hwp_symbolizer__module_name(sym, f[k].module);

		fprintf(out, "%s Function %s [%s] at 0x%" PRIx64 ", %" PRIu64 " bytes: %" PRIu64 " samples (%.2f%% of %" PRIu64
			")%s\n", k ? "\n" : "", f[k].name, mod ? mod : "?", f[k].vaddr, f[k].size, f[k].samples,
			total ? 100.0 * (double)f[k].samples / (double)total : 0, total, o->event_note ? o->event_note : "");
		if (f[k].decoded) {
			fprintf(out, "   (its code cannot be shown: %s)\n",
				f[k].decoded == -ENOENT ? "no binary found"
				: f[k].decoded == -ENOTSUP ? "no decoder for this machine"
							   : "not in an executable segment of the binary");
			continue;
		}
		if (ne) {
			/* several events: a share column each, numbered; the
			   legend names them with their samples here and in all */
			fprintf(out, "  Events:");
			for (size_t e = 0; e < ne; e++)
				fprintf(out, "%s [%zu] %s: %" PRIu64 " samples here (%.2f%% of %" PRIu64 ")", e ? ";" : "",
					e + 1, ev[e], f[k].event_samples[e],
					ev_total[e] ? 100.0 * (double)f[k].event_samples[e] / (double)ev_total[e] : 0,
					ev_total[e]);
			fprintf(out, "\n ");
			for (size_t e = 0; e < ne; e++) {
				char num[24];

				snprintf(num, sizeof(num), "[%zu]", e + 1);
				fprintf(out, "%9s", num);
			}
			fprintf(out, "  Address  Instruction\n");
		} else {
			fprintf(out, "  Samples   Share   Address  Instruction\n");
		}
		const char *last_file = NULL;
		unsigned last_line = 0;
		for (size_t i = f[k].first; i < f[k].first + f[k].n; i++) {
			const struct hwp_annotate_insn *x = &in[i];
			/* perf annotate's percent: of the function's samples */
			double share = f[k].samples ? 100.0 * (double)x->samples / (double)f[k].samples : 0;
			/* several events: each one's share of the function's samples
			   of that event; the hottest colours the line */
			for (size_t e = 0; e < ne && x->event_samples; e++) {
				double es = f[k].event_samples[e] ? 100.0 * (double)x->event_samples[e] /
									  (double)f[k].event_samples[e]
								  : 0;
				share = e ? (es > share ? es : share) : es;
			}
			const char *on = "", *off = "";
			char line[1600];
			int used;

			if (o->source && x->file && (x->line != last_line || !last_file || strcmp(x->file, last_file))) {
				size_t len = 0;
				const char *text = hwp__source_line(&ss, x->file, x->line, &len);
				const char *base = strrchr(x->file, '/');

				fprintf(out, "%s%29s%s:%u", o->color ? DIM : "", "", base ? base + 1 : x->file, x->line);
				if (text)
					fprintf(out, "  %.*s", (int)len, text);
				fprintf(out, "%s\n", o->color ? OFF : "");
				last_file = x->file;
				last_line = x->line;
			}
			if (o->color && share >= 5.0)
				on = RED, off = OFF;
			else if (o->color && share >= 0.5)
				on = GREEN, off = OFF;
			notes(sym, x, note, sizeof(note));
			const char *dir = !x->has_target || (x->kind != HWP_ANNOTATE_COND && x->kind != HWP_ANNOTATE_JUMP)
						  ? ""
					  : x->target > x->vaddr ? "v" : "^";
			used = snprintf(line, sizeof(line), " %c%8" PRIx64 ":  %-7s %-32s %s%s",
					jumped_to(in, f[k].first, f[k].n, x->vaddr) ? '>' : ' ', x->vaddr, x->mnemonic,
					x->operands, dir, note);
			while (used > 0 && (size_t)used < sizeof(line) && line[used - 1] == ' ')
				line[--used] = 0;
			if (ne && x->samples) {
				fprintf(out, "%s", on);
				for (size_t e = 0; e < ne; e++) {
					if (x->event_samples[e])
						fprintf(out, " %7.2f%%", 100.0 * (double)x->event_samples[e] /
									  (double)f[k].event_samples[e]);
					else
						fprintf(out, "%9s", "");
				}
				fprintf(out, "%s%s\n", off, line);
			} else if (ne) {
				fprintf(out, "%*s%s\n", (int)(9 * ne), "", line);
			} else if (x->samples) {
				fprintf(out, "%s%9" PRIu64 " %6.2f%%%s%s\n", on, x->samples, share, off, line);
			} else {
				fprintf(out, "%17s%s\n", "", line);
			}
		}
	}
	if (ss.missing && o->missing)
		*o->missing = ss.missing;
	hwp__sources_free(&ss);
	return ferror(out) ? -EIO : 0;
}

/* ---- per source line ---- */

enum { L_FILE, L_LINE, L_FUNCTION, L_SAMPLES, L_SHARE, L_INSNS, L_EXECS, L_MISPRED, L_MEM_SAMPLES, L_MEM_LAT, L_NCOLS };

static const struct hwp__report_column line_cols[L_NCOLS] = {
	[L_FILE] = { "File", "file", HWP_COL_TEXT, HWP_SHOW_ALL },
	[L_LINE] = { "Line", "line", HWP_COL_COUNT, HWP_SHOW_ALL },
	[L_FUNCTION] = { "Function", "function", HWP_COL_TEXT, HWP_SHOW_ALL },
	[L_SAMPLES] = { "Samples", "samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[L_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[L_INSNS] = { "Instructions", "instructions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[L_EXECS] = { "Branch executions", "branch_executions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[L_MISPRED] = { "Mispredicts", "mispredicts", HWP_COL_REAL, HWP_SHOW_ALL },
	[L_MEM_SAMPLES] = { "Memory samples", "memory_samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[L_MEM_LAT] = { "Latency", "memory_mean_latency_cycles", HWP_COL_REAL, HWP_SHOW_ALL },
};

struct line_sum {
	const char *file, *function;
	unsigned line;
	uint64_t samples, insns, execs, mem, lat;
	double mispred;
	size_t order;
};

static int by_line_samples(const void *a, const void *b)
{
	const struct line_sum *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct hwp_table *hwp_report__annotate_lines(const struct hwp_annotation *a)
{
	const struct hwp_annotate_func *f;
	const struct hwp_annotate_insn *in;
	size_t nf = hwp_annotation__functions(a, &f), n = 0, cap = 0;
	struct line_sum *v = NULL;
	uint64_t shown = 0;
	struct hwp_table *t = hwp_table__new();

	hwp_annotation__insns(a, &in);
	if (!t || hwp__report_add_columns(t, line_cols, L_NCOLS) < 0)
		goto fail;
	for (size_t k = 0; k < nf; k++) {
		shown += f[k].samples;
		for (size_t i = f[k].first; i < f[k].first + f[k].n; i++) {
			const struct hwp_annotate_insn *x = &in[i];
			struct line_sum *l = NULL;

			if (!x->file)
				continue;
			/* the lines of one function are few: a linear search */
			for (size_t j = n; j-- > 0 && v[j].function == f[k].name;)
				if (v[j].line == x->line && !strcmp(v[j].file, x->file)) {
					l = &v[j];
					break;
				}
			if (!l) {
				if (!(l = HWP_VEC_PUSH(v, n, cap)))
					goto fail;
				*l = (struct line_sum){ .file = x->file, .function = f[k].name, .line = x->line,
							.order = n - 1 };
			}
			l->samples += x->samples;
			l->insns++;
			if (x->cond) {
				l->execs += x->cond->executions;
				if (!isnan(x->cond->mispred_per_exec))
					l->mispred += x->cond->mispred_per_exec * (double)x->cond->executions;
			}
			if (x->mem) {
				l->mem += x->mem->st.samples;
				l->lat += x->mem->st.lat_sum;
			}
		}
	}
	hwp__sort(v, n, sizeof(*v), by_line_samples);
	for (size_t i = 0; i < n; i++) {
		hwp_table__new_row(t);
		hwp_table__set_text(t, L_FILE, v[i].file);
		hwp_table__set_count(t, L_LINE, v[i].line);
		hwp_table__set_text(t, L_FUNCTION, v[i].function);
		hwp_table__set_count(t, L_SAMPLES, v[i].samples);
		hwp_table__set_real(t, L_SHARE, shown ? 100.0 * (double)v[i].samples / (double)shown : 0);
		hwp_table__set_count(t, L_INSNS, v[i].insns);
		if (v[i].execs) {
			hwp_table__set_count(t, L_EXECS, v[i].execs);
			hwp_table__set_real(t, L_MISPRED, v[i].mispred);
		}
		if (v[i].mem) {
			hwp_table__set_count(t, L_MEM_SAMPLES, v[i].mem);
			hwp_table__set_real(t, L_MEM_LAT, (double)v[i].lat / (double)v[i].mem);
		}
	}
	free(v);
	return t;
fail:
	free(v);
	hwp_table__delete(t);
	return NULL;
}
