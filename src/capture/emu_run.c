/* SPDX-License-Identifier: MIT */
/*
 * hwp_emu__run(): start, wait and finish in one call, as a command runs the
 * emulation. The workload is stopped the way perf record stops its own: the
 * first SIGINT/SIGTERM/SIGHUP becomes a SIGTERM to qemu, and what was
 * recorded until then is still written.
 *
 * Why a SIGALRM timer for the progress calls: the wait otherwise sleeps in
 * waitpid() until qemu ends; an interval timer without SA_RESTART makes it
 * return EINTR every TICK_MS, and the loop calls the caller back.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "hwprof/emulate.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "util/error.h"
#include "util/opts.h"

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t stopping;

static void forward(int sig)
{
	(void)sig;
	if (child_pid > 0 && !stopping) {
		stopping = 1;
		kill((pid_t)child_pid, SIGTERM);
	}
}

static void on_alarm(int sig)
{
	(void)sig; /* only interrupts the wait */
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_FORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static void set_handlers(void (*fn)(int), const int *sigs, size_t n, struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the wait returns EINTR */
	for (size_t i = 0; i < n; i++)
		sigaction(sigs[i], &sa, &old[i]);
}

static void restore_handlers(const int *sigs, size_t n, const struct sigaction *old)
{
	for (size_t i = 0; i < n; i++)
		sigaction(sigs[i], &old[i], NULL);
}

static void set_timer(unsigned ms)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_interval.tv_sec = ms / 1000;
	it.it_interval.tv_usec = (ms % 1000) * 1000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Waits for qemu, calling O's progress every tick when there is one. */
static int wait_ticking(struct hwp_emu *s, const struct hwp_emu_run_opts *o, struct hwp_emu_result *res)
{
	const int alarm_sig[] = { SIGALRM };
	struct sigaction old;
	struct timespec t0;
	bool ticking = o->progress && o->tick_ms;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ticking) {
		set_handlers(on_alarm, alarm_sig, 1, &old);
		set_timer(o->tick_ms);
	}
	while ((err = hwp_emu__wait(s, res)) == -EINTR) {
		struct hwp_emu_progress p = { .sz = sizeof(p) };

		if (ticking && hwp_emu__progress(s, &p) == 0)
			o->progress(o->arg, &p, since(&t0));
	}
	if (ticking) {
		set_timer(0);
		restore_handlers(alarm_sig, 1, &old);
		o->progress(o->arg, NULL, since(&t0));
	}
	return err;
}

int hwp_emu__run(struct hwp_emu *s, const struct hwp_emu_run_opts *opts, struct hwp_emu_result *res)
{
	struct hwp_emu_run_opts o;
	struct sigaction old[NR_FORWARDED];
	pid_t pid;
	int err;

	if ((err = HWP_OPTS_LOAD(opts, &o, struct hwp_emu_run_opts)) < 0)
		return err;
	set_handlers(forward, forwarded, NR_FORWARDED, old);
	stopping = 0;
	pid = hwp_emu__start(s);
	if (pid < 0) {
		err = (int)pid;
		goto out;
	}
	child_pid = pid;
	err = wait_ticking(s, &o, res);
	child_pid = 0;
	if (!err)
		err = hwp_emu__finish(s, res);
out:
	restore_handlers(forwarded, NR_FORWARDED, old);
	return err;
}

void hwp_emu_opts__lbr_call_stack(struct hwp_emu_opts *o)
{
	if (!o->branch_filter)
		o->branch_filter = HWP_BRANCH_USER | HWP_BRANCH_NO_CYCLES | HWP_BRANCH_NO_FLAGS | HWP_BRANCH_HW_INDEX;
	o->branch_filter |= HWP_BRANCH_CALL_STACK;
	o->lbr_callchain = true;
}
