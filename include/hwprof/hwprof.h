/* SPDX-License-Identifier: MIT */
/* libhwprof: version, errors and logging shared by every module. */
#ifndef HWPROF_HWPROF_H
#define HWPROF_HWPROF_H

#include <stdarg.h>

/* Marks a function as part of libhwprof's ABI; everything else is hidden. */
#if defined(__GNUC__) && !defined(HWP_STATIC_ONLY)
#define HWP_API __attribute__((visibility("default")))
#else
#define HWP_API
#endif

#ifdef __cplusplus
#define HWP_BEGIN_DECLS extern "C" {
#define HWP_END_DECLS }
#else
#define HWP_BEGIN_DECLS
#define HWP_END_DECLS
#endif

HWP_BEGIN_DECLS

#define HWPROF_VERSION "0.2.0"

HWP_API const char *hwp_version(void);

/*
 * Errors: every public function that can fail returns 0 (or a count) or a
 * negative errno code; constructors return NULL and set errno. Each failure
 * sets this thread's message (what, where, why: "perf.data: truncated sample
 * at offset 0x1f00 (record 812)"), replacing any earlier one, so the message
 * always describes the latest failure. Messages describe the problem, never
 * a command-line flag.
 */
HWP_API const char *hwp_errmsg(void);
HWP_API const char *hwp_strerror(int err);

/*
 * Size-versioned structs (libbpf's practice): options (..._opts) and the
 * results a function fills for its caller (..._result, ..._stats,
 * hwp_mem_events, hwp_emu_progress) start with size_t sz, which the caller
 * sets to sizeof(the struct). A program and a library built from different
 * versions of a header then agree: fields one side lacks read as zero and
 * nothing is written past the caller's struct. A zero sz is refused
 * (-EINVAL): it was forgotten.
 */

/*
 * Logging: library code never prints. Warnings, notes and debug detail go to
 * one callback (default: none), with a level; the callback decides what to
 * show. A note that repeats per record is sent once per object that saw it.
 */
enum hwp_log_level {
	HWP_LOG_ERROR = 0,
	HWP_LOG_WARN = 1,  /* a result may be incomplete: say it */
	HWP_LOG_INFO = 2,  /* what was done, skipped or assumed */
	HWP_LOG_DEBUG = 3, /* detail for developers */
};
typedef void (*hwp_log_fn)(void *ctx, enum hwp_log_level level, const char *msg);
HWP_API void hwp_set_log(hwp_log_fn fn, void *ctx);

HWP_END_DECLS

#endif
