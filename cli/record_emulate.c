/* SPDX-License-Identifier: MIT */
/*
 * hwprof record --emulate: branch stacks without a PMU. The program runs under
 * qemu-x86_64 with hwprof's TCG plugin; see src/capture/emulate.c and
 * src/emu/plugin.c, and docs/hwprof-record.md "Emulated recording".
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hwprof/capture.h"
#include "hwprof/emulate.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "record_opts.h"

/*
 * The progress line: elapsed time, samples and taken branches, on stderr
 * when it is a terminal, from the first second on, redrawn in place (\r)
 * four times a second and cleared when the workload ends. The counters are
 * the plugin's: samples written so far and their periods, so the
 * taken-branch count moves in steps of one period.
 */
struct progress_line {
	bool broken;  /* a write failed: draw no more */
	size_t shown; /* columns of the line on screen (0: none) */
};

/* Writes BUF (LEN bytes) to stderr; a failure stops the drawing. */
static void put(struct progress_line *pl, const char *buf, int len)
{
	if (len > 0 && write(STDERR_FILENO, buf, (size_t)len) < 0)
		pl->broken = true; /* the terminal went away */
}

static void progress(void *arg, const struct hwp_emu_progress *pr, double secs)
{
	struct progress_line *pl = arg;
	char line[160], buf[256];
	size_t n, pad;
	int len;

	if (!pr) { /* the end: clear the line */
		if (pl->shown) {
			n = pl->shown < sizeof(buf) - 3 ? pl->shown : sizeof(buf) - 3;
			buf[0] = '\r';
			memset(buf + 1, ' ', n);
			buf[n + 1] = '\r';
			put(pl, buf, (int)n + 2);
		}
		pl->shown = 0;
		return;
	}
	if (pl->broken || secs < 1.0) /* short recordings show nothing */
		return;
	if (pr->taken >= 1000000)
		snprintf(line, sizeof(line), "[ hwprof record: %.1f s, %llu samples, %.1f M taken branches ]",
			 secs, (unsigned long long)pr->samples, (double)pr->taken / 1e6);
	else
		snprintf(line, sizeof(line), "[ hwprof record: %.1f s, %llu samples, %llu taken branches ]",
			 secs, (unsigned long long)pr->samples, (unsigned long long)pr->taken);
	/* "\r" + LINE, blanking what is left of a longer line before */
	n = strlen(line);
	pad = pl->shown > n ? pl->shown - n : 0;
	len = snprintf(buf, sizeof(buf), "\r%s%*s", line, (int)pad, "");
	if (pad) /* back to the end of the text */
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, "\r%s", line);
	put(pl, buf, len);
	if (!pl->broken)
		pl->shown = n;
}

/* Options the emulation ignores or refuses; nonzero (the exit status) when it cannot run. */
static int emulate_check_opts(const struct record_opts *o)
{
	if (o->argc < 1 || !o->argv || !o->argv[0])
		return cli_error("record --emulate: no program to run (-- PROG ARGS)");
	if (o->freq)
		return cli_error("record --emulate: -F is not supported (there is no clock to "
				 "sample on); use -c N (taken branches per sample)");
	if (o->data_addr && !o->mem)
		cli_warn("record --emulate: -d ignored (data addresses come with --mem)");
	if (o->mem && (o->branch_any || o->branch_filter || o->call_graph || o->exact))
		return cli_error("record --emulate --mem: memory samples carry no branch stack "
				 "nor call chain (drop -b, -j, -g, --call-graph, --exact)");
	if (o->event)
		cli_warn("record --emulate: -e %s ignored: the emulated event counts taken branches "
			 "(branches:emulated)", o->event);
	if (o->call_graph && !strncmp(o->call_graph, "dwarf", 5))
		return cli_error("record --emulate: --call-graph %s: the emulation cannot copy registers and the "
				 "stack at a sample (QEMU's plugin interface reads neither before QEMU 9); "
				 "'hwprof record -e cpu-clock --call-graph dwarf' records them without a PMU, or "
				 "--call-graph lbr emulates call stacks", o->call_graph);
	if (o->call_graph && !o->callgraph_lbr && strcmp(o->call_graph, "fp") != 0)
		return cli_error("record --emulate: --call-graph %s: emulated call graphs are fp "
				 "(-g: the call chain, from a shadow call stack) or lbr", o->call_graph);
	if (o->no_inherit)
		cli_warn("record --emulate: -i ignored: child processes and threads are always "
			 "recorded");
	/* (-j's levels are checked before, --depth and --jitter when parsed) */
	return 0;
}

/* The library's options for O, writing OUT. */
static void emulate_opts(const struct record_opts *o, const char *out, struct hwp_emu_opts *eo)
{
	memset(eo, 0, sizeof(*eo));
	eo->sz = sizeof(*eo);
	eo->output = out;
	eo->period = o->period;
	eo->jitter = o->jitter;
	eo->seed = o->seed;
	eo->depth = o->depth > 0 ? (unsigned)o->depth : 0;
	eo->branch_filter = o->branch_filter;
	if (o->branch_any)
		eo->branch_filter |= HWP_BRANCH_ANY;
	if (o->callgraph_lbr)
		hwp_emu_opts__lbr_call_stack(eo);
	else if (o->call_graph) /* -g, --call-graph fp */
		eo->callchain = true;
	eo->exact = o->exact;
	if (o->mem)
		eo->mem_period = o->period ? o->period : HWP_EMU_DEFAULT_MEM_PERIOD;
	eo->argc = o->argc;
	eo->argv = o->argv;
}

/* What was written to OUT, and what is missing from it. */
static void emulate_summary(const struct record_opts *o, const char *out,
			    const struct hwp_emu_result *res)
{
	if (!cli_quiet()) /* perf record -q says nothing either */
		fprintf(stderr, o->mem ? "[ hwprof record: Captured and wrote %.3f MB %s (%llu "
			"memory samples, modelled cache) ]\n" : "[ hwprof record: Captured and wrote "
			"%.3f MB %s (%llu samples, %llu taken branches emulated) ]\n",
			(double)res->bytes / (1024.0 * 1024.0), out, (unsigned long long)res->samples,
			(unsigned long long)res->taken);
	if (o->mem && res->mem_accesses && !cli_quiet()) {
		/* the sample-period arithmetic: what the period predicts, against what came */
		uint64_t period = o->period ? o->period : HWP_EMU_DEFAULT_MEM_PERIOD;
		fprintf(stderr, "[ hwprof record: %llu loads and stores at period %llu: %.0f samples "
			"expected, %llu written, %llu lost ]\n", (unsigned long long)res->mem_accesses,
			(unsigned long long)period, hwp_mem_events__expected(res->mem_accesses, period),
			(unsigned long long)res->samples, (unsigned long long)res->lost);
	}
	if (!res->samples && o->mem) {
		cli_warn("%s has no samples: %s made fewer than %llu memory accesses per thread "
			 "(-c)", out, o->argv[0],
			 (unsigned long long)(o->period ? o->period : HWP_EMU_DEFAULT_MEM_PERIOD));
	} else if (!res->samples) {
		struct record_no_samples ns = { .emulated = true, .event = "branches:emulated",
			.events = res->taken, .period = o->period ? o->period : HWP_EMU_DEFAULT_PERIOD };
		record_warn_no_samples(o->argv[0], out, &ns);
	}
	if (res->lost)
		cli_warn("%llu samples lost (no space for the raw recording)",
			 (unsigned long long)res->lost);
	if (res->nr_execs)
		cli_warn("%llu exec%s under %s not followed (not an x86-64 executable or a script "
			 "for one, no path to open it by, or a set-user-ID or capability program): the "
			 "new image ran without recording", (unsigned long long)res->nr_execs,
			 res->nr_execs == 1 ? "" : "s", o->argv[0]);
	if (o->exact) {
		fprintf(stderr, "[ hwprof record: exact counts of %llu branch sites in %s ]\n",
			(unsigned long long)res->nr_sites, o->exact);
		if (res->stats_missing)
			cli_warn("%s: a process ended without writing its counts (killed): they are "
				 "missing", o->exact);
	}
}

/* Exit status: PROG's, as for the hardware path (a shell's 128 + N when
   a signal killed it). */
static int emulate_exit_status(const struct record_opts *o, const char *out,
			       const struct hwp_emu_result *res)
{
	if (res->term_signal) {
		cli_error("%s was killed by signal %d (%s); %s holds what was recorded until then",
			  o->argv[0], res->term_signal, strsignal(res->term_signal), out);
		return 128 + res->term_signal;
	}
	if (res->exited && res->exit_status) {
		cli_warn("%s exited with status %d", o->argv[0], res->exit_status);
		return res->exit_status;
	}
	return 0;
}

int record_emulate(const struct record_opts *o)
{
	struct hwp_emu_opts eo;
	struct hwp_emu_result res = { .sz = sizeof(res) };
	struct progress_line pl = { 0 };
	struct hwp_emu_run_opts ro = { .sz = sizeof(ro), .tick_ms = 250, .progress = progress, .arg = &pl };
	struct hwp_emu *s;
	const char *out = o->output ? o->output : "perf.data";
	int rc;

	rc = emulate_check_opts(o);
	if (rc)
		return rc;
	if (record_keep_old_output(out))
		return 1;
	emulate_opts(o, out, &eo);
	s = hwp_emu__new(&eo);
	if (!s)
		return cli_error("record --emulate: %s", hwp_errmsg());
	if (cli_quiet() || !isatty(STDERR_FILENO))
		ro.progress = NULL;
	if (hwp_emu__run(s, &ro, &res) < 0) {
		rc = cli_error("record --emulate: %s", hwp_errmsg());
	} else {
		emulate_summary(o, out, &res);
		rc = emulate_exit_status(o, out, &res);
	}
	hwp_emu__delete(s);
	return rc;
}
