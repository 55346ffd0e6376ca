/* SPDX-License-Identifier: MIT */
/* What annotate's views share (annotate_table.c, html_annotate.c). */
#ifndef HWPROF_REPORT_ANNOTATE_INTERNAL_H
#define HWPROF_REPORT_ANNOTATE_INTERNAL_H

#include <stddef.h>

#include "hwprof/annotate.h"

/* An indirect branch's top targets: "0x401230 70.0%, 0x401250 20.0%, +2". */
void hwp__annotate_targets_text(struct hwp_symbolizer *sym, const struct hwp_flow_indirect *ind, char *buf,
				size_t len);
/* A memory group's data sources by share: "L1 60.0%, DRAM 40.0%". */
void hwp__annotate_sources_text(const struct hwp_mem_stats *st, char *buf, size_t len);
/* Event E's JSON key in the table view ("samples_cycles_u"), NULL past the
   last event (annotate.c). */
const char *hwp__annotation_event_key(const struct hwp_annotation *a, size_t e);

#endif
