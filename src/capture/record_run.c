/* SPDX-License-Identifier: MIT */
/*
 * What runs around hwp_record__run() as perf record runs it: the
 * --call-graph value in perf's syntax, the recorder's options from the
 * built attr, and Ctrl-C/TERM stopping the workload while what was
 * recorded is still written.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/capture.h"
#include "hwprof/perf_abi.h"
#include "hwprof/record_setup.h"
#include "util/error.h"
#include "util/opts.h"

/* perf's stack dump sizes: a multiple of 8, at most 65528 */
#define DWARF_STACK_MAX 65528

int hwp_attr_opts__set_callgraph(struct hwp_attr_opts *ao, const char *mode)
{
	if (!strcmp(mode, "fp")) {
		ao->callgraph = HWP_CALLGRAPH_FP;
	} else if (!strcmp(mode, "lbr")) {
		ao->callgraph = HWP_CALLGRAPH_LBR;
	} else if (!strncmp(mode, "dwarf", 5) && (mode[5] == 0 || mode[5] == ',')) {
		uint64_t size = 0;

		ao->callgraph = HWP_CALLGRAPH_DWARF;
		if (mode[5] == ',') {
			const char *s = mode + 6;
			char *end = NULL;

			errno = 0;
			if (*s && *s != '-')
				size = strtoull(s, &end, 0);
			if (!*s || *s == '-' || errno || !end || *end)
				return hwp__set_error(EINVAL, "dwarf,SIZE: '%s' is not a positive number", s);
			size = (size + 7) & ~7ULL; /* rounded up, as perf does */
			if (!size || size > DWARF_STACK_MAX)
				return hwp__set_error(ERANGE, "dwarf,%s: the stack dump size must be "
						      "1..65528 bytes", s);
		}
		ao->dwarf_stack_size = (uint32_t)size;
	} else {
		return hwp__set_error(EINVAL, "'%s': unknown mode (fp, dwarf[,SIZE], lbr)", mode);
	}
	return 0;
}

void hwp_record_opts__set_attr(struct hwp_record_opts *ro, const struct hwp_attr_result *ar,
			       const struct hwp_capture_host *host)
{
	ro->attr = &ar->attr;
	ro->event_name = ar->event.name;
	ro->precise_max = ar->event.precise_max;
	/* perf falls back to cpu-clock only when no branch stack was asked for */
	ro->allow_sw_fallback = !(ar->attr.sample_type & HWP_SAMPLE_BRANCH_STACK);
	ro->paranoid = host->paranoid;
}

static volatile int stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

int hwp_record__run_interruptible(const struct hwp_record_opts *opts, struct hwp_record_result *r)
{
	struct hwp_record_opts o;
	struct sigaction sa, old_int, old_term;
	int rc;

	if ((rc = HWP_OPTS_LOAD(opts, &o, struct hwp_record_opts)) < 0)
		return rc;
	stop_requested = 0;
	o.stop = &stop_requested;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = hwp_record__run(&o, r);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

void hwp_branch_filter__level_names(uint64_t levels, char *names, size_t nlen, char *mods, size_t mlen)
{
	static const struct { uint64_t bit; const char *name, *mod; } all[] = {
		{ HWP_BRANCH_USER, "user", "u" },
		{ HWP_BRANCH_KERNEL, "kernel", "k" },
		{ HWP_BRANCH_HV, "hypervisor", "h" },
	};
	size_t n = 0, m = 0;

	if (nlen)
		names[0] = 0;
	if (mlen)
		mods[0] = 0;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!(levels & all[i].bit))
			continue;
		if (n < nlen)
			n += (size_t)snprintf(names + n, nlen - n, "%s%s", n ? "/" : "", all[i].name);
		if (m < mlen)
			m += (size_t)snprintf(mods + m, mlen - m, "%s", all[i].mod);
	}
}
