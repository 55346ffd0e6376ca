/* SPDX-License-Identifier: MIT */
/* `perf script -F event,cpu,addr,data_src,weight,ip` as perf 6.1 prints it. */
#include <stdio.h>

#include "hwprof/data_src.h"
#include "hwprof/perf_script.h"

/* The sample's latency as perf reports "weight": WEIGHT_STRUCT's first
   field (var1_dw), else the whole WEIGHT. */
static uint64_t weight_of(const struct hwp_sample *s)
{
	if (s->sample_type & HWP_SAMPLE_WEIGHT_STRUCT)
		return s->weight_var1;
	return s->weight;
}

void hwp_perf_script__mem_sample(struct hwp_outbuf *o, const struct hwp_event *ev, unsigned fields,
				 int name_width, int *data_src_width)
{
	const struct hwp_sample *s = &ev->sample;

	if (fields & HWP_SCRIPT_F_CPU)
		hwp_outbuf__printf(o, "[%03u] ", s->cpu);
	if (fields & HWP_SCRIPT_F_EVENT)
		hwp_outbuf__printf(o, "%*s: ", name_width,
				   ev->evsel && ev->evsel->name ? ev->evsel->name : "[unknown]");
	if (fields & HWP_SCRIPT_F_ADDR)
		hwp_outbuf__printf(o, "%16llx", (unsigned long long)s->addr);
	if (fields & HWP_SCRIPT_F_DATA_SRC) {
		/* perf pads this column to the widest one printed so far, and
		   cuts it at 99 characters (its 100-byte buffer). */
		char dec[400], col[100];
		int n;

		hwp_data_src__format(s->data_src, dec, sizeof(dec));
		n = snprintf(col, sizeof(col), "%16llx %s", (unsigned long long)s->data_src, dec);
		if (n > (int)sizeof(col) - 1)
			n = (int)sizeof(col) - 1;
		if (n > *data_src_width)
			*data_src_width = n;
		hwp_outbuf__printf(o, "%-*s", *data_src_width, col);
	}
	if (fields & HWP_SCRIPT_F_WEIGHT)
		hwp_outbuf__printf(o, "%16llu", (unsigned long long)weight_of(s));
	if (fields & HWP_SCRIPT_F_IP) {
		hwp_outbuf__putc(o, ' ');
		hwp_outbuf__hex(o, s->ip, 16);
	}
	if (fields & HWP_SCRIPT_F_PHYS_ADDR)
		hwp_outbuf__printf(o, "%16llx", (unsigned long long)s->phys_addr);
	hwp_outbuf__putc(o, '\n');
}
