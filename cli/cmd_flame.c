/* SPDX-License-Identifier: MIT */
/* hwprof flame: flame graphs of the call stacks (SVG, folded, differential). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "hwprof/flame.h"
#include "hwprof/hwprof.h"

static const char usage[] =
	"usage: hwprof flame [-i FILE] [-o FILE.svg] [--folded] [--period] [--title TEXT]\n"
	"                    [--width N] [--no-inline] [--stitch-lbr] [--symfs DIR]\n"
	"   or: hwprof flame --diff BEFORE AFTER [-o FILE.svg] [--folded] ...\n"
	"\n"
	"Flame graph of the sampled call stacks (perf record -g, --call-graph lbr, or\n"
	"emulated call-stack recordings): one self-contained SVG (hover a frame for its\n"
	"name, count and share; click to zoom, 'Reset Zoom' to go back; the search box\n"
	"takes a regular expression, highlights the matching frames and shows their\n"
	"share), or folded stacks as flamegraph.pl and speedscope read them. Frames are\n"
	"functions, callers below callees; inlined functions are frames of their own.\n"
	"With --diff, widths are AFTER's counts and colours the change from BEFORE\n"
	"(scaled to AFTER's total): red grew, blue shrank; --folded then prints\n"
	"'stack BEFORE AFTER' lines as difffolded.pl does.\n"
	"\n"
	"  -i, --input FILE     perf.data or perf script text (default: perf.data)\n"
	"  -o, --output FILE    write to FILE (default: standard output)\n"
	"      --folded         folded stacks instead of the SVG\n"
	"      --diff           two inputs, BEFORE and AFTER: a differential graph\n"
	"      --period         count the event's period, not samples\n"
	"      --title TEXT     the SVG's title\n"
	"      --width N        the SVG's width in pixels (default: 1200)\n"
	"      --no-inline      no inlined frames\n"
	"      --stitch-lbr     LBR call stacks continued from the thread's earlier\n"
	"                       samples, as perf report --stitch-lbr\n"
	"      --symfs DIR      look for binaries under DIR\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

enum { OPT_FOLDED = 256, OPT_DIFF, OPT_PERIOD, OPT_TITLE, OPT_WIDTH, OPT_NO_INLINE, OPT_SYMFS, OPT_STITCH };

struct flame_opts {
	const char *input, *output, *title, *symfs;
	bool folded, diff, period, no_inline, stitch_lbr;
	unsigned width;
};

static int add_input(struct hwp_flame *f, enum hwp_flame_side side, const char *path, const struct flame_opts *o)
{
	struct cg_input in;
	int rc = cg_input__load(&in, "flame", &path, 1, o->symfs, o->no_inline, o->stitch_lbr);

	if (!rc && hwp_flame__add_call_graph(f, side, in.cg, in.session, o->period) < 0)
		rc = cli_error("%s: %s", path, hwp_errmsg());
	if (!rc)
		cg_input__warn_missing(&in);
	cg_input__close(&in);
	return rc;
}

static int parse(int argc, char **argv, struct flame_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "period", no_argument, NULL, OPT_PERIOD },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "stitch-lbr", no_argument, NULL, OPT_STITCH },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "help", no_argument, NULL, 'h' },
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;

	memset(o, 0, sizeof(*o));
	o->input = "perf.data";
	while ((c = getopt_long(argc, argv, "i:o:vqh", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'o': o->output = optarg; break;
		case OPT_FOLDED: o->folded = true; break;
		case OPT_DIFF: o->diff = true; break;
		case OPT_PERIOD: o->period = true; break;
		case OPT_TITLE: o->title = optarg; break;
		case OPT_NO_INLINE: o->no_inline = true; break;
		case OPT_STITCH: o->stitch_lbr = true; break;
		case OPT_SYMFS: o->symfs = optarg; break;
		case OPT_WIDTH:
			errno = 0;
			unsigned long w = strtoul(optarg, &end, 10);
			if (*optarg == '-' || end == optarg || *end || errno || w < 100 || w > 100000)
				return cli_error("flame: --width '%s': pixels from 100 to 100000", optarg);
			o->width = (unsigned)w;
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (o->diff && argc - optind != 2)
		return cli_error("flame: --diff takes two recordings, BEFORE and AFTER");
	if (!o->diff && optind < argc)
		return cli_error("flame: unexpected argument '%s'", argv[optind]);
	return -1;
}

int cmd_flame(int argc, char **argv)
{
	struct flame_opts o;
	struct hwp_flame *f;
	FILE *fp = stdout;
	int rc;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	if ((rc = parse(argc, argv, &o)) >= 0)
		return rc;
	if (!(f = hwp_flame__new()))
		return cli_error("%s", hwp_errmsg());
	if (o.diff)
		rc = add_input(f, HWP_FLAME_BEFORE, argv[optind], &o) ||
		     add_input(f, HWP_FLAME_AFTER, argv[optind + 1], &o);
	else
		rc = add_input(f, HWP_FLAME_AFTER, o.input, &o);
	if (!rc && o.output && strcmp(o.output, "-") && !(fp = fopen(o.output, "w")))
		rc = cli_error("%s: cannot write: %s", o.output, strerror(errno));
	if (!rc) {
		char sub[1024];
		snprintf(sub, sizeof(sub), o.diff ? "%s -> %s" : "%s", o.diff ? argv[optind] : o.input,
			 o.diff ? argv[optind + 1] : "");
		struct hwp_flame_svg_opts so = { .sz = sizeof(so), .title = o.title, .subtitle = sub,
						 .unit = o.period ? "period" : "samples", .width = o.width };
		if ((o.folded ? hwp_flame__write_folded(f, fp) : hwp_flame__write_svg(f, fp, &so)) < 0)
			rc = cli_error("%s: %s", o.output ? o.output : "stdout", hwp_errmsg());
	}
	if (fp && fp != stdout && fclose(fp) && !rc)
		rc = cli_error("%s: %s", o.output, strerror(errno));
	hwp_flame__delete(f);
	return rc;
}
