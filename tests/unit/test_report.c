/* The report table models (hwprof/report.h) on made-up inputs: one model
   for every rendering, the options honoured (limit, kind, bad size), the
   text outputs built from the same values. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/report.h"
#include "output/outbuf.h"
#include "output/render.h"
#include "testlib.h"

/* T rendered as F into a new string (free it). */
static char *render(const struct hwp_table *t, enum hwp_table_format f)
{
	struct hwp_outbuf o;
	size_t len;

	if (hwp__outbuf_init(&o, NULL) < 0)
		return NULL;
	hwp__table_render(t, f, &o);
	return hwp__outbuf_take(&o, &len);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* Findings nowhere in a module (module -1): no symbolizer needed. */
static void make_findings(struct hwp_finding f[3])
{
	static const unsigned kinds[3] = { HWP_FIND_BIASED_BRANCH, HWP_FIND_MISPREDICT, HWP_FIND_BIASED_BRANCH };

	memset(f, 0, 3 * sizeof(*f));
	for (int i = 0; i < 3; i++) {
		f[i].kind = (uint8_t)kinds[i];
		f[i].loc.module = f[i].target.module = f[i].end.module = f[i].code2.module = -1;
		f[i].loc.offset = 0x1000 + 0x10 * (uint64_t)i;
		f[i].share = 0.1 / (i + 1);
		f[i].value = 0.9 - 0.1 * i;
		f[i].lo = f[i].value - 0.05;
		f[i].hi = f[i].value + 0.05;
		f[i].samples = 1000 + (uint64_t)i;
	}
}

static void findings_one_model(void)
{
	struct hwp_finding f[3];
	struct hwp_report_opts text = { .sz = sizeof(text), .fmt = HWP_TABLE_TEXT };
	struct hwp_report_opts json = { .sz = sizeof(json), .fmt = HWP_TABLE_JSON };
	struct hwp_table *a, *b;

	make_findings(f);
	a = hwp_report__findings(NULL, f, 3, -1, &text);
	b = hwp_report__findings(NULL, f, 3, -1, &json);
	CHECK(a && b);
	if (a && b) { /* the same columns whatever the rendering; only what is filled differs */
		CHECK_EQ_U64(hwp_table__columns(a), hwp_table__columns(b));
		CHECK_EQ_U64(hwp_table__rows(a), 3);
		CHECK_EQ_U64(hwp_table__rows(b), 3);
	}
	hwp_table__delete(a);
	hwp_table__delete(b);
}

/* The model a program reads: the findings' columns by key, with their kinds
   and units (from the key's suffix), and the cells as they were filled. */
static void findings_model_read(void)
{
	struct hwp_finding f[3];
	struct hwp_report_opts json = { .sz = sizeof(json), .fmt = HWP_TABLE_JSON };
	struct hwp_table *t;
	struct hwp_table_column c = { .sz = sizeof(c) };
	size_t share = SIZE_MAX, kind = SIZE_MAX, samples = SIZE_MAX;

	make_findings(f);
	t = hwp_report__findings(NULL, f, 3, -1, &json);
	CHECK(t);
	if (!t)
		return;
	for (size_t i = 0; i < hwp_table__columns(t); i++) {
		CHECK(hwp_table__column(t, i, &c) == 0);
		if (!strcmp(c.key, "share_percent")) {
			share = i;
			CHECK(c.kind == HWP_COL_PERCENT && c.unit && !strcmp(c.unit, "%"));
		} else if (!strcmp(c.key, "kind")) {
			kind = i;
			CHECK(c.kind == HWP_COL_TEXT && !c.unit);
		} else if (!strcmp(c.key, "samples")) {
			samples = i;
			CHECK(c.kind == HWP_COL_COUNT);
		}
	}
	CHECK(share != SIZE_MAX && kind != SIZE_MAX && samples != SIZE_MAX);
	if (share != SIZE_MAX && kind != SIZE_MAX && samples != SIZE_MAX) {
		const char *s = NULL;
		uint64_t n = 0;
		double d = 0;

		CHECK(hwp_table__cell_text(t, 0, kind, &s) && s && !strcmp(s, "biased-branch"));
		CHECK(hwp_table__cell_count(t, 2, samples, &n) && n == f[2].samples);
		CHECK(hwp_table__cell_real(t, 0, share, &d) && d > 9.99 && d < 10.01);
		CHECK(!hwp_table__cell_real(t, 0, kind, &d));   /* a text cell is no number */
		CHECK(!hwp_table__cell_count(t, 3, samples, &n)); /* no such row */
	}
	c.sz = 0;
	CHECK(hwp_table__column(t, 0, &c) < 0);                       /* the size is required */
	c.sz = sizeof(c);
	CHECK(hwp_table__column(t, hwp_table__columns(t), &c) < 0); /* no such column */
	hwp_table__delete(t);
}

static void findings_kind_and_limit(void)
{
	struct hwp_finding f[3];
	struct hwp_report_opts o = { .sz = sizeof(o), .fmt = HWP_TABLE_JSON, .limit = 1 };
	struct hwp_table *t;
	char *s;

	make_findings(f);
	t = hwp_report__findings(NULL, f, 3, HWP_FIND_BIASED_BRANCH, NULL);
	CHECK(t && hwp_table__rows(t) == 2);
	hwp_table__delete(t);
	t = hwp_report__findings(NULL, f, 3, HWP_FIND_MISPREDICT, &o);
	CHECK(t && hwp_table__rows(t) == 1);
	s = t ? render(t, HWP_TABLE_JSON) : NULL;
	/* the one mispredict finding, ranked first among those shown */
	CHECK(s && strstr(s, "\"rank\":1") && strstr(s, hwp_finding_kind__name(HWP_FIND_MISPREDICT)));
	CHECK(s && !strstr(s, hwp_finding_kind__name(HWP_FIND_BIASED_BRANCH)));
	free(s);
	hwp_table__delete(t);
}

static void bad_opts_refused(void)
{
	struct hwp_finding f[3];
	struct hwp_report_opts o = { .sz = 0, .fmt = HWP_TABLE_JSON };

	make_findings(f);
	CHECK(hwp_report__findings(NULL, f, 3, -1, &o) == NULL);
	CHECK(strstr(hwp_errmsg(), "hwp_report_opts") != NULL);
}

static void findings_text(void)
{
	struct hwp_finding f[3];
	struct hwp_report_opts o = { .sz = sizeof(o), .limit = 2 };
	char *buf = NULL, ev[512], num[64];
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		SKIP("open_memstream: %s", strerror(errno));
	make_findings(f);
	CHECK(hwp_report__print_findings(NULL, f, 3, -1, &o, fp) == 0);
	fclose(fp);
	/* two findings, each with its evidence and its action */
	CHECK(buf && count(buf, "   -> ") == 2);
	hwp_report__finding_evidence(&f[0], ev, sizeof(ev));
	CHECK(buf && strstr(buf, ev));
	snprintf(num, sizeof(num), "%llu", (unsigned long long)f[0].samples);
	CHECK(strstr(ev, num)); /* the evidence counts the samples */
	free(buf);
	/* nothing to show: it says so */
	buf = NULL;
	fp = open_memstream(&buf, &len);
	CHECK(fp && hwp_report__print_findings(NULL, f, 3, HWP_FIND_FALSE_SHARING, NULL, fp) == 0);
	if (fp)
		fclose(fp);
	CHECK(buf && count(buf, "\n") == 1);
	free(buf);
}

static void range_stats_rows(void)
{
	struct hwp_range_stats st;
	struct hwp_table *t;
	char *csv;

	memset(&st, 0, sizeof(st));
	st.pairs = 200;
	st.accepted = 150;
	st.rejected[0] = 50;
	t = hwp_report__range_stats(&st);
	CHECK(t != NULL);
	if (!t)
		return;
	/* all, accepted, accepted but not decoded, then one row per reason */
	CHECK_EQ_U64(hwp_table__rows(t), 3 + HWP_RANGE_REJECT_NR);
	csv = render(t, HWP_TABLE_CSV);
	CHECK(csv && strstr(csv, "all,,200,100") && strstr(csv, "accepted,,150,75"));
	CHECK(csv && strstr(csv, hwp_range_reject__name(0)));
	free(csv);
	hwp_table__delete(t);
}

static void conds_sorted(void)
{
	struct hwp_flow_cond c[4];

	memset(c, 0, sizeof(c));
	for (int i = 0; i < 4; i++) {
		c[i].site.module = i % 2;
		c[i].site.offset = 0x100 - (uint64_t)i;
		c[i].executions = (uint64_t)(i * 7 % 4);
	}
	hwp_report__sort_conds_by_site(c, 4);
	for (int i = 1; i < 4; i++)
		CHECK(c[i - 1].site.module < c[i].site.module ||
		      (c[i - 1].site.module == c[i].site.module && c[i - 1].site.offset < c[i].site.offset));
	hwp_report__sort_conds_by_executions(c, 4);
	for (int i = 1; i < 4; i++)
		CHECK(c[i - 1].executions >= c[i].executions);
}

static void names(void)
{
	CHECK(strcmp(hwp_report__cycles_name(HWP_CYCLES_MODELLED), hwp_report__cycles_name(HWP_CYCLES_MEASURED)));
	CHECK(strcmp(hwp_report__mispredicts_note(true), hwp_report__mispredicts_note(false)));
	CHECK(hwp_report__mispredicts_note(true)[0] == '#' && hwp_report__mispredicts_note(false)[0] == '#');
}

int main(void)
{
	RUN(findings_one_model);
	RUN(findings_model_read);
	RUN(findings_kind_and_limit);
	RUN(bad_opts_refused);
	RUN(findings_text);
	RUN(range_stats_rows);
	RUN(conds_sorted);
	RUN(names);
	TL_EXIT();
}
