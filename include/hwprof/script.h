/* SPDX-License-Identifier: MIT */
/*
 * A session's samples as perf 6.1's `perf script` prints them: -F
 * ip,brstack (with the callchain when one was recorded), the fields of
 * precise memory samples (-F event,cpu,ip,addr,weight,data_src,phys_addr),
 * or one JSON object per sample.
 */
#ifndef HWPROF_SCRIPT_H
#define HWPROF_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

struct hwp_session;

struct hwp_script_opts {
	size_t sz;            /* sizeof(struct hwp_script_opts) */
	bool json;            /* one JSON object per sample */
	bool hide_callchain;  /* as perf script -G */
	unsigned fields;      /* from hwp_script__parse_fields(); 0: ip,brstack */
};

/* perf script's field list LIST ("ip,brstack" and its subsets, or some of
   cpu,event,addr,data_src,weight,ip,phys_addr) into *FIELDS. 0, or -EINVAL
   for a field it does not print, or brstack with memory fields. */
HWP_API int hwp_script__parse_fields(const char *list, unsigned *fields);

/* Whether the session must keep address spaces for O (callchain addresses
   printed relative to their map): else open it with opts.no_maps. */
HWP_API bool hwp_script__needs_maps(const struct hwp_script_opts *o);

/* Every sample of S to FP as O says. 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_script__write(struct hwp_session *s, const struct hwp_script_opts *o, FILE *fp);

HWP_END_DECLS

#endif
