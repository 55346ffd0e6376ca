/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/hwprof.h"

void report_opts__init(struct report_opts *o)
{
	o->input = "perf.data";
	o->symfs = NULL;
	o->fmt = HWP_TABLE_TEXT;
}

bool report_opts__take(struct report_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'i':
		o->input = arg;
		return true;
	case 'S':
		o->symfs = arg;
		return true;
	case 'j':
		o->fmt = HWP_TABLE_JSON;
		return true;
	case 'c':
		o->fmt = HWP_TABLE_CSV;
		return true;
	default:
		return false;
	}
}

int report_input__load_branches(struct report_input *in, const struct report_opts *o,
				unsigned split, bool for_mispredicts)
{
	int rc = report_input__load(in, o->input, o->symfs, split, for_mispredicts);

	if (rc)
		return rc;
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(in->collector);
	if (st->branch_samples == 0)
		return cli_error("%s: no samples with branch stacks%s (record with 'perf record -b' or 'hwprof record --emulate')",
				 o->input, st->call_stack_mode ? " (only LBR call-stack samples, which are callchains)" : "");
	return 0;
}

int report_input__load(struct report_input *in, const char *input, const char *symfs,
		       unsigned split, bool for_mispredicts)
{
	struct hwp_symbolizer_opts so = { .sz = sizeof(so), .symfs = symfs };

	memset(in, 0, sizeof(*in));
	in->reader = cli_open_input(input);
	if (!in->reader)
		return 1;
	in->sym = hwp_symbolizer__new(&so);
	if (!in->sym)
		return cli_error("%s", hwp_errmsg());
	/* The recording's kernel, not this machine's, names kernel addresses. */
	const struct hwp_header_info *h = hwp_reader__header(in->reader);
	for (size_t i = 0; i < h->nr_build_ids; i++)
		if (!strcmp(h->build_ids[i].filename, "[kernel.kallsyms]"))
			hwp_symbolizer__set_kernel_build_id(in->sym, h->build_ids[i].id, h->build_ids[i].size);
	in->collector = hwp_branch_collector__new(in->sym, split, h);
	if (!in->collector)
		return cli_error("out of memory");
	if (for_mispredicts)
		hwp_branch_collector__drop_meaningless_prediction(in->collector);
	if (hwp_branch_collector__read(in->collector, in->reader) < 0)
		return cli_error("%s", hwp_errmsg());
	return 0;
}

void report_input__close(struct report_input *in)
{
	hwp_branch_collector__delete(in->collector);
	hwp_symbolizer__delete(in->sym);
	hwp_reader__delete(in->reader);
	memset(in, 0, sizeof(*in));
}

void report_input__warn_missing(struct report_input *in)
{
	char line[2048];

	if (hwp_symbolizer__missing_warning(in->sym, line, sizeof(line)))
		cli_warn("%s", line);
}

int report_print_table(const struct hwp_table *t, enum hwp_table_format f)
{
	struct hwp_outbuf out;

	if (hwp_outbuf__init(&out, stdout) < 0)
		return cli_error("out of memory");
	hwp_table__render(t, f, &out);
	int err = hwp_outbuf__finish(&out);
	return err ? cli_error("error writing output: %s", hwp_strerror(err)) : 0;
}
