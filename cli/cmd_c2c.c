/* SPDX-License-Identifier: MIT */
/* hwprof c2c: contended cache lines (false and true sharing), one table. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/c2c.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/session.h"

static const struct cmd_desc desc = {
	.name = "c2c",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Cache lines shared between threads, from precise memory samples (perf c2c's\n"
		"shared data cache line table and its offsets, in one table): lines that saw\n"
		"a HITM (a load or store finding the line modified in another core's cache),\n"
		"or that more than one thread or CPU accessed with at least one store,\n"
		"ranked by HITMs, then stores, then samples. Under each line, one row per\n"
		"offset within the line and instruction touching it, loads against stores:\n"
		"two threads writing different offsets of one line is false sharing (pad\n"
		"or align the fields apart); one offset written by several is true sharing.\n",
};

struct c2c_opts {
	struct report_opts r;
	unsigned cache_line;
	uint64_t limit;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct c2c_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT_AS(&o->r, "perf.data (default: perf.data)"),
		OPT_CACHE_LINE(&o->cache_line),
		OPT_U64(0, "limit", &o->limit, "N", 1, UINT64_MAX, ": the number of rows must be a count of at least 1",
			"show only the first N lines (default: all)"),
		OPT_REPORT_OUTPUT(&o->r),
		OPT_COMMON(),
		OPT_END(),
	};

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->r);
	return parse_options(argc, argv, &desc, opts, NULL);
}

enum {
	C_RANK, C_ADDR, C_OBJECT, C_DMOD, C_DOFF, C_HITM, C_STORES, C_LOADS, C_SAMPLES, C_AVGLAT,
	C_THREADS, C_CPUS, C_OFFSET, C_CODE, C_LOC0
};

static struct hwp_table *c2c_table(struct hwp_mem_report *r, const struct hwp_c2c *c, uint64_t limit)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(hwp_mem_report__session(r));
	const struct hwp_c2c_line *lines;
	const struct hwp_c2c_access *acc = hwp_c2c__accesses(c);
	size_t n = hwp_c2c__lines(c, &lines);
	struct hwp_table *t = hwp_table__new();

	if (!t)
		return NULL;
	hwp_table__add_column(t, "#", "rank", HWP_COL_COUNT);
	hwp_table__add_column(t, "Cache line", "line_addr", HWP_COL_HEX);
	hwp_table__add_column(t, "Data object", "data_object", HWP_COL_TEXT);
	hwp_table__add_column_shown(t, "data_module", "data_module", HWP_COL_TEXT, HWP_SHOW_DATA);
	hwp_table__add_column_shown(t, "data_offset", "data_offset", HWP_COL_HEX, HWP_SHOW_DATA);
	hwp_table__add_column(t, "HITM", "hitm", HWP_COL_COUNT);
	hwp_table__add_column(t, "Stores", "stores", HWP_COL_COUNT);
	hwp_table__add_column(t, "Loads", "loads", HWP_COL_COUNT);
	hwp_table__add_column(t, "Samples", "samples", HWP_COL_COUNT);
	hwp_table__add_column(t, "Avg lat", "avg_latency", HWP_COL_REAL);
	hwp_table__add_column(t, "Threads", "threads", HWP_COL_COUNT);
	hwp_table__add_column(t, "CPUs", "cpus", HWP_COL_COUNT);
	hwp_table__add_column(t, "Offset", "line_offset", HWP_COL_HEX);
	hwp_table__add_column_shown(t, "Code", "code", HWP_COL_TEXT, HWP_SHOW_TEXT);
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	for (size_t i = 0; i < n && (!limit || i < limit); i++) {
		const struct hwp_c2c_line *l = &lines[i];
		const char *mod = l->data_module >= 0 && sym ? hwp_symbolizer__module_name(sym, l->data_module)
							     : NULL;
		char obj[512];

		if (mod)
			snprintf(obj, sizeof(obj), "%s+0x%" PRIx64, mod, l->data_offset);
		else
			snprintf(obj, sizeof(obj), "%s (pid %d)", l->region ? l->region : "unknown", (int)l->pid);
		/* the line */
		hwp_table__new_row(t);
		hwp_table__set_count(t, C_RANK, i + 1);
		hwp_table__set_count(t, C_ADDR, l->addr);
		hwp_table__set_text(t, C_OBJECT, obj);
		hwp_table__set_text(t, C_DMOD, mod);
		hwp_table__set_count(t, C_DOFF, l->data_offset);
		hwp_table__set_count(t, C_HITM, l->hitm);
		hwp_table__set_count(t, C_STORES, l->stores);
		hwp_table__set_count(t, C_LOADS, l->loads);
		hwp_table__set_count(t, C_SAMPLES, l->samples);
		hwp_table__set_real(t, C_AVGLAT, l->samples ? (double)l->lat_sum / (double)l->samples : 0);
		hwp_table__set_count(t, C_THREADS, l->nr_tids);
		hwp_table__set_count(t, C_CPUS, l->nr_cpus);
		/* its offsets and the code touching them */
		for (size_t k = l->first; k < l->first + l->nr; k++) {
			const struct hwp_c2c_access *x = &acc[k];
			char code[768], src[512];

			hwp_table__new_row(t);
			hwp_table__set_count(t, C_RANK, i + 1);
			hwp_table__set_count(t, C_HITM, x->hitm);
			hwp_table__set_count(t, C_STORES, x->stores);
			hwp_table__set_count(t, C_LOADS, x->loads);
			hwp_table__set_count(t, C_SAMPLES, x->samples);
			hwp_table__set_real(t, C_AVGLAT, x->samples ? (double)x->lat_sum / (double)x->samples : 0);
			hwp_table__set_count(t, C_THREADS, x->nr_tids);
			hwp_table__set_count(t, C_CPUS, x->nr_cpus);
			hwp_table__set_count(t, C_OFFSET, x->offset);
			hwp_loc__format_srcline(sym, &x->code, src, sizeof(src));
			if (x->symbol)
				snprintf(code, sizeof(code), "%s+0x%" PRIx64 " %s", x->symbol, x->sym_offset, src);
			else
				snprintf(code, sizeof(code), "%s", src);
			hwp_table__set_text(t, C_CODE, code);
			hwp_report__set_loc(t, C_LOC0, sym, &x->code);
		}
	}
	return t;
}

int cmd_c2c(int argc, char **argv)
{
	struct c2c_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o.r.symfs };
	size_t ninputs;
	const char *const *inputs = report_opts__inputs(&o.r, &ninputs);
	struct hwp_session *s = hwp_session__open_inputs(inputs, ninputs, &so);
	if (!s)
		return cli_error("%s", hwp_errmsg());
	struct hwp_mem_report_opts mo = { .sz = sizeof(mo), .cache_line = o.cache_line };
	struct hwp_mem_report *r = hwp_mem_report__new(s, &mo);
	struct hwp_c2c *c = NULL;
	struct hwp_table *t = NULL;

	if (!r || hwp_mem_report__read(r) < 0) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (hwp_mem_report__totals(r)->samples == 0) {
		rc = cli_error("%s: no memory samples (record with 'hwprof record --mem' or "
			       "'perf c2c record')", o.r.input);
	} else if (!(c = hwp_c2c__new(r)) || !(t = c2c_table(r, c, o.limit))) {
		rc = cli_error("%s", hwp_errmsg());
	} else {
		if (o.r.fmt == HWP_TABLE_TEXT) {
			const struct hwp_c2c_line *l;
			const struct hwp_mem_stats *st = hwp_mem_report__totals(r);
			printf("# %s: %" PRIu64 " memory samples (%" PRIu64 " loads, %" PRIu64 " stores), %"
			       PRIu64 " HITM; %" PRIu64 " cache lines, %zu shared between threads%s\n#\n",
			       o.r.input, st->samples, st->loads, st->stores, st->hitm,
			       hwp_c2c__nr_lines_seen(c), hwp_c2c__lines(c, &l),
			       hwp_mem_report__modelled(r) ? " (modelled: emulated recording)" : "");
			fflush(stdout);
		}
		rc = report_print_table(t, o.r.fmt);
	}
	hwp_table__delete(t);
	hwp_c2c__delete(c);
	hwp_mem_report__delete(r);
	hwp_session__delete(s);
	return rc;
}
