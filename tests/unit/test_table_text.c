/* The text rendering of tables (src/output/table.c) against printf: numbers
   formatted without printf (decimal, hex, fixed-point reals rounded as
   printf rounds them), cells padded as "%-*s" / "%*s" pad them, and the
   same bytes when a long table is formatted on several threads. */
#include <math.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/table.h"
#include "output/outbuf.h"
#include "testlib.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* hwp__fmt_fixed(D, PREC) as snprintf("%.*f") writes it. */
static void fixed_is_printf(double d, unsigned prec)
{
	char got[64], want[512];
	size_t n = hwp__fmt_fixed(got, d, prec);

	got[n] = 0;
	snprintf(want, sizeof(want), "%.*f", (int)prec, d);
	if (strlen(want) < 32 && strcmp(got, want)) {
		fprintf(stderr, "fixed %.17g prec %u: got [%s] want [%s]\n", d, prec, got, want);
		tl_case_failed = 1;
	}
}

static void fixed_matches_printf(void)
{
	static const double some[] = { 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 1e-9, -1e-9, 0.00005, 0.00015,
				       0.99995, 9.99995, 123456.78905, 1e14, 999999999999999.0, 1e15, 1e300, -1e300,
				       4.9e-324, 2.2250738585072014e-308, INFINITY, -INFINITY, NAN };

	for (size_t i = 0; i < sizeof(some) / sizeof(some[0]); i++)
		for (unsigned p = 0; p <= 9; p++)
			fixed_is_printf(some[i], p);
	for (int i = 0; i < 200000; i++) {
		uint64_t r = next();
		double d;

		switch (i % 4) {
		case 0: /* any magnitude a table shows */
			d = ldexp((double)(r >> 11), (int)(r % 90) - 100);
			break;
		case 1: /* exact ties: k / 2^m */
			d = ldexp((double)(r >> 40), -(int)(r % 14));
			break;
		case 2: /* averages, as the tables make them */
			d = (double)(r >> 20) / (double)((r & 0xfffff) + 1);
			break;
		default: /* decimals that look like ties */
			d = (double)(r % 100000000) / 1e5 + 0.00005;
			break;
		}
		if (r >> 63)
			d = -d;
		fixed_is_printf(d, (unsigned)(r >> 8) % 10);
		fixed_is_printf(d, 2);
		fixed_is_printf(d, 4);
	}
}

static void digits_match_printf(void)
{
	char buf[32];
	uint64_t v = 1;

	CHECK_EQ_U64(hwp__u64_digits(0), 1);
	CHECK_EQ_U64(hwp__u64_digits(UINT64_MAX), (uint64_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)UINT64_MAX));
	for (int i = 0; i < 19; i++, v *= 10) {
		CHECK_EQ_U64(hwp__u64_digits(v), (uint64_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v));
		CHECK_EQ_U64(hwp__u64_digits(v - 1), (uint64_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(v - 1)));
	}
	for (int i = 0; i < 10000; i++) {
		uint64_t r = next() >> (next() % 64);
		CHECK_EQ_U64(hwp__u64_digits(r), (uint64_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r));
	}
}

/* The columns of the tables below: every kind, one not shown as text. */
static const struct {
	const char *title;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} cols[] = {
	{ "Name", HWP_COL_TEXT, HWP_SHOW_ALL },    { "Count", HWP_COL_COUNT, HWP_SHOW_ALL },
	{ "Share", HWP_COL_PERCENT, HWP_SHOW_ALL }, { "data", HWP_COL_COUNT, HWP_SHOW_DATA },
	{ "Avg", HWP_COL_REAL, HWP_SHOW_ALL },     { "Address", HWP_COL_HEX, HWP_SHOW_ALL },
	{ "Taken", HWP_COL_BOOL, HWP_SHOW_ALL },   { "Where", HWP_COL_TEXT, HWP_SHOW_TEXT },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* What a test table holds, kept beside it for the reference rendering. */
struct cellv {
	bool set;
	char *s;
	uint64_t u;
	double d;
};

static struct hwp_table *make_table(size_t rows, bool long_text, struct cellv **model)
{
	struct hwp_table *t = hwp_table__new();
	struct cellv *m = calloc(rows * NCOLS + 1, sizeof(*m));

	for (size_t c = 0; c < NCOLS; c++)
		hwp_table__add_column_shown(t, cols[c].title, cols[c].title, cols[c].kind, cols[c].show);
	for (size_t i = 0; i < rows; i++) {
		hwp_table__new_row(t);
		for (size_t c = 0; c < NCOLS; c++) {
			struct cellv *v = &m[i * NCOLS + c];
			uint64_t r = next();

			if (r % 7 == 0)
				continue; /* never set */
			v->set = true;
			switch (cols[c].kind) {
			case HWP_COL_TEXT: {
				/* (one cell longer than an outbuf's room for a cell) */
				size_t n = long_text && i == rows / 2 ? 70000 : (size_t)(r >> 8) % 30;
				v->s = malloc(n + 1);
				for (size_t k = 0; k < n; k++)
					v->s[k] = (char)('a' + (r >> (k % 50)) % 26);
				v->s[n] = 0;
				hwp_table__set_text(t, c, v->s);
				break;
			}
			case HWP_COL_PERCENT:
			case HWP_COL_REAL:
				v->d = (r >> 9) % 5 == 0 ? 0.0 : (double)(r >> 30) / (double)((r & 0xffff) + 1);
				if ((r >> 5) % 11 == 0) { /* a count in a real column: its zero */
					hwp_table__set_count(t, c, r);
					v->d = 0.0;
				} else {
					hwp_table__set_real(t, c, v->d);
				}
				break;
			case HWP_COL_BOOL:
				v->u = r >> 63;
				hwp_table__set_count(t, c, v->u);
				break;
			default:
				v->u = (r >> 9) % 5 == 0 ? 0 : r >> (r % 64);
				if ((r >> 5) % 11 == 0) { /* text in a number column: its zero */
					hwp_table__set_text(t, c, "x");
					v->u = 0;
				} else {
					hwp_table__set_count(t, c, v->u);
				}
				break;
			}
		}
	}
	*model = m;
	return t;
}

static void free_model(struct cellv *m, size_t rows)
{
	for (size_t i = 0; i < rows * NCOLS; i++)
		free(m[i].s);
	free(m);
}

/* Cell V of column C as printf formats it ("" unset). */
static void ref_cell(size_t c, const struct cellv *v, char *buf, size_t len)
{
	if (!v->set)
		snprintf(buf, len, "%s", "");
	else if (cols[c].kind == HWP_COL_TEXT)
		snprintf(buf, len, "%s", v->s);
	else if (cols[c].kind == HWP_COL_COUNT)
		snprintf(buf, len, "%llu", (unsigned long long)v->u);
	else if (cols[c].kind == HWP_COL_PERCENT)
		snprintf(buf, len, "%.2f%%", v->d);
	else if (cols[c].kind == HWP_COL_REAL)
		snprintf(buf, len, "%.4f", v->d);
	else if (cols[c].kind == HWP_COL_HEX)
		snprintf(buf, len, "%#llx", (unsigned long long)v->u);
	else
		snprintf(buf, len, "%s", v->u ? "true" : "false");
}

/* The text rendering by printf: a '#' header of titles, a "#" line, then
   each row's shown cells as "  %-*s" (text; the last one unpadded) or
   "  %*s" (numbers), each column as wide as its widest cell or title. */
static char *reference(const struct cellv *m, size_t rows, size_t *len)
{
	size_t width[NCOLS], vis[NCOLS], nv = 0;
	char *buf = malloc(80000), *out;
	FILE *f;

	for (size_t c = 0; c < NCOLS; c++)
		if (cols[c].show != HWP_SHOW_DATA)
			vis[nv++] = c;
	for (size_t v = 0; v < nv; v++) {
		width[v] = strlen(cols[vis[v]].title);
		for (size_t i = 0; i < rows; i++) {
			ref_cell(vis[v], &m[i * NCOLS + vis[v]], buf, 80000);
			if (strlen(buf) > width[v])
				width[v] = strlen(buf);
		}
	}
	f = open_memstream(&out, len);
	fprintf(f, "#");
	for (size_t v = 0; v < nv; v++) {
		bool left = cols[vis[v]].kind == HWP_COL_TEXT;
		int pad = (int)(width[v] - strlen(cols[vis[v]].title));
		fprintf(f, "%s%*s%s", v ? "  " : " ", left ? 0 : pad, "", cols[vis[v]].title);
		if (left && v + 1 < nv)
			fprintf(f, "%*s", pad, "");
	}
	fprintf(f, "\n#\n");
	for (size_t i = 0; i < rows; i++) {
		for (size_t v = 0; v < nv; v++) {
			ref_cell(vis[v], &m[i * NCOLS + vis[v]], buf, 80000);
			if (cols[vis[v]].kind == HWP_COL_TEXT)
				fprintf(f, "  %-*s", v + 1 < nv ? (int)width[v] : 0, buf);
			else
				fprintf(f, "  %*s", (int)width[v], buf);
		}
		fprintf(f, "\n");
	}
	fclose(f);
	free(buf);
	return out;
}

/* T printed as text on JOBS threads, read back (*LEN bytes). */
static char *printed(const struct hwp_table *t, unsigned jobs, size_t *len)
{
	FILE *f = tmpfile();
	char *s;
	long n;

	CHECK(hwp_table__print_jobs(t, HWP_TABLE_TEXT, f, jobs) == 0);
	n = lseek(fileno(f), 0, SEEK_END);
	s = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	if (n > 0 && pread(fileno(f), s, (size_t)n, 0) != n)
		tl_case_failed = 1;
	fclose(f);
	*len = (size_t)(n > 0 ? n : 0);
	return s;
}

static void same_text(const char *what, const char *got, size_t glen, const char *want, size_t wlen)
{
	if (glen != wlen || memcmp(got, want, wlen)) {
		size_t k = 0;
		while (k < glen && k < wlen && got[k] == want[k])
			k++;
		fprintf(stderr, "%s: %zu bytes, want %zu; first difference at byte %zu\n", what, glen, wlen, k);
		tl_case_failed = 1;
	}
}

static void text_matches_printf(void)
{
	struct cellv *m;
	struct hwp_table *t = make_table(200, true, &m);
	size_t glen, wlen;
	char *got = printed(t, 1, &glen), *want = reference(m, 200, &wlen);

	same_text("text", got, glen, want, wlen);
	free(got);
	free(want);
	hwp_table__delete(t);
	free_model(m, 200);
}

/* Enough rows for several threads: the same bytes on 1, 2, 3 and 8. */
static void threads_print_the_same(void)
{
	const size_t rows = 100003;
	struct cellv *m;
	struct hwp_table *t = make_table(rows, false, &m);
	size_t wlen;
	char *want = reference(m, rows, &wlen);
	const unsigned jobs[] = { 1, 2, 3, 8 };

	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		size_t glen;
		char *got = printed(t, jobs[j], &glen), what[32];

		snprintf(what, sizeof(what), "-j %u", jobs[j]);
		same_text(what, got, glen, want, wlen);
		free(got);
	}
	free(want);
	hwp_table__delete(t);
	free_model(m, rows);
}

int main(void)
{
	RUN(fixed_matches_printf);
	RUN(digits_match_printf);
	RUN(text_matches_printf);
	RUN(threads_print_the_same);
	TL_EXIT();
}
