/* SPDX-License-Identifier: MIT */
/* hwprof/script.h: samples as perf script prints them, or JSON. */
#include <errno.h>
#include <string.h>

#include "hwprof/perf_data.h"
#include "hwprof/script.h"
#include "hwprof/session.h"
#include "output/json.h"
#include "output/outbuf.h"
#include "output/perf_script.h"
#include "output/sample_json.h"
#include "util/error.h"
#include "util/opts.h"

/* -F LIST: "ip,brstack" and its subsets, or fields of precise samples
   (perf script -F event,cpu,ip,addr,weight,data_src,phys_addr). */
int hwp_script__parse_fields(const char *list, unsigned *mem_fields)
{
	static const struct { const char *name; unsigned flag; } names[] = {
		{ "cpu", HWP_SCRIPT_F_CPU }, { "event", HWP_SCRIPT_F_EVENT },
		{ "addr", HWP_SCRIPT_F_ADDR }, { "data_src", HWP_SCRIPT_F_DATA_SRC },
		{ "weight", HWP_SCRIPT_F_WEIGHT }, { "ip", HWP_SCRIPT_F_IP },
		{ "phys_addr", HWP_SCRIPT_F_PHYS_ADDR },
	};
	char buf[256], *tok, *save = NULL;
	unsigned f = 0;
	bool brstack = false;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;
		if (!strcmp(tok, "brstack")) {
			brstack = true;
			continue;
		}
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -EINVAL;
		f |= names[i].flag;
	}
	if (f & ~(unsigned)HWP_SCRIPT_F_IP) {
		if (brstack)
			return -EINVAL;
		*mem_fields = f;
	} else {
		*mem_fields = 0;
	}
	return 0;
}

bool hwp_script__needs_maps(const struct hwp_script_opts *o)
{
	/* perf's address spaces print callchain addresses relative to their
	   map; -G, JSON and the memory fields do not need them. */
	return !(o->hide_callchain || o->json || o->fields);
}

/* Every sample of S to OUT (JSW: as JSON); 0 or <0 (hwp_errmsg()). */
static int print_samples(struct hwp_session *s, const struct hwp_script_opts *o, struct hwp_outbuf *out,
			 struct hwp_json_writer *jw)
{
	/* perf script text keeps its callchain addresses as printed (perf 6.1
	   text already has them relative to their map). */
	bool relative = hwp_session__machine(s) && !hwp_session__is_text(s);
	bool use_callchain = !o->hide_callchain, callchain_known = false;
	struct hwp_event ev;
	const struct hwp_thread *th;
	int n, name_width = 0, data_src_width = 0;

	if (o->fields & HWP_SCRIPT_F_EVENT) {
		/* perf pads event names to the longest of the file */
		struct hwp_reader *r = hwp_session__reader(s);
		for (size_t i = 0; r && i < hwp_reader__nr_evsels(r); i++) {
			const struct hwp_evsel *e = hwp_reader__evsel(r, i);
			if (e->name && (int)strlen(e->name) > name_width)
				name_width = (int)strlen(e->name);
		}
	}

	while ((n = hwp_session__next(s, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		if (!callchain_known) {
			/* perf uses callchains when any event records them. */
			use_callchain = use_callchain && (hwp_session__sample_types(s) & HWP_SAMPLE_CALLCHAIN);
			callchain_known = true;
		}
		if (jw)
			hwp__sample_json_write(jw, &ev);
		else if (o->fields)
			hwp__perf_script_mem_sample(out, &ev, o->fields, name_width, &data_src_width);
		else
			hwp__perf_script_sample_in(out, &ev, use_callchain, relative ? th : NULL);
	}
	return n;
}

int hwp_script__write(struct hwp_session *s, const struct hwp_script_opts *opts, FILE *fp)
{
	struct hwp_script_opts o;
	struct hwp_outbuf out;
	struct hwp_json_writer *jw = NULL;
	int rc, werr;

	if ((rc = HWP_OPTS_LOAD(opts, &o, struct hwp_script_opts)) < 0)
		return rc;
	if ((rc = hwp__outbuf_init(&out, fp)) < 0)
		return rc;
	if (o.json && !(jw = hwp__json_writer_new(&out)))
		rc = errno ? -errno : -ENOMEM;
	else
		rc = print_samples(s, &o, &out, jw);
	hwp__json_writer_delete(jw);
	werr = hwp__outbuf_finish(&out);
	if (werr && rc >= 0)
		rc = hwp__set_error(-werr, "error writing output: %s", hwp_strerror(werr));
	return rc < 0 ? rc : 0;
}
