/* SPDX-License-Identifier: MIT */
/*
 * The progress line of hwprof record --emulate (see emu_progress.h).
 *
 * Why a SIGALRM timer: the command otherwise sleeps in waitpid() until qemu
 * ends; an interval timer without SA_RESTART makes that wait return EINTR a
 * few times a second, and the wait loop redraws the line. The counters come
 * from the plugin (hwp_emu__progress()): samples written so far and their
 * periods, so the taken-branch count moves in steps of one period.
 */
#include "emu_progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"
#include "hwprof/emulate.h"

#define TICK_MS 250    /* redraws per second: 4 */
#define QUIET_SECS 1.0 /* short recordings show nothing */

static void on_alarm(int sig)
{
	(void)sig; /* only interrupts the wait */
}

static double elapsed(const struct emu_progress *p)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - p->t0.tv_sec) + (double)(now.tv_nsec - p->t0.tv_nsec) / 1e9;
}

static void set_timer(long ms)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_interval.tv_sec = ms / 1000;
	it.it_interval.tv_usec = (ms % 1000) * 1000;
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);
}

void emu_progress_begin(struct emu_progress *p)
{
	struct sigaction sa;

	memset(p, 0, sizeof(*p));
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
	if (cli_quiet() || !isatty(STDERR_FILENO))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the wait returns EINTR */
	if (sigaction(SIGALRM, &sa, &p->old) < 0)
		return;
	p->on = true;
	set_timer(TICK_MS);
}

/* Writes "\r" + LINE, blanking what is left of a longer line before. */
static void draw(struct emu_progress *p, const char *line)
{
	char buf[256];
	size_t n = strlen(line), pad = p->shown > n ? p->shown - n : 0;
	int len = snprintf(buf, sizeof(buf), "\r%s%*s", line, (int)pad, "");

	if (pad) /* back to the end of the text */
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, "\r%s", line);
	if (len > 0 && write(STDERR_FILENO, buf, (size_t)len) < 0) {
		p->broken = true; /* the terminal went away: stop drawing */
		return;
	}
	p->shown = n;
}

void emu_progress_tick(struct emu_progress *p, const struct hwp_emu *s)
{
	struct hwp_emu_progress pr = { .sz = sizeof(pr) };
	double secs;
	char line[160];

	if (!p->on || p->broken || (secs = elapsed(p)) < QUIET_SECS)
		return;
	if (hwp_emu__progress(s, &pr) < 0)
		return;
	if (pr.taken >= 1000000)
		snprintf(line, sizeof(line),
			 "[ hwprof record: %.1f s, %llu samples, %.1f M taken branches ]", secs,
			 (unsigned long long)pr.samples, (double)pr.taken / 1e6);
	else
		snprintf(line, sizeof(line),
			 "[ hwprof record: %.1f s, %llu samples, %llu taken branches ]", secs,
			 (unsigned long long)pr.samples, (unsigned long long)pr.taken);
	draw(p, line);
}

void emu_progress_end(struct emu_progress *p)
{
	char buf[256];
	size_t n;

	if (!p->on)
		return;
	set_timer(0);
	sigaction(SIGALRM, &p->old, NULL);
	if (p->shown) {
		n = p->shown < sizeof(buf) - 3 ? p->shown : sizeof(buf) - 3;
		buf[0] = '\r';
		memset(buf + 1, ' ', n);
		buf[n + 1] = '\r';
		if (write(STDERR_FILENO, buf, n + 2) < 0)
			p->broken = true; /* nothing more to do about it */
	}
	p->on = false;
	p->shown = 0;
}
