/* SPDX-License-Identifier: MIT */
/*
 * hwprof record: branch stacks and samples on the PMU (perf_event_open), or
 * emulated with --emulate (cli/record_emulate.c). Options are perf record's,
 * and the perf_event_attr is the one perf 6.1 builds for the same command
 * line (--print-attr shows it as `perf record -vv` does).
 */
#include <errno.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "cli.h"
#include "parse_options.h"
#include "hwprof/capture.h"
#include "hwprof/hwprof.h"
#include "hwprof/record_setup.h"
#include "record_opts.h"

static const struct cmd_desc desc = {
	.name = "record",
	.args = "-- PROG [ARGS]",
	.flags = CMD_STOP | CMD_ARGS,
	.tail = "Exit status: PROG's, once recorded; 1 when recording failed.\n",
};

static int parse_u64(const char *opt, const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return cli_error("record: %s: '%s' is not a positive number", opt, s ? s : "");
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || *end)
		return cli_error("record: %s: '%s' is not a positive number", opt, s);
	return 0;
}

/* --call-graph MODE (perf's syntax), into AO */
static int parse_callgraph(const char *s, struct hwp_attr_opts *ao)
{
	return hwp_attr_opts__set_callgraph(ao, s) < 0 ? cli_error("record: --call-graph %s", hwp_errmsg()) : 0;
}

/* One line that says why an event could not be opened, and what to do. */
static int explain_open_failure(const struct hwp_attr *a, const struct hwp_record_result *res)
{
	struct hwp_open_failure f;

	if (hwp_record__explain_open(a, res, &f) < 0)
		return cli_error("record: %s", hwp_errmsg());
	switch (f.kind) {
	case HWP_OPEN_FAILURE_PERMISSION:
		return cli_error("record: %s: permission denied: kernel.perf_event_paranoid=%d (%s)%s; "
				 "see 'hwprof check'", res->event_name, f.paranoid, f.paranoid_meaning,
				 f.kernel_branches ? "; kernel branches (-j ...,k) need CAP_PERFMON or a level <= 1"
						   : "");
	case HWP_OPEN_FAILURE_SW_BRANCHES:
		return cli_error("record: %s: software events have no branch stacks: sample a "
				 "hardware event (-e cycles) with -b/-j", res->event_name);
	case HWP_OPEN_FAILURE_NO_BRANCHES:
		return cli_error("record: no branch records on this machine: %s; see 'hwprof check', "
				 "or record emulated branch stacks with 'hwprof record --emulate'", f.why);
	case HWP_OPEN_FAILURE_BRANCH_FILTER:
		return cli_error("record: %s with branch_sample_type 0x%" PRIx64 ": %s (this PMU "
				 "may not support that filter; see 'hwprof check')",
				 res->event_name, a->branch_sample_type, strerror(res->open_errno));
	case HWP_OPEN_FAILURE_NO_HW_PMU:
		return cli_error("record: cannot open %s: %s; software events (-e cpu-clock) work, and "
				 "'hwprof record --emulate' records emulated branch stacks",
				 res->event_name, f.why);
	default:
		return cli_error("record: %s", hwp_errmsg());
	}
}

/* The library's attr options for O; nonzero (the exit status) when they conflict. */
static int record_attr_opts(const struct record_opts *o, struct hwp_attr_opts *ao)
{
	ao->event = o->event;
	ao->period = o->period;
	ao->freq = o->freq_max ? 0 : o->freq;
	ao->freq_max = o->freq_max;
	ao->branch_sample_type = o->branch_any ? HWP_BRANCH_ANY : o->branch_filter;
	if (o->call_graph && parse_callgraph(o->call_graph, ao))
		return 1;
	ao->data_addr = o->data_addr;
	ao->weight = o->weight;
	ao->phys_data = o->phys_data;
	ao->data_page_size = o->data_page_size;
	ao->per_thread = o->per_thread;
	ao->no_inherit = o->no_inherit;
	return 0;
}

/*
 * --mem: `perf mem record`'s events for this CPU (-W -d and the vendor's
 * precise memory event), put in AO; *MEM gets what was chosen. $HWPROF_SYSFS
 * replaces /sys (tests give a PMU this machine lacks).
 */
static int record_mem_event(const struct record_opts *o, struct hwp_attr_opts *ao,
			    struct hwp_mem_events *mem, char *ev, size_t evlen)
{
	if (o->event)
		return cli_error("record --mem: -e %s: --mem chooses the events itself", o->event);
	if (hwp_mem_events__choose(getenv("HWPROF_SYSFS"), o->ldlat, mem) < 0)
		return cli_error("record --mem: %s", hwp_errmsg());
	switch (mem->kind) {
	case HWP_MEM_PMU_INTEL:
		if (mem->stores[0])
			cli_warn("record --mem: %s recorded, not %s: hwprof record opens one event "
				 "('perf mem record' opens both)", mem->loads, mem->stores);
		break;
	case HWP_MEM_PMU_AMD_IBS:
		break;
	case HWP_MEM_PMU_ARM_SPE:
		return cli_error("record --mem: Arm SPE (%s) writes its samples to an AUX area, which "
				 "hwprof record does not read: use 'perf mem record'", mem->pmu);
	default:
		return cli_error("record --mem: %s; 'hwprof record --emulate --mem' records memory "
				 "samples through a modelled cache hierarchy", mem->why);
	}
	return hwp_mem_events__attr_opts(mem, ao, ev, evlen) < 0; /* the kinds above it records */
}

/* The perf_event_attr perf would build for O, into *arp (to free). */
static int record_build_attr(const struct record_opts *o, const struct hwp_capture_host *host,
			     struct hwp_attr_result **arp)
{
	struct hwp_attr_opts ao = { .sz = sizeof(ao) };
	struct hwp_attr_result *ar;
	struct hwp_mem_events mem = { .sz = sizeof(mem) };
	char mem_ev[64];

	if (record_attr_opts(o, &ao))
		return 1;
	if (o->mem && record_mem_event(o, &ao, &mem, mem_ev, sizeof(mem_ev)))
		return 1;
	ar = calloc(1, sizeof(*ar));
	if (!ar)
		return cli_error("out of memory");
	ar->sz = sizeof(*ar);
	if (hwp_attr__build(&ao, host, ar) < 0) {
		free(ar);
		return cli_error("record: %s", hwp_errmsg());
	}
	hwp_mem_events__apply(&mem, ar);
	for (unsigned i = 0; i < ar->nr_warnings; i++)
		cli_warn("%s", ar->warnings[i]);
	*arp = ar;
	return 0;
}

/* What a recording (not --print-attr) needs: a program, and a file to write. */
static int record_check_target(const struct record_opts *o)
{
	if (o->argc < 1)
		return cli_error("record: no program to run (hwprof record [OPTIONS] -- PROG [ARGS])");
	if (!strcmp(o->output, "-"))
		return cli_error("record: -o -: perf.data is written in file mode and needs a seekable "
				 "file, not a pipe");
	return 0;
}

/* CMDLINE feature: "hwprof record ..." (perf writes its own argv); NULL when out of memory. */
static const char **record_cmdline(int argc, char **argv)
{
	const char **cmdline = calloc((size_t)argc + 1, sizeof(*cmdline));

	if (cmdline) {
		cmdline[0] = "hwprof";
		for (int i = 0; i < argc; i++)
			cmdline[i + 1] = argv[i];
	}
	return cmdline;
}

/* Runs and records the program, Ctrl-C/TERM stopping it; the library's result. */
static int record_run(const struct record_opts *o, const struct hwp_attr_result *ar,
		      const struct hwp_capture_host *host, int argc, char **argv,
		      struct hwp_record_result *res)
{
	struct hwp_record_opts ro = { .sz = sizeof(ro) };
	const char **cmdline = record_cmdline(argc, argv);
	int rc;

	hwp_record_opts__set_attr(&ro, ar, host);
	ro.per_thread = o->per_thread;
	ro.mmap_pages = o->mmap_pages;
	ro.output = o->output;
	ro.argv = o->argv;
	if (cmdline) {
		ro.cmdline_argc = argc + 1;
		ro.cmdline_argv = cmdline;
	}
	rc = hwp_record__run_interruptible(&ro, res);
	free(cmdline);
	for (unsigned i = 0; i < res->nr_notes; i++)
		cli_warn("%s", res->notes[i]);
	return rc;
}

/* After a recording: what was written, what was lost; PROG's exit status. */
static int record_report(const struct record_opts *o, const struct hwp_record_result *res)
{
	if (!cli_quiet()) /* perf record -q says nothing either */
		fprintf(stderr, "[ hwprof record: Captured and wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
			(double)res->bytes / (1024.0 * 1024.0), o->output, res->samples);
	if (o->mem && res->samples && !hwp_attr__flag(&res->attr, HWP_ATTR_FREQ) && !cli_quiet())
		/* the sample-period arithmetic: each sample stands for PERIOD events */
		fprintf(stderr, "[ hwprof record: %" PRIu64 " samples at period %" PRIu64 " stand for about "
			"%" PRIu64 " %s ]\n", res->samples, res->attr.sample_period,
			res->samples * res->attr.sample_period,
			res->attr.config1 ? "loads over the latency threshold" : "memory operations");
	if (!res->samples) {
		bool freq = hwp_attr__flag(&res->attr, HWP_ATTR_FREQ);
		struct record_no_samples ns = {
			.event = res->event_name,
			.period = freq ? 0 : res->attr.sample_period,
			.freq = freq ? res->attr.sample_period : 0,
		};
		record_warn_no_samples(o->argv[0], o->output, &ns);
	}
	if (res->lost_records || res->lost_samples)
		cli_warn("%" PRIu64 " samples lost (%" PRIu64 " dropped by the kernel): use a bigger ring "
			 "buffer (-m) or a lower rate (-F/-c)", res->lost_records, res->lost_samples);
	if (WIFSIGNALED(res->wait_status)) {
		cli_warn("%s was killed by signal %d (%s); %s holds what was recorded until then",
			 o->argv[0], WTERMSIG(res->wait_status), strsignal(WTERMSIG(res->wait_status)),
			 o->output);
		return 128 + WTERMSIG(res->wait_status);
	}
	return WIFEXITED(res->wait_status) ? WEXITSTATUS(res->wait_status) : 0;
}

/*
 * -j k (privilege levels alone) is perf 6.1's "any branch", and the levels
 * are dropped: the branch stacks follow the event's levels (cycles: user and
 * kernel). hwprof builds the same attr, and says so, as perf does not.
 */
static void warn_dropped_levels(const struct record_opts *o)
{
	uint64_t dropped = o->branch_levels & ~o->branch_filter;
	char names[64], mods[8];

	if (!dropped)
		return;
	hwp_branch_filter__level_names(dropped, names, sizeof(names), mods, sizeof(mods));
	cli_warn("record: -j %s names only privilege levels, which perf 6.1 then drops: the branch "
		 "stack records any branch at the event's levels (for %s branches only, add a branch "
		 "type: -j any,%s, or give the event's levels: -e EVENT:%s)",
		 o->branch_filter_str, names, o->branch_filter_str, mods);
}

static int record_hw(const struct record_opts *o, int argc, char **argv)
{
	struct hwp_capture_host host;
	struct hwp_attr_result *ar = NULL;
	struct hwp_record_result res = { .sz = sizeof(res) };
	int rc;

	if (hwp_capture_host__detect(NULL, &host) < 0)
		return cli_error("record: %s", hwp_errmsg());
	rc = record_build_attr(o, &host, &ar);
	if (rc)
		return rc;
	warn_dropped_levels(o);
	if (o->print_attr) {
		char buf[4096];

		hwp_attr__format_perf(&ar->attr, buf, sizeof(buf));
		fputs(buf, stdout);
		goto out;
	}
	rc = record_check_target(o);
	if (!rc)
		rc = record_keep_old_output(o->output);
	if (rc)
		goto out;
	if (record_run(o, ar, &host, argc, argv, &res) < 0) {
		if (res.phase == HWP_RECORD_PHASE_OPEN)
			rc = explain_open_failure(&ar->attr, &res);
		else
			rc = cli_error("record: %s", hwp_errmsg());
		goto out;
	}
	rc = record_report(o, &res);
out:
	free(ar);
	return rc;
}

/* -F N|max */
static int parse_freq(const char *cmd, const struct opt *opt, const char *arg)
{
	struct record_opts *o = opt->value;

	(void)cmd;
	if (!strcasecmp(arg, "max")) {
		struct hwp_capture_host h;

		/* perf resolves max to perf_event_max_sample_rate */
		o->freq_max = true;
		o->freq = hwp_capture_host__detect(NULL, &h) == 0 && h.max_sample_rate
				  ? h.max_sample_rate : 1;
		return 0;
	}
	if (parse_u64("-F", arg, &o->freq))
		return 1;
	if (!o->freq)
		return cli_error("record: -F 0: frequency and count are zero");
	return 0;
}

/* -b, -j F,..: perf's one option, given once */
static int parse_branch(const char *cmd, const struct opt *opt, const char *arg)
{
	struct record_opts *o = opt->value;

	(void)cmd;
	if (o->branch_any || o->branch_filter)
		return cli_error("record: can't use --branch-any (-b) with --branch-filter "
				 "(-j), or either twice");
	if (opt->short_name == 'b') {
		o->branch_any = true;
		return 0;
	}
	if (hwp_branch_filter__parse_levels(arg, &o->branch_filter, &o->branch_levels) < 0)
		return cli_error("record: -j: %s", hwp_errmsg());
	o->branch_filter_str = arg;
	return 0;
}

/* -e (once), -g and --call-graph MODE (the last given) */
static int parse_event_or_graph(const char *cmd, const struct opt *opt, const char *arg)
{
	struct record_opts *o = opt->value;

	(void)cmd;
	if (opt->short_name == 'e') {
		if (o->event)
			return cli_error("record: one event at a time (-e given twice)");
		o->event = arg;
		return 0;
	}
	o->call_graph = arg ? arg : "fp";
	o->callgraph_lbr = !strcmp(o->call_graph, "lbr");
	return 0;
}

/* A count, range-checked (and hex with 0x): V's type is T. */
#define OPT_REC_COUNT(T, kind_, s_, l, v, a, lo, hi, fl, e, h) \
	{ .kind = (kind_), .short_name = (s_), .long_name = (l), .value = OPT_PTR(T, v), .argh = (a), \
	  .umin = (lo), .umax = (hi), .flags = OPT_HEX | (fl), .err = (e), .help = (h) }

/* Fills O from the command line; -1 to go on, else the exit status. */
static int record_parse_opts(int argc, char **argv, struct record_opts *o)
{
	const struct opt opts[] = {
		OPT_STRING('o', "output", &o->output, "FILE",
			   "output file (default perf.data); one already there becomes FILE.old, as in perf"),
		{ .kind = OPT_KIND_CALLBACK, .short_name = 'e', .long_name = "event", .value = o, .argh = "EVENT",
		  .cb = parse_event_or_graph, .values = "cycles instructions branches cpu-clock task-clock",
		  .help = "cycles (default), instructions, branches, cpu-clock, task-clock, ..., rNNNN raw codes, "
			  "libpfm4 names (br_inst_retired.near_taken, mem_load_retired.l3_miss); modifiers :u :k "
			  ":h :p :pp :ppp :P :G :H :I" },
		OPT_REC_COUNT(uint64_t, OPT_KIND_U64, 'c', "count", &o->period, "N", 1, UINT64_MAX, 0,
			      ": the sample period is a count of at least 1", "sample every N events"),
		OPT_CALLBACK('F', "freq", o, "N|max", parse_freq, "sample N times a second (default 4000)"),
		OPT_CALLBACK('b', "branch-any", o, NULL, parse_branch, "branch stack of any taken branch (-j any)"),
		{ .kind = OPT_KIND_CALLBACK, .short_name = 'j', .long_name = "branch-filter", .value = o, .argh = "F,..",
		  .cb = parse_branch,
		  .values = "any any_call any_ret ind_call ind_jmp call cond abort_tx in_tx no_tx save_type stack "
			    "priv u k hv no_flags no_cycles hw_index counter",
		  .help = "branch stack filtered: any, any_call, any_ret, ind_call, ind_jmp, call, cond, abort_tx, "
			  "in_tx, no_tx, save_type, stack (call_stack), priv, u, k, hv; hwprof also takes no_flags, "
			  "no_cycles, hw_index, counter (levels alone, as -j k, mean any branch at the event's "
			  "levels, as in perf: write -j any,k for kernel only)" },
		OPT_CALLBACK('g', NULL, o, NULL, parse_event_or_graph, "call graphs (frame pointers)"),
		{ .kind = OPT_KIND_CALLBACK, .long_name = "call-graph", .value = o, .argh = "MODE",
		  .cb = parse_event_or_graph, .values = "fp dwarf lbr",
		  .help = "fp, dwarf[,SIZE] or lbr (LBR call stacks)" },
		OPT_BOOL('d', "data", &o->data_addr, "sample data addresses (and data sources)"),
		OPT_BOOL('W', "weight", &o->weight, "sample the weight (load latency: WEIGHT_STRUCT on x86)"),
		OPT_BOOL(0, "phys-data", &o->phys_data, "sample physical data addresses"),
		OPT_BOOL(0, "data-page-size", &o->data_page_size, "sample the data page size"),
		OPT_BOOL(0, "per-thread", &o->per_thread,
			 "one ring buffer for the task instead of one per CPU (no inheritance, as in perf)"),
		OPT_BOOL('i', "no-inherit", &o->no_inherit, "child tasks do not inherit the event"),
		OPT_REC_COUNT(unsigned, OPT_KIND_UINT, 'm', "mmap-pages", &o->mmap_pages, "N", 1, 1u << 20, OPT_POW2,
			      ": ring-buffer pages must be a power of 2 (1..1048576)",
			      "ring-buffer data pages per buffer (power of 2)"),
		OPT_BOOL(0, "print-attr", &o->print_attr,
			 "print the perf_event_attr as 'perf record -vv' does, record nothing"),
		OPT_BOOL(0, "mem", &o->mem,
			 "precise memory samples: loads and stores with data address, latency and data source "
			 "(the CPU's events: mem-loads,ldlat=N + mem-stores on Intel, ibs_op// on AMD, arm_spe "
			 "on Arm); with --emulate: every Nth (-c) load or store through a modelled cache "
			 "hierarchy"),
		OPT_REC_COUNT(unsigned, OPT_KIND_UINT, 0, "ldlat", &o->ldlat, "N", 1, 65535, 0,
			      ": a latency in cycles from 1 to 65535",
			      "--mem: load-latency threshold in cycles (default 30)"),
		OPT_BOOL(0, "emulate", &o->emulate, "emulated branch stacks, no PMU needed (QEMU TCG)"),
		OPT_REC_COUNT(int, OPT_KIND_INT, 0, "depth", &o->depth, "N", 8, 64, OPT_POW2, ": 8, 16, 32 or 64",
			      "--emulate: stack depth (8, 16, 32, 64)"),
		OPT_REC_COUNT(unsigned, OPT_KIND_UINT, 0, "jitter", &o->jitter, "PCT", 0, 100, 0,
			      ": a percentage (0..100)", "--emulate: period jitter, percent"),
		OPT_REC_COUNT(uint64_t, OPT_KIND_U64, 0, "seed", &o->seed, "N", 1, UINT64_MAX, 0,
			      ": a number from 1", "--emulate: start the jitter's random draws from N "
			      "(the same program and options record the same samples again)"),
		OPT_STRING(0, "exact", &o->exact, "FILE",
			   "--emulate: exact per-branch counts (ground truth) (--emulate -j any,no_flags,no_cycles "
			"runs faster: no predictor nor cost model, no mispredicts, cycles)"),
		OPT_COMMON(),
		OPT_END(),
	};
	struct cmd_args a;
	int rc;

	memset(o, 0, sizeof(*o));
	o->output = "perf.data";
	if ((rc = parse_options(argc, argv, &desc, opts, &a)) >= 0)
		return rc;
	o->argc = a.n;
	o->argv = a.v;
	return -1;
}

/* Checks across options, for both paths; nonzero (the exit status) on a conflict. */
static int record_check_opts(const struct record_opts *o)
{
	if (o->period && o->freq)
		return cli_error("record: cannot set frequency (-F) and period (-c) at the same time");
	/* kernel or hypervisor branches without user ones, even when perf's
	   rule drops the levels (-j k): the emulation has none to record */
	if (o->emulate && (o->branch_levels & (HWP_BRANCH_KERNEL | HWP_BRANCH_HV)) &&
	    !(o->branch_levels & HWP_BRANCH_USER))
		return cli_error("record --emulate: -j %s: emulation records user-space branches only "
				 "(add 'u' to -j)", o->branch_filter_str);
	if (!o->emulate && (o->jitter || o->seed || o->depth || o->exact))
		return cli_error("record: --%s is an option of --emulate (the hardware's own periods, "
				 "stack depth and counts are used without it)",
				 o->jitter ? "jitter" : o->seed ? "seed" : o->depth ? "depth" : "exact");
	if (o->seed && !o->jitter)
		cli_warn("record --emulate: --seed without --jitter: every period is -c's, nothing is drawn");
	if (o->call_graph && !o->emulate) {
		struct hwp_attr_opts ao = { .sz = sizeof(ao) };

		if (parse_callgraph(o->call_graph, &ao))
			return 1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int rc;

	rc = record_parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if ((rc = record_check_opts(&o)))
		return rc;
	if (o.emulate)
		return record_emulate(&o);
	return record_hw(&o, argc, argv);
}
