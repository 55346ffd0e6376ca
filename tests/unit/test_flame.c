/* Flame graphs (hwprof/flame.h): folded order and names, SVG escaping and
   totals, the differential form, bad arguments. Every public header is
   included, so a tag clash between them (enum vs struct) fails the build. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/callgraph.h"
#include "hwprof/capture.h"
#include "hwprof/emulate.h"
#include "hwprof/flame.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"
#include "testlib.h"

/* The output of FN(F, fp) as a string (static buffer). */
static const char *capture(struct hwp_flame *f, bool svg)
{
	static char buf[65536];
	FILE *fp = tmpfile();
	struct hwp_flame_svg_opts o = { .sz = sizeof(o), .title = "t<&>" };
	size_t n;

	if (!fp)
		return "";
	int rc = svg ? hwp_flame__write_svg(f, fp, &o) : hwp_flame__write_folded(f, fp);
	rewind(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = 0;
	fclose(fp);
	return rc ? "" : buf;
}

static void test_folded_order_and_names(void)
{
	struct hwp_flame *f = hwp_flame__new();
	const char *a[] = { "main", "zeta" }, *b[] = { "main", "alpha;beta" }, *c[] = { "main" };

	CHECK(f);
	CHECK(hwp_flame__add_stack(f, HWP_FLAME_AFTER, a, 2, 3) == 0);
	CHECK(hwp_flame__add_stack(f, HWP_FLAME_AFTER, b, 2, 2) == 0);
	CHECK(hwp_flame__add_stack(f, HWP_FLAME_AFTER, c, 1, 1) == 0);
	CHECK(hwp_flame__add_stack(f, HWP_FLAME_AFTER, a, 2, 4) == 0);
	/* parents first, children in name order; ';' inside a name would split it */
	const char *want = "main 1\nmain;alpha:beta 2\nmain;zeta 7\n";
	const char *got = capture(f, false);
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "got:\n%s", got);
	hwp_flame__delete(f);
}

static void test_svg_escapes_and_totals(void)
{
	struct hwp_flame *f = hwp_flame__new();
	const char *a[] = { "operator<<", "f&g" }, *b[] = { "operator<<", "\"q\"" };

	CHECK(hwp_flame__add_stack(f, HWP_FLAME_AFTER, a, 2, 30) == 0);
	CHECK(hwp_flame__add_stack(f, HWP_FLAME_AFTER, b, 2, 10) == 0);
	const char *svg = capture(f, true);
	CHECK(strstr(svg, "data-total=\"40\""));
	CHECK(strstr(svg, "data-n=\"operator&lt;&lt;\" data-x=\"0\" data-w=\"40\" data-d=\"1\""));
	CHECK(strstr(svg, "data-n=\"f&amp;g\""));
	CHECK(strstr(svg, "data-n=\"&quot;q&quot;\""));
	CHECK(strstr(svg, ">t&lt;&amp;&gt;</text>"));
	CHECK(!strstr(svg, "operator<<"));
	/* "\"q\"" sorts before "f&g": it starts at 0, f&g after it */
	CHECK(strstr(svg, "data-n=\"f&amp;g\" data-x=\"10\" data-w=\"30\" data-d=\"2\""));
	hwp_flame__delete(f);
}

static void test_diff(void)
{
	struct hwp_flame *f = hwp_flame__new();
	const char *a[] = { "main", "grew" }, *b[] = { "main", "shrank" };

	CHECK(hwp_flame__add_stack(f, HWP_FLAME_BEFORE, a, 2, 10) == 0);
	CHECK(hwp_flame__add_stack(f, HWP_FLAME_BEFORE, b, 2, 30) == 0);
	CHECK(hwp_flame__add_stack(f, HWP_FLAME_AFTER, a, 2, 30) == 0);
	CHECK(hwp_flame__add_stack(f, HWP_FLAME_AFTER, b, 2, 10) == 0);
	CHECK(strcmp(capture(f, false), "main;grew 10 30\nmain;shrank 30 10\n") == 0);
	const char *svg = capture(f, true);
	CHECK(strstr(svg, "data-diff=\"1\""));
	/* grew: pure red at the largest change; shrank: pure blue */
	const char *g = strstr(svg, "data-n=\"grew\""), *s = strstr(svg, "data-n=\"shrank\"");
	CHECK(g && strstr(g, "fill=\"rgb(255,0,0)\"") && strstr(g, "fill=\"rgb(255,0,0)\"") < strstr(g, "</g>"));
	CHECK(s && strstr(s, "fill=\"rgb(0,0,255)\"") && strstr(s, "fill=\"rgb(0,0,255)\"") < strstr(s, "</g>"));
	hwp_flame__delete(f);
}

static void test_bad_arguments(void)
{
	struct hwp_flame *f = hwp_flame__new();
	const char *a[] = { "x" };
	struct hwp_flame_svg_opts bad = { .sz = 0 };
	FILE *fp = tmpfile();

	CHECK(hwp_flame__add_stack(f, (enum hwp_flame_side)7, a, 1, 1) == -EINVAL);
	CHECK(fp && hwp_flame__write_svg(f, fp, &bad) == -EINVAL);
	/* an empty graph is a valid (empty) SVG and no folded lines */
	CHECK(strcmp(capture(f, false), "") == 0);
	CHECK(strstr(capture(f, true), "</svg>"));
	CHECK(hwp_call_graph__new(NULL, NULL) == NULL && errno == EINVAL);
	if (fp)
		fclose(fp);
	hwp_flame__delete(f);
	hwp_flame__delete(NULL);
	hwp_call_graph__delete(NULL);
}

int main(void)
{
	RUN(test_folded_order_and_names);
	RUN(test_svg_escapes_and_totals);
	RUN(test_diff);
	RUN(test_bad_arguments);
	TL_EXIT();
}
