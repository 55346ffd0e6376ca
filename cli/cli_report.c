/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/hwprof.h"

int report_input__load(struct report_input *in, const char *input, const char *symfs,
		       unsigned split)
{
	struct hwp_symbolizer_opts so = { .sz = sizeof(so), .symfs = symfs };

	memset(in, 0, sizeof(*in));
	in->reader = cli_open_input(input);
	if (!in->reader)
		return 1;
	in->sym = hwp_symbolizer__new(&so);
	if (!in->sym)
		return cli_error("%s", hwp_errmsg());
	in->collector = hwp_branch_collector__new(in->sym, split, hwp_reader__header(in->reader));
	if (!in->collector)
		return cli_error("out of memory");
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
	const char *names[8];
	bool debug_only = false;
	size_t n = hwp_symbolizer__missing(in->sym, names, 8, &debug_only);
	char list[1024] = "";

	if (!n)
		return;
	for (size_t i = 0; i < n && i < 8; i++) {
		strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
	}
	cli_warn("%s %zu module%s: %s%s; rows fall back to module+offset. Supply them with --symfs DIR, or put them in the build-id cache ('perf buildid-cache -a FILE', or ~/.debug/.build-id/xx/rest, /usr/lib/debug/.build-id/xx/rest.debug)",
		 debug_only ? "no debug info (source lines) for" : "cannot find the binaries of", n,
		 n == 1 ? "" : "s", list, n > 8 ? ", ..." : "");
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
