/* SPDX-License-Identifier: MIT */
/* hwprof info's renderings of one recording, shared with the several-input summary. */
#ifndef HWPROF_INFO_INTERNAL_H
#define HWPROF_INFO_INTERNAL_H

#include "hwprof/file_stats.h"
#include "hwprof/perf_data.h"
#include "hwprof/table.h"
#include "output/json.h"
#include "output/outbuf.h"

void hwp__info_text(struct hwp_outbuf *o, const struct hwp_reader *r, const struct hwp_file_stats *st);
/* One object. */
void hwp__info_json(struct hwp_json_writer *j, const struct hwp_reader *r, const struct hwp_file_stats *st);
/* 0 for text and JSON, else <0 (EINVAL). */
int hwp__info_check_format(enum hwp_table_format fmt);
/* Finishes J (may be NULL), deletes it and finishes O: 0 or <0 with hwp_errmsg(). */
int hwp__info_finish(struct hwp_outbuf *o, struct hwp_json_writer *j);

#endif
