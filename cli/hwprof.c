/* SPDX-License-Identifier: MIT */
/* hwprof: the command table. Each command lives in its own cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "hwprof/hwprof.h"

static const struct hwp_cmd commands[] = {
	{ "script", cmd_script, "print samples as 'perf script -F ip,brstack' (or memory fields) does, or --json" },
	{ "info", cmd_info, "header, events, record counts, branch-stack depth and fields, lost samples" },
	{ "branches", cmd_branches, "hot branches by symbol, source line, module, type, mispredict, cycles" },
	{ "mispredicts", cmd_mispredicts, "branches ranked by mispredicts, with rate and 95% interval" },
	{ "probs", cmd_probs, "conditional branches: executions, taken probability, hot direction; --indirect targets" },
	{ "blocks", cmd_blocks, "basic blocks with execution counts, instructions and source lines" },
	{ "annotate", cmd_annotate, "one function's code with samples, branch, block and memory numbers per instruction" },
	{ "paths", cmd_paths, "hot paths: blocks executed in sequence within a function" },
	{ "timing", cmd_timing, "basic-block latency: cycles per block, modes, loops, IPC; --svg chart" },
	{ "callgraph", cmd_callgraph, "children and self per function from call stacks, as perf report --children" },
	{ "flame", cmd_flame, "flame graph of the call stacks: interactive SVG, folded stacks, --diff" },
	{ "ranges", cmd_ranges, "fall-through ranges between branch records; AutoFDO/llvm-profgen text" },
	{ "advise", cmd_advise, "findings with evidence: biased and mispredicted branches, monomorphic calls, layout" },
	{ "report", cmd_report, "one self-contained HTML page of every report (--html FILE), or of a comparison" },
	{ "diff", cmd_diff, "what changed between two recordings: branch probabilities, block and function shares" },
	{ "pgo", cmd_pgo, "profiles for PGO tools: BOLT fdata and pre-aggregated text, AutoFDO text" },
	{ "export", cmd_export, "aggregates as TSV/CSV/JSON rows keyed by build-id and offset, or pprof" },
	{ "push", cmd_push, "send export rows to ClickHouse, batched through a local spool" },
	{ "fleet", cmd_fleet, "ClickHouse tables; branches, probs, mispredicts over every host's rows" },
	{ "mem", cmd_mem, "precise memory samples: load latency histogram, data sources, per symbol/line/address/object" },
	{ "c2c", cmd_c2c, "cache lines shared between threads: HITM, offsets, loads vs stores, code lines" },
	{ "skid", cmd_skid, "precise vs non-precise event: per-line attribution and the skid distribution" },
	{ "check", cmd_check, "what this machine can record (PMUs, LBR, permissions) and why not" },
	{ "record", cmd_record, "record branch stacks or memory samples: on the PMU, or emulated with --emulate" },
};

static void usage(FILE *fp)
{
	int width = 0;

	/* one column for every description, however long the longest name */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if ((int)strlen(commands[i].name) > width)
			width = (int)strlen(commands[i].name);
	fprintf(fp, "usage: hwprof [-V | --version] [-h | --help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-*s  %s\n", width, commands[i].name, commands[i].summary);
	fprintf(fp, "\n'hwprof COMMAND --help' describes a command's options.\n"
		    "Input is perf.data (file or pipe mode, zstd-compressed or not) or\n"
		    "'perf script -F ip,brstack' text.\n");
}

int main(int argc, char **argv)
{
	cli_install_log();
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	/* -V as perf's and git's --version shorthand */
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		printf("hwprof %s\n", hwp_version());
		return cli_finish_stdout(0);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char *help_argv[] = { argv[2], "--help", NULL };
			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (strcmp(commands[i].name, argv[2]) == 0)
					return commands[i].run(2, help_argv);
		}
		usage(stdout);
		return cli_finish_stdout(0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, argv[1]) == 0)
			return cli_finish_stdout(commands[i].run(argc - 1, argv + 1));
	cli_error("'%s' is not a hwprof command; see 'hwprof --help'", argv[1]);
	return 1;
}
