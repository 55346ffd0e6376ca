/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the perf script text input (src/format/text_input.c).
 *
 * Every record the text reader synthesizes must be a well-formed perf record
 * (size in the header, 8-byte multiple, at most 64 KiB) and must parse with
 * the binary reader's own sample parser: a record the text reader built and
 * the reader rejects is a bug in one of them. Errors are one line with the
 * line number and offset.
 */
#include "fuzz_common.h"
#include "format/reader_internal.h"
#include "format/text_input.h"
#include "util/bytes.h"
#include "util/error.h"

static FILE *devnull;
static struct hwp_outbuf out;
static struct hwp_json_writer *json; /* one writer: a JSON Lines stream */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull || hwp__outbuf_init(&out, devnull) < 0 || !(json = hwp__json_writer_new(&out)))
		abort();
	return 0;
}

static void check_text_error(int rc)
{
	fz_check_error(rc);
	if (rc != -ENOMEM && !strstr(hwp_errmsg(), " at line ")) {
		fprintf(stderr, "fuzz: text error without a line number: '%s'\n", hwp_errmsg());
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* 1. The text reader alone. */
	struct hwp_text_input *t = hwp__text_input_new(data, size, FUZZ_NAME);
	const uint8_t *rec;
	uint32_t rsize;
	uint64_t off;
	int rc;

	if (!t)
		abort(); /* only fails on out of memory */
	const struct hwp_attr *attr = hwp__text_input_attr(t);
	while ((rc = hwp__text_input_next(t, &rec, &rsize, &off)) > 0) {
		if (rsize < 8 || rsize % 8 || rsize > 65535 || ld16(rec + 6) != rsize || off > size)
			abort();
		fz_bytes(rec, rsize);
		if (ld32(rec) == HWP_RECORD_SAMPLE) {
			struct hwp_sample s;
			struct hwp_branch_entry e;

			hwp__clear_error();
			if (hwp__parse_sample(NULL, attr, rec, rsize, &s, off, 0) != 0) {
				fprintf(stderr, "fuzz: synthesized sample does not parse: %s\n", hwp_errmsg());
				abort();
			}
			for (uint64_t i = 0; i < s.callchain_nr; i++)
				fz_sink += hwp_sample__callchain_ip(&s, i);
			for (uint64_t i = 0; i < s.branch_nr; i++) {
				hwp_sample__branch(&s, i, &e);
				fz_sink += e.from ^ e.to ^ e.cycles;
			}
		}
	}
	if (rc < 0) {
		check_text_error(rc);
		if (hwp__text_input_next(t, &rec, &rsize, &off) != rc)
			abort(); /* errors are sticky */
	}
	hwp__text_input_delete(t);

	/* 2. Through the reader and the printer, as `hwprof script` reads text. */
	if (!hwp__text_input_looks_like(data, size))
		return 0;
	struct hwp_reader *r = hwp_reader__open_mem(data, size, FUZZ_NAME, NULL);
	if (!r) {
		fz_check_error(-errno);
		return 0;
	}
	struct hwp_ordered *q = hwp_ordered__new(r);
	struct hwp_event ev;
	bool cc = hwp_reader__nr_evsels(r) &&
		  (hwp_reader__evsel(r, 0)->attr.sample_type & HWP_SAMPLE_CALLCHAIN);

	if (!q)
		abort();
	while ((rc = hwp_ordered__next(q, &ev)) > 0) {
		fz_event(&ev);
		if (ev.type == HWP_RECORD_SAMPLE && ev.evsel) {
			hwp__perf_script_sample(&out, &ev, cc);
			hwp__sample_json_write(json, &ev);
		}
	}
	if (rc < 0)
		check_text_error(rc);
	hwp__outbuf_flush(&out);
	hwp_ordered__delete(q);
	hwp_reader__delete(r);
	return 0;
}
