/* SPDX-License-Identifier: MIT */
/* `perf script -F event,cpu,addr,data_src,weight,ip` as perf 6.1 prints it. */
#include <stdio.h>

#include "format/data_src_internal.h"
#include "hwprof/data_src.h"
#include "output/perf_script.h"

/* The sample's latency as perf reports "weight": WEIGHT_STRUCT's first
   field (var1_dw), else the whole WEIGHT. */
static uint64_t weight_of(const struct hwp_sample *s)
{
	if (s->sample_type & HWP_SAMPLE_WEIGHT_STRUCT)
		return s->weight_var1;
	return s->weight;
}

void hwp__perf_script_mem_sample(struct hwp_outbuf *o, const struct hwp_event *ev, unsigned fields,
				 int name_width, int *data_src_width)
{
	const struct hwp_sample *s = &ev->sample;

	if (fields & HWP_SCRIPT_F_CPU)
		hwp__outbuf_printf(o, "[%03u] ", s->cpu);
	if (fields & HWP_SCRIPT_F_EVENT)
		hwp__outbuf_printf(o, "%*s: ", name_width,
				   ev->evsel && ev->evsel->name ? ev->evsel->name : "[unknown]");
	if (fields & HWP_SCRIPT_F_ADDR)
		hwp__outbuf_printf(o, "%16llx", (unsigned long long)s->addr);
	if (fields & HWP_SCRIPT_F_DATA_SRC) {
		/* perf pads this column to the widest one printed so far, and
		   cuts it at 99 characters (its 100-byte buffer). */
		char dec[400], col[100];
		int n;

		hwp__data_src_format(s->data_src, dec, sizeof(dec));
		n = snprintf(col, sizeof(col), "%16llx %s", (unsigned long long)s->data_src, dec);
		if (n > (int)sizeof(col) - 1)
			n = (int)sizeof(col) - 1;
		if (n > *data_src_width)
			*data_src_width = n;
		hwp__outbuf_printf(o, "%-*s", *data_src_width, col);
	}
	if (fields & HWP_SCRIPT_F_WEIGHT)
		hwp__outbuf_printf(o, "%16llu", (unsigned long long)weight_of(s));
	if (fields & HWP_SCRIPT_F_IP) {
		hwp__outbuf_putc(o, ' ');
		hwp__outbuf_hex(o, s->ip, 16);
	}
	if (fields & HWP_SCRIPT_F_PHYS_ADDR)
		hwp__outbuf_printf(o, "%16llx", (unsigned long long)s->phys_addr);
	hwp__outbuf_putc(o, '\n');
}
