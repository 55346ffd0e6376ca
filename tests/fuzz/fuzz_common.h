/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets: read every byte a parsed event points at
 * (so ASan sees each access the consumers would make), and check the error
 * contract: one line, naming the input and an offset.
 */
#ifndef HWPROF_FUZZ_COMMON_H
#define HWPROF_FUZZ_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/file_stats.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_data.h"
#include "output/outbuf.h"
#include "output/perf_script.h"
#include "output/sample_json.h"

#define FUZZ_NAME "fuzz.data"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZ_ASAN 1
#endif
#elif defined(__SANITIZE_ADDRESS__)
#define FZ_ASAN 1
#endif
#ifdef FZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

static volatile uint64_t fz_sink;

/* Every byte of [p, p+n) must be readable. ASan checks the whole range at
   once (a byte loop here would dominate the run time); the first poisoned
   byte is then read, for ASan's usual report. */
static void fz_bytes(const void *p, uint64_t n)
{
	const volatile uint8_t *b = p;

	if (!n)
		return;
	if (!b)
		abort(); /* a non-empty range must have a pointer */
#ifdef FZ_ASAN
	const volatile uint8_t *bad = __asan_region_is_poisoned((void *)(uintptr_t)p, n);
	if (bad)
		fz_sink += *bad;
#endif
	fz_sink += b[0] + b[n - 1];
}

static void fz_str(const char *s)
{
	if (s)
		fz_sink += strlen(s);
}

/* The error contract of the reader: "NAME: what ... offset 0x..", one line. */
static void fz_check_error_named(int rc, const char *name)
{
	const char *m = hwp_errmsg();
	size_t n = strlen(name);

	if (rc == -ENOMEM)
		return;
	if (strncmp(m, name, n) != 0 || strncmp(m + n, ": ", 2) != 0 || strchr(m, '\n') ||
	    !strstr(m, "offset 0x")) {
		fprintf(stderr, "fuzz: bad error message (rc %d): '%s'\n", rc, m);
		abort();
	}
}

static void fz_check_error(int rc)
{
	fz_check_error_named(rc, FUZZ_NAME);
}

static void fz_header(const struct hwp_reader *r)
{
	const struct hwp_header_info *h = hwp_reader__header(r);

	fz_str(h->hostname);
	fz_str(h->osrelease);
	fz_str(h->version);
	fz_str(h->arch);
	fz_str(h->cpudesc);
	fz_str(h->cpuid);
	for (size_t i = 0; i < h->nr_cmdline; i++)
		fz_str(h->cmdline[i]);
	for (size_t i = 0; i < h->nr_build_ids; i++) {
		const struct hwp_build_id *b = &h->build_ids[i];
		if (b->size > 20)
			abort();
		fz_bytes(b->id, b->size);
		fz_str(b->filename);
	}
	for (size_t i = 0; i < h->nr_pmu_mappings; i++)
		fz_str(h->pmu_mappings[i].name);
	for (size_t i = 0; i < h->nr_pmu_caps; i++) {
		fz_str(h->pmu_caps[i].pmu_name);
		for (size_t j = 0; j < h->pmu_caps[i].nr_caps; j++)
			fz_str(h->pmu_caps[i].caps[j]);
	}
	for (unsigned f = 0; f < HWP_FEAT_BITS; f++)
		if (hwp_header_info__has(h, f))
			fz_str(hwp_feature__name(f));
	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++) {
		const struct hwp_evsel *e = hwp_reader__evsel(r, i);
		fz_str(e->name);
		fz_bytes(e->ids, e->nr_ids * 8);
		fz_sink += e->attr.sample_type + e->attr.read_format;
	}
	fz_sink += hwp_reader__file_size(r) + hwp_reader__data_offset(r) +
		   hwp_reader__data_size(r) + hwp_reader__file_attr_size(r);
}

static void fz_event(const struct hwp_event *ev)
{
	const struct hwp_sample *s = &ev->sample;
	struct hwp_branch_entry e;

	if (ev->data) {
		if (ev->size < 8)
			abort();
		fz_bytes(ev->data, ev->size);
	}
	fz_str(hwp_record_type__name(ev->type));
	fz_sink += hwp_event__time(ev);
	if (ev->type != HWP_RECORD_SAMPLE || !ev->evsel)
		return;
	for (uint64_t i = 0; i < s->callchain_nr; i++)
		fz_sink += hwp_sample__callchain_ip(s, i);
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		hwp_sample__branch(s, i, &e);
		fz_sink += e.from ^ e.to ^ e.cycles ^ e.type;
		if (s->branch_counters)
			fz_bytes(s->branch_counters + i * 8, 8);
	}
	hwp_sample__branch(s, s->branch_nr, &e); /* out of range: zeroed, no access */
	fz_sink += hwp_sample__callchain_ip(s, s->callchain_nr);
	if (s->sample_type & HWP_SAMPLE_READ) {
		uint64_t rf = ev->evsel->attr.read_format;
		struct hwp_read rd;
		struct hwp_read_value v;

		fz_bytes(s->read.data, s->read.size);
		if (hwp_read__parse(&s->read, rf, &rd) == 0)
			fz_sink += rd.nr + rd.time_enabled + rd.time_running;
		for (uint64_t i = 0; hwp_read__value(&s->read, rf, i, &v) == 0; i++)
			fz_sink += v.value + v.id + v.lost;
	}
	fz_bytes(s->raw.data, s->raw.size);
	fz_bytes(s->regs_user.data, s->regs_user.size);
	fz_bytes(s->regs_intr.data, s->regs_intr.size);
	fz_bytes(s->stack_user.data, s->stack_user.size);
	fz_bytes(s->aux.data, s->aux.size);
}

#endif
