/* SPDX-License-Identifier: MIT */
/*
 * The session: one recording, read in perf's order, with everything needed to
 * understand its addresses. It is the one place that wires the reader, perf's
 * time ordering, the per-process address spaces and the symbolizer together
 * (perf's perf_session, uftrace's session); every report and every program
 * linking libhwprof starts here.
 *
 *     struct hwp_session *s = hwp_session__open("perf.data", NULL);
 *     struct hwp_event ev;
 *     const struct hwp_thread *th;
 *     while (hwp_session__next(s, &ev, &th) > 0)
 *             if (ev.type == HWP_RECORD_SAMPLE) ... hwp_session__resolve(s, th, ev.sample.ip, 0, &loc);
 *     hwp_session__delete(s);
 *
 * Input: a perf.data file (file or pipe mode, zstd-compressed or not), "-" for
 * standard input, or the text of `perf script -F ip,brstack`.
 *
 * Order: events come as perf delivers them (ordered events: released at each
 * FINISHED_ROUND up to the previous round's largest timestamp). Before an
 * event is handed out, the address spaces have taken it in (MMAP, FORK, COMM,
 * EXIT ...), so a sample's addresses resolve as perf resolves them.
 *
 * Binaries: looked for as the symbolizer does (symfs, build-id caches, debug
 * directories); the recording's kernel build-id (its BUILD_ID feature) picks
 * the kernel symbols. The symbolizer is made on first use.
 *
 * JIT-compiled code: a jitdump the recording's MMAP records name
 * ("DIR/jit-PID.dump") is injected as perf inject --jit injects it: its code
 * loads and moves are mapped at their times ("DIR/jitted-PID-N.so"), and
 * the process's later //anon and /memfd: maps are not; perf maps need
 * nothing (see symbolize.h).
 */
#ifndef HWPROF_SESSION_H
#define HWPROF_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/code_loc.h"
#include "hwprof/hwprof.h"
#include "hwprof/maps.h"
#include "hwprof/perf_data.h"
#include "hwprof/symbolize.h"

HWP_BEGIN_DECLS

struct hwp_session;

struct hwp_session_opts {
	size_t sz;              /* sizeof(struct hwp_session_opts) */
	/* Where binaries and debug info are found (see symbolize.h). */
	const char *symfs;      /* prefix for every recorded path */
	const char *debug_dirs; /* ':'-separated; NULL: $PERF_BUILDID_DIR or ~/.debug, [symfs]/usr/lib/debug */
	const char *kallsyms;   /* kernel symbols file; NULL: perf's cache, then /proc/kallsyms */
	bool no_demangle;       /* keep C++/Rust names mangled */
	bool no_inline;         /* no inline chains (faster) */
	bool no_kernel;         /* no kernel symbols */
	bool all_plt;           /* name every PLT entry "func@plt" (default: perf 6.1's rule) */
	/* Do not keep address spaces: events come without a thread and
	   hwp_session__resolve() finds no map (faster when only raw records
	   are wanted). */
	bool no_maps;
};

/* Opens PATH ("-": standard input). NULL with errno set and hwp_errmsg()
   saying what, where and why. */
HWP_API struct hwp_session *hwp_session__open(const char *path, const struct hwp_session_opts *opts);
/* A session over a reader the caller opened (e.g. hwp_reader__open_mem());
   the session owns R from now on, also when this fails. */
HWP_API struct hwp_session *hwp_session__from_reader(struct hwp_reader *r,
						     const struct hwp_session_opts *opts);
/*
 * Several recordings read as one session, one after the other: PATHS[0..N)
 * ("-" at most once). Each keeps its own address spaces (the pids of two
 * recordings are unrelated) and its own events; the symbolizer is shared, so
 * the same binary (by build-id, else by path) is one module in all of them
 * and every analysis fed from the session merges their counts. Every input
 * is opened (and its header checked) before anything is read. The kernel
 * symbols are the first recording's kernel's.
 */
HWP_API struct hwp_session *hwp_session__open_inputs(const char *const *paths, size_t n,
						     const struct hwp_session_opts *opts);
HWP_API void hwp_session__delete(struct hwp_session *s);

/* The inputs: how many, which one is being read (the last one once all are
   read), each one's path and reader, and what was delivered from each. */
struct hwp_session_input_stats {
	uint64_t records;   /* records delivered in perf's order */
	uint64_t samples;   /* of them, samples */
	bool done;          /* read to its end */
};
HWP_API size_t hwp_session__nr_inputs(const struct hwp_session *s);
HWP_API size_t hwp_session__input(const struct hwp_session *s);
HWP_API const char *hwp_session__input_path(const struct hwp_session *s, size_t i);
HWP_API struct hwp_reader *hwp_session__input_reader(struct hwp_session *s, size_t i);
HWP_API const struct hwp_session_input_stats *hwp_session__input_stats(const struct hwp_session *s, size_t i);

/* The input's name as given ("perf.data", "-"): the one being read. */
HWP_API const char *hwp_session__path(const struct hwp_session *s);
/* The reader and header of the input being read (the first one before the
   first event, the last one after the end). */
HWP_API struct hwp_reader *hwp_session__reader(struct hwp_session *s);
HWP_API const struct hwp_header_info *hwp_session__header(const struct hwp_session *s);
/* true when the input was perf script text */
HWP_API bool hwp_session__is_text(const struct hwp_session *s);
/* OR of every event's sample_type (perf's "does any event record X");
   complete once the first sample has been delivered. */
HWP_API uint64_t hwp_session__sample_types(const struct hwp_session *s);
/* The address spaces (NULL with opts.no_maps). */
HWP_API struct hwp_machine *hwp_session__machine(struct hwp_session *s);
/* The symbolizer, made on first call; NULL with hwp_errmsg() on failure. */
HWP_API struct hwp_symbolizer *hwp_session__symbolizer(struct hwp_session *s);

/*
 * The next event in perf's order: 1 (EV filled), 0 at the end, <0 on error
 * (hwp_errmsg()). For samples *THREAD (may be NULL) is the sample's thread,
 * NULL for other records or with opts.no_maps. EV's views and THREAD stay
 * valid until the next call.
 */
HWP_API int hwp_session__next(struct hwp_session *s, struct hwp_event *ev,
			      const struct hwp_thread **thread);

/* Callbacks for hwp_session__process(); a callback returning <0 stops it
   with that value. */
struct hwp_session_handler {
	size_t sz; /* sizeof(struct hwp_session_handler) */
	void *ctx;
	/* Samples of a known event (records that name no event are skipped). */
	int (*sample)(void *ctx, const struct hwp_event *ev, const struct hwp_thread *th);
	/* Every other record, after the address spaces took it in. */
	int (*other)(void *ctx, const struct hwp_event *ev);
};

/* Delivers the rest of the input to H. 0 at the end, or <0. */
HWP_API int hwp_session__process(struct hwp_session *s, const struct hwp_session_handler *h);

/*
 * ADDR as seen by thread TH (NULL: only the kernel is known) -> module + file
 * offset, as perf resolves it: the thread's user maps first, then the
 * kernel's. A module id is registered with the symbolizer on first sight.
 * Always fills LOC (module -1 when no map covers ADDR). SLOT (0 to
 * HWP_SESSION_RESOLVE_SLOTS - 1) picks a one-map cache: callers resolving
 * two address streams (branch sources and targets) give each its own slot.
 * Returns 0, or <0 when the symbolizer cannot be made.
 */
#define HWP_SESSION_RESOLVE_SLOTS 4
HWP_API int hwp_session__resolve(struct hwp_session *s, const struct hwp_thread *th, uint64_t addr,
				 unsigned slot, struct hwp_code_loc *loc);

/*
 * Maps the executable segments of the ELF file PATH at their link-time
 * addresses + LOAD_BIAS for user addresses no recorded map holds: for
 * input without mapping records (perf script text) or a binary whose
 * mapping the recording missed. Takes effect for addresses resolved from
 * now on. 0 or <0 (hwp_errmsg()).
 */
HWP_API int hwp_session__assume_mapped(struct hwp_session *s, const char *path, uint64_t load_bias);

HWP_END_DECLS

#endif
