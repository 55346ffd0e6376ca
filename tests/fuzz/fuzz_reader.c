/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the perf.data reader (file mode, pipe mode, zstd
 * records, and the perf-script text it also accepts).
 *
 * One input is read twice: in file order (hwp_reader__next, fed to the file
 * statistics as `hwprof info` does) and in time order (hwp_ordered__next,
 * fed to the process-map model and printed as `hwprof script` and
 * `hwprof script --json` do). Every parsed
 * field is read back so the sanitizers see each access a consumer makes.
 * Errors must be one line naming the input and an offset. Pipe-mode and text
 * inputs are also read through a real pipe (the streaming code path), which
 * must see the same records and the same outcome as the in-memory read.
 */
#include <fcntl.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "hwprof/branch_collect.h"
#include "hwprof/session.h"
#include "hwprof/timing.h"
#include "util/bytes.h"

static FILE *devnull;
static struct hwp_outbuf out;
static struct hwp_json_writer *json; /* one writer: a JSON Lines stream */
static struct hwp_file_stats *stats; /* made once, reset per input */

static void note(void *ctx, enum hwp_log_level level, const char *msg)
{
	(void)ctx;
	(void)level;
	fz_str(msg);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull || hwp__outbuf_init(&out, devnull) < 0 || !(json = hwp__json_writer_new(&out)))
		abort();
	hwp_set_log(note, NULL);
	return 0;
}

static bool any_callchain(const struct hwp_reader *r)
{
	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++)
		if (hwp_reader__evsel(r, i)->attr.sample_type & HWP_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

/* Pass 3: the same bytes through a pipe; compared with pass 1. */
static void pass_stream(const uint8_t *data, size_t size, bool opened, int mem_rc,
			uint64_t mem_events, uint64_t mem_types)
{
	struct hwp_reader_opts opts = { .sz = sizeof(opts) };
	char path[64];
	int fds[2];

	/* File-mode perf.data is refused on a pipe by design: nothing to compare. */
	if (size >= 16 && ld64(data) == HWP_PERF_MAGIC2 && ld64(data + 8) != HWP_PIPE_HEADER_SIZE)
		return;
	if (pipe(fds) < 0)
		return;
	/* All of it must fit in the pipe: nobody reads while we write. */
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fds[1], data + done, size - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fds[1]);
	if (done < size) {
		close(fds[0]);
		return;
	}
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	struct hwp_reader *r = hwp_reader__open(path, &opts);
	close(fds[0]);
	if (!r) {
		fz_check_error_named(-errno, path);
		if (opened) {
			fprintf(stderr, "fuzz: opens from memory, not from a pipe: %s\n", hwp_errmsg());
			abort();
		}
		return;
	}
	if (!opened) {
		fprintf(stderr, "fuzz: opens from a pipe, not from memory\n");
		abort();
	}
	struct hwp_event ev;
	uint64_t events = 0, types = 0;
	int rc;

	while ((rc = hwp_reader__next(r, &ev)) > 0) {
		fz_event(&ev);
		events++;
		types = types * 31 + ev.type;
	}
	if (rc < 0)
		fz_check_error_named(rc, path);
	if ((rc < 0) != (mem_rc < 0) || events != mem_events || types != mem_types) {
		fprintf(stderr, "fuzz: pipe read differs: rc %d vs %d, %llu vs %llu records (%s)\n", rc,
			mem_rc, (unsigned long long)events, (unsigned long long)mem_events,
			rc < 0 || mem_rc < 0 ? hwp_errmsg() : "");
		abort();
	}
	hwp_reader__delete(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwp_reader_opts opts = { .sz = sizeof(opts) };
	struct hwp_event ev;
	int rc;

	/* Pass 1: file order, as `hwprof info`. */
	uint64_t events = 0, types = 0;
	struct hwp_reader *r = hwp_reader__open_mem(data, size, FUZZ_NAME, &opts);
	if (!r) {
		fz_check_error(-errno);
		pass_stream(data, size, false, 0, 0, 0);
		return 0;
	}
	fz_header(r);
	if (!stats && !(stats = hwp_file_stats__new()))
		abort();
	hwp_file_stats__reset(stats);
	while ((rc = hwp_reader__next(r, &ev)) > 0) {
		fz_event(&ev);
		hwp_file_stats__add(stats, &ev);
		events++;
		types = types * 31 + ev.type;
	}
	if (rc < 0)
		fz_check_error(rc);
	else if (hwp_reader__next(r, &ev) != 0)
		abort(); /* the end is sticky */
	fz_header(r); /* pipe mode fills it while reading */
	hwp_reader__delete(r);
	pass_stream(data, size, true, rc, events, types);

	/* Pass 2: time order through a session, as `hwprof script` (text and
	   JSON) and the branch reports: every entry resolved to module+offset. */
	r = hwp_reader__open_mem(data, size, FUZZ_NAME, &opts);
	if (!r)
		abort(); /* opened once already */
	struct hwp_session_opts so = { .sz = sizeof(so), .no_kernel = true };
	struct hwp_session *s = hwp_session__from_reader(r, &so);
	if (!s)
		abort(); /* only out of memory */
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .split = HWP_SPLIT_MISPRED | HWP_SPLIT_TYPE | HWP_SPLIT_TX,
					      .blocks = true, .ranges = true };
	struct hwp_branch_collector *c = hwp_branch_collector__new(s, &co);
	if (!c)
		abort();
	/* block and loop timing over the same stacks */
	struct hwp_timing_opts to = { .sz = sizeof(to), .loops = true };
	struct hwp_timing *t = hwp_timing__new(s, c, &to);
	if (!t)
		abort();
	const struct hwp_thread *th;
	while ((rc = hwp_session__next(s, &ev, &th)) > 0) {
		fz_event(&ev);
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		if (!th)
			abort(); /* NULL only when out of memory */
		int arc = c ? hwp_branch_collector__add(c, &ev, th) : 0;
		if (arc == -EINVAL) {
			/* LBR call-stack mode: refused when ranges are counted */
			hwp_timing__delete(t);
			t = NULL;
			hwp_branch_collector__delete(c);
			c = NULL;
		} else if (arc < 0) {
			abort(); /* only out of memory */
		}
		if (t && hwp_timing__add(t, &ev, th) < 0)
			abort(); /* only out of memory */
		hwp__perf_script_sample_in(&out, &ev, any_callchain(r), th);
		hwp__perf_script_sample(&out, &ev, false);
		hwp__sample_json_write(json, &ev);
	}
	if (rc < 0)
		fz_check_error(rc);
	hwp__outbuf_flush(&out);
	/* the ranges' decoding check (module files are mostly missing: kept) */
	if (c && hwp_branch_collector__check_ranges(c) < 0)
		abort(); /* only out of memory */
	if (t && hwp_timing__build(t) < 0)
		abort(); /* only out of memory */
	hwp_timing__delete(t);
	hwp_branch_collector__delete(c);
	hwp_session__delete(s);
	return 0;
}
