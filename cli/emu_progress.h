/* SPDX-License-Identifier: MIT */
/*
 * The progress line of hwprof record --emulate: elapsed time, samples and
 * taken branches, on stderr when it is a terminal, from the first second on,
 * redrawn in place (\r) four times a second and cleared at the end.
 */
#ifndef HWPROF_CLI_EMU_PROGRESS_H
#define HWPROF_CLI_EMU_PROGRESS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct hwp_emu;

struct emu_progress {
	bool on;              /* stderr is a terminal: the timer runs */
	bool broken;          /* a write failed: draw no more */
	struct timespec t0;   /* when the program started */
	size_t shown;         /* columns of the line on screen (0: none) */
	struct sigaction old; /* SIGALRM's handler before */
};

/* Starts the timer whose SIGALRM interrupts hwp_emu__wait() (EINTR) when
   stderr is a terminal; else does nothing. */
void emu_progress_begin(struct emu_progress *p);
/* After an interrupted wait: redraws the line (once a second has passed). */
void emu_progress_tick(struct emu_progress *p, const struct hwp_emu *s);
/* Stops the timer and clears the line. */
void emu_progress_end(struct emu_progress *p);

#endif
