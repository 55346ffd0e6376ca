/* The order in which a parallel pass's parts' rows merge
   (src/util/merge_order.c): each part's rows with the places they were
   first added; the merged order must hold every row once, by place, a
   part's rows of one place in their order and parts in theirs on ties
   (places of different parts are distinct in the tables, but a fixed set
   of rows never seen shares one place). Parts in order are merged run by
   run; a part out of order is sorted first. Each result is checked for
   those properties: every row once, with its place, places never
   decreasing, ties in part then row order. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "util/merge_order.h"

#define MAX_PARTS 67

struct parts {
	uint64_t *first[MAX_PARTS];
	size_t nr[MAX_PARTS];
};

static void part_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	const struct parts *p = ctx;

	*first = p->first[k];
	*nr = p->nr[k];
}

static uint64_t state = 88172645463325252ull;

/* Rows dealt to N parts, sorted in each part unless SHUFFLED; places
   drawn from SPAN (small: ties across parts). */
static size_t deal(struct parts *p, size_t n, size_t rows_each, uint64_t span, bool shuffled)
{
	size_t total = 0;

	for (size_t k = 0; k < n; k++) {
		size_t nr = rows_each ? next_random(&state) % (rows_each + 1) : 0;
		uint64_t at = 0;

		p->first[k] = malloc((nr ? nr : 1) * sizeof(uint64_t));
		p->nr[k] = nr;
		for (size_t i = 0; i < nr; i++)
			p->first[k][i] = shuffled ? next_random(&state) % span : (at += next_random(&state) % span);
		total += nr;
	}
	return total;
}

static void undeal(struct parts *p, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(p->first[k]);
}

/* OUT holds every (part, row) once, by place, ties in part then row
   order. */
static bool merged_right(const struct parts *p, size_t n, const struct hwp__merge_ref *out, size_t total)
{
	size_t want = 0;
	for (size_t k = 0; k < n; k++)
		want += p->nr[k];
	if (want != total)
		return false;
	bool *seen[MAX_PARTS];
	bool ok = true;
	for (size_t k = 0; k < n; k++)
		seen[k] = calloc(p->nr[k] + 1, 1);
	for (size_t i = 0; i < total && ok; i++) {
		const struct hwp__merge_ref *r = &out[i];
		if (r->part >= n || r->row >= p->nr[r->part] || seen[r->part][r->row] ||
		    p->first[r->part][r->row] != r->pos)
			ok = false;
		else
			seen[r->part][r->row] = true;
		if (ok && i && out[i - 1].pos > r->pos)
			ok = false;
		if (ok && i && out[i - 1].pos == r->pos &&
		    (out[i - 1].part > r->part || (out[i - 1].part == r->part && out[i - 1].row > r->row)))
			ok = false;
	}
	for (size_t k = 0; k < n; k++)
		free(seen[k]);
	return ok;
}

static void check_case(size_t n, size_t rows_each, uint64_t span, bool shuffled)
{
	struct parts p;
	struct hwp__merge_ref *out = NULL;
	size_t total = 0, want = deal(&p, n, rows_each, span, shuffled);

	CHECK(hwp__merge_order(n, part_rows, &p, &out, &total) == 0);
	CHECK_EQ_U64(total, want);
	CHECK(merged_right(&p, n, out, total));
	free(out);
	undeal(&p, n);
}

/* parts in order, the pass's case: 1, 2, 3 (an odd run left over in a
   round), 8 and 67 parts, distinct and tied places */
static void test_runs_in_order(void)
{
	static const size_t parts[] = { 1, 2, 3, 8, 67 };

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		check_case(parts[i], 5000, 1000, false);
		check_case(parts[i], 5000, 2, false); /* many ties */
	}
}

/* parts not in order (the memory sources' fixed rows) are sorted first */
static void test_runs_out_of_order(void)
{
	check_case(1, 3000, 50, true);
	check_case(5, 3000, 1u << 30, true);
	check_case(67, 300, 7, true);
}

/* no parts, parts without rows */
static void test_empty(void)
{
	struct hwp__merge_ref *out = NULL;
	size_t total = 99;
	struct parts p = { 0 };

	CHECK(hwp__merge_order(0, part_rows, &p, &out, &total) == 0);
	CHECK_EQ_U64(total, 0);
	free(out);
	check_case(4, 0, 10, false);
}

int main(void)
{
	RUN(test_runs_in_order);
	RUN(test_runs_out_of_order);
	RUN(test_empty);
	TL_EXIT();
}
