/* hwp_timing__modes on distributions whose peaks are known, and the chart
   module's escaping and structure. */
#include <math.h>
#include <stdint.h>

#include "hwprof/timing.h"
#include "output/chart.h"
#include "testlib.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double uni(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t hist[70000];

static uint32_t gauss(double mu, double sigma)
{
	double v = mu + sigma * sqrt(-2 * log(uni())) * cos(2 * M_PI * uni());
	return v < 1 ? 1 : (uint32_t)lround(v);
}

/* The histogram as values, ascending. */
static size_t values(struct hwp_timing_value *v)
{
	size_t n = 0;

	for (uint32_t c = 1; c < 70000; c++)
		if (hist[c])
			v[n++] = (struct hwp_timing_value){ c, hist[c] };
	return n;
}

static struct hwp_timing_value vals[70000];
static struct hwp_timing_mode m[HWP_TIMING_MAX_MODES];

static size_t modes_of(void)
{
	size_t n = values(vals);

	return hwp_timing__modes(vals, n, m, HWP_TIMING_MAX_MODES);
}

static void unimodal_gaussian(void)
{
	memset(hist, 0, sizeof(hist));
	for (int i = 0; i < 20000; i++)
		hist[gauss(100, 8)]++;
	CHECK_EQ_U64(modes_of(), 1);
	CHECK(fabs((double)m[0].cycles - 100) <= 4);
	CHECK_EQ_U64(m[0].samples, 20000);
}

/* a skewed latency (most fast, a long tail) has one mode */
static void unimodal_long_tail(void)
{
	memset(hist, 0, sizeof(hist));
	for (int i = 0; i < 20000; i++)
		hist[12 + (uint32_t)(-20 * log(uni()))]++;
	CHECK_EQ_U64(modes_of(), 1);
	CHECK(m[0].cycles <= 16);
}

static void bimodal_hit_miss(void)
{
	memset(hist, 0, sizeof(hist));
	for (int i = 0; i < 10000; i++)
		hist[uni() < 0.8 ? gauss(40, 2) : gauss(300, 15)]++;
	CHECK_EQ_U64(modes_of(), 2);
	CHECK(fabs((double)m[0].cycles - 40) <= 3);
	CHECK(fabs((double)m[1].cycles - 300) <= 20);
	CHECK(fabs((double)m[0].samples / 10000 - 0.8) < 0.03);
	CHECK_EQ_U64(m[0].samples + m[1].samples, 10000);
	CHECK(m[0].hi < m[1].lo);
}

/* small exact values: 3 and 9 cycles apart from each other */
static void bimodal_small_values(void)
{
	memset(hist, 0, sizeof(hist));
	hist[3] = 500, hist[4] = 100, hist[9] = 300, hist[10] = 60;
	CHECK_EQ_U64(modes_of(), 2);
	CHECK_EQ_U64(m[0].cycles, 3);
	CHECK_EQ_U64(m[1].cycles, 9);
}

static void trimodal(void)
{
	memset(hist, 0, sizeof(hist));
	for (int i = 0; i < 30000; i++) {
		double u = uni();
		hist[u < 0.5 ? gauss(20, 1) : u < 0.8 ? gauss(90, 4) : gauss(600, 25)]++;
	}
	CHECK_EQ_U64(modes_of(), 3);
	CHECK(fabs((double)m[0].cycles - 20) <= 2);
	CHECK(fabs((double)m[1].cycles - 90) <= 6);
	CHECK(fabs((double)m[2].cycles - 600) <= 40);
}

/* a handful of samples has no mode worth the name */
static void too_few_samples(void)
{
	memset(hist, 0, sizeof(hist));
	hist[100] = 2, hist[5000] = 2;
	CHECK_EQ_U64(modes_of(), 0);
	hist[100] = 40;
	CHECK_EQ_U64(modes_of(), 1);
	CHECK_EQ_U64(m[0].cycles, 100);
}

static void single_value(void)
{
	memset(hist, 0, sizeof(hist));
	hist[7] = 1000;
	CHECK_EQ_U64(modes_of(), 1);
	CHECK_EQ_U64(m[0].cycles, 7);
	CHECK_EQ_U64(m[0].lo, 7);
	CHECK_EQ_U64(m[0].hi, 7);
}

static char *render(struct hwp_chart *c)
{
	FILE *fp = tmpfile();
	struct hwp_outbuf o;
	char *buf;
	long n;

	hwp__outbuf_init(&o, fp);
	hwp__chart_render(c, &o);
	hwp__outbuf_finish(&o);
	n = lseek(fileno(fp), 0, SEEK_END);
	buf = calloc(1, (size_t)n + 1);
	if (pread(fileno(fp), buf, (size_t)n, 0) != n)
		tl_case_failed = 1;
	fclose(fp);
	return buf;
}

static void chart_escapes_and_structure(void)
{
	struct hwp_chart_opts o = { .sz = sizeof(o), .title = "a<b & \"c\"" };
	struct hwp_chart *c = hwp__chart_new(&o);

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(hwp__chart_axis(c, HWP_CHART_X, "cycles", 10, 5, 0) < 0); /* max <= min */
	CHECK(hwp__chart_axis(c, HWP_CHART_Y, "rate", 0, 10, HWP_AXIS_LOG) < 0);
	CHECK(hwp__chart_axis(c, HWP_CHART_X, "cycles", 0, 100, HWP_AXIS_INTEGER) == 0);
	CHECK(hwp__chart_axis(c, HWP_CHART_Y, "rate", 0, 50, HWP_AXIS_PERCENT) == 0);
	CHECK(hwp__chart_bar(c, 9.5, 10.5, 40, 0, "10 <cycles>") == 0);
	CHECK(hwp__chart_mark(c, 10, 1, "mode 10") == 0);
	CHECK(hwp__chart_note(c, "x'y") == 0);
	char *s = render(c);
	CHECK(strstr(s, "<svg xmlns=\"http://www.w3.org/2000/svg\"") != NULL);
	CHECK(strstr(s, "a&lt;b &amp; &quot;c&quot;") != NULL);
	CHECK(strstr(s, "10 &lt;cycles&gt;") != NULL);
	CHECK(strstr(s, "x&#39;y") != NULL);
	CHECK(strstr(s, "class=\"bar\"") != NULL);
	CHECK(strstr(s, "class=\"mark\"") != NULL);
	CHECK(strstr(s, ">50%</text>") != NULL); /* a percent tick */
	CHECK(strstr(s, ">100</text>") != NULL); /* the last x tick */
	CHECK(strstr(s, "</svg>\n") != NULL);
	free(s);
	hwp__chart_delete(c);
	hwp__chart_delete(NULL);
}

/* a title wider than the canvas is cut with an ellipsis; close marks get
   their labels on different rows */
static void chart_layout(void)
{
	char title[400];

	memset(title, 'x', sizeof(title) - 1);
	title[sizeof(title) - 1] = 0;
	struct hwp_chart_opts o = { .sz = sizeof(o), .width = 400, .height = 300, .title = title };
	struct hwp_chart *c = hwp__chart_new(&o);

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(hwp__chart_axis(c, HWP_CHART_X, "cycles", 0, 100, 0) == 0);
	CHECK(hwp__chart_mark(c, 50, 1, "mode 50 (40%)") == 0);
	CHECK(hwp__chart_mark(c, 52, 1, "mode 52 (30%)") == 0);
	CHECK(hwp__chart_mark(c, 95, 1, "far") == 0);
	char *s = render(c);
	CHECK(strstr(s, "\xe2\x80\xa6</text>") != NULL);
	CHECK(strstr(s, title) == NULL);
	/* the two close labels: different y; the far one shares the first row */
	const char *a = strstr(s, ">mode 50"), *b = strstr(s, ">mode 52"), *f = strstr(s, ">far<");
	CHECK(a && b && f);
	if (a && b && f) {
		const char *ya = a, *yb = b, *yf = f;

		while (ya > s && strncmp(ya, " y=\"", 4))
			ya--;
		while (yb > s && strncmp(yb, " y=\"", 4))
			yb--;
		while (yf > s && strncmp(yf, " y=\"", 4))
			yf--;
		CHECK(atof(ya + 4) != atof(yb + 4));
		CHECK(atof(ya + 4) == atof(yf + 4));
	}
	free(s);
	hwp__chart_delete(c);
}

int main(void)
{
	RUN(unimodal_gaussian);
	RUN(unimodal_long_tail);
	RUN(bimodal_hit_miss);
	RUN(bimodal_small_values);
	RUN(trimodal);
	RUN(too_few_samples);
	RUN(single_value);
	RUN(chart_escapes_and_structure);
	RUN(chart_layout);
	TL_EXIT();
}
