/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/file_stats.h"
#include "hwprof/hwprof.h"
#include "util/bytes.h"
#include "util/error.h"

struct hwp_file_stats {
	struct hwp_file_totals t;
	uint64_t records[HWP_RECORD_TYPE_MAX];
	uint64_t samples_per_evsel[HWP_STATS_MAX_EVSELS];
	uint64_t depth_hist[HWP_STATS_MAX_DEPTH + 1]; /* last slot: deeper */
	uint64_t branch_field_nonzero[HWP_BF_COUNT];
};

static const char *const field_names[HWP_BF_COUNT] = {
	"mispred", "predicted", "in_tx", "abort", "cycles", "type", "spec", "new_type", "priv",
	"from_zero",
};

const char *hwp_branch_field__name(enum hwp_branch_field f)
{
	return f < HWP_BF_COUNT ? field_names[f] : "?";
}

void hwp_file_stats__reset(struct hwp_file_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->t.first_time = UINT64_MAX;
}

struct hwp_file_stats *hwp_file_stats__new(void)
{
	struct hwp_file_stats *st = malloc(sizeof(*st));

	if (!st) {
		hwp__set_error(ENOMEM, "out of memory making file statistics");
		return NULL;
	}
	hwp_file_stats__reset(st);
	return st;
}

void hwp_file_stats__delete(struct hwp_file_stats *st)
{
	free(st);
}

const struct hwp_file_totals *hwp_file_stats__totals(const struct hwp_file_stats *st)
{
	return &st->t;
}

uint64_t hwp_file_stats__records(const struct hwp_file_stats *st, unsigned type)
{
	return type < HWP_RECORD_TYPE_MAX ? st->records[type] : 0;
}

uint64_t hwp_file_stats__evsel_samples(const struct hwp_file_stats *st, size_t idx)
{
	return idx < HWP_STATS_MAX_EVSELS ? st->samples_per_evsel[idx] : 0;
}

uint64_t hwp_file_stats__depth(const struct hwp_file_stats *st, unsigned depth)
{
	return depth <= HWP_STATS_MAX_DEPTH ? st->depth_hist[depth] : 0;
}

uint64_t hwp_file_stats__branch_field(const struct hwp_file_stats *st, enum hwp_branch_field f)
{
	return (unsigned)f < HWP_BF_COUNT ? st->branch_field_nonzero[f] : 0;
}

static void add_branches(struct hwp_file_stats *st, const struct hwp_sample *s)
{
	uint64_t *nz = st->branch_field_nonzero;

	st->t.samples_with_branches++;
	st->depth_hist[s->branch_nr < HWP_STATS_MAX_DEPTH ? s->branch_nr : HWP_STATS_MAX_DEPTH]++;
	st->t.branch_entries += s->branch_nr;
	st->t.hw_idx_samples += s->branch_has_hw_idx;
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		const uint8_t *p = s->branch_entries + i * 24;
		uint64_t f = ld64(p + 16);
		/* Bit fields straight from the flags word: this loop runs per entry. */
		nz[HWP_BF_MISPRED] += f & 1;
		nz[HWP_BF_PREDICTED] += (f >> 1) & 1;
		nz[HWP_BF_IN_TX] += (f >> 2) & 1;
		nz[HWP_BF_ABORT] += (f >> 3) & 1;
		nz[HWP_BF_CYCLES] += ((f >> HWP_BRF_CYCLES_SHIFT) & 0xffff) != 0;
		nz[HWP_BF_TYPE] += ((f >> HWP_BRF_TYPE_SHIFT) & 0xf) != 0;
		nz[HWP_BF_SPEC] += ((f >> HWP_BRF_SPEC_SHIFT) & 0x3) != 0;
		nz[HWP_BF_NEW_TYPE] += ((f >> HWP_BRF_NEW_TYPE_SHIFT) & 0xf) != 0;
		nz[HWP_BF_PRIV] += ((f >> HWP_BRF_PRIV_SHIFT) & 0x7) != 0;
		nz[HWP_BF_FROM_ZERO] += ld64(p) == 0;
	}
}

void hwp_file_stats__add(struct hwp_file_stats *st, const struct hwp_event *ev)
{
	if (ev->type < HWP_RECORD_TYPE_MAX)
		st->records[ev->type]++;
	else
		st->t.records_unknown++;
	st->t.records_compressed_inner += ev->compressed;
	if (!ev->compressed)
		st->t.bytes += ev->size;

	switch (ev->type) {
	case HWP_RECORD_SAMPLE: {
		const struct hwp_sample *s = &ev->sample;
		st->t.samples++;
		if (!ev->evsel) {
			st->t.samples_unknown_id++;
			return;
		}
		if (ev->evsel->idx < HWP_STATS_MAX_EVSELS)
			st->samples_per_evsel[ev->evsel->idx]++;
		if (s->cpumode == HWP_MISC_USER)
			st->t.samples_user++;
		else if (s->cpumode == HWP_MISC_KERNEL)
			st->t.samples_kernel++;
		else
			st->t.samples_other++;
		if ((s->sample_type & HWP_SAMPLE_IP) && (s->ip >> 63))
			st->t.samples_ip_kernel++;
		if (s->sample_type & HWP_SAMPLE_TIME) {
			if (s->time < st->t.first_time)
				st->t.first_time = s->time;
			if (s->time > st->t.last_time)
				st->t.last_time = s->time;
		}
		if (s->sample_type & HWP_SAMPLE_CALLCHAIN)
			st->t.samples_with_callchain++;
		if (s->sample_type & HWP_SAMPLE_BRANCH_STACK)
			add_branches(st, s);
		break;
	}
	case HWP_RECORD_LOST:
		if (ev->size >= 24)
			st->t.lost_events += ld64(ev->data + 16);
		break;
	case HWP_RECORD_LOST_SAMPLES:
		if (ev->size >= 16)
			st->t.lost_samples += ld64(ev->data + 8);
		break;
	default:
		break;
	}
}
