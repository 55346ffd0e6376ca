/* Size-versioned option structs (libbpf's OPTS_VALID rules): hwp__opts_load
   itself, and the public entry points that take an opts struct. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/capture.h"
#include "hwprof/emulate.h"
#include "hwprof/hwprof.h"
#include "testlib.h"
#include "util/opts.h"

struct v1 {
	size_t sz;
	int a;
};

struct v2 { /* what this "library" knows */
	size_t sz;
	int a;
	long b;
	const char *c;
};

struct v3 { /* a newer caller */
	struct v2 known;
	uint64_t d;
};

static void zero_size_refused(void)
{
	struct v2 in = { .sz = 0, .a = 1 }, out;

	CHECK(HWP_OPTS_LOAD(&in, &out, struct v2) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "size 0") != NULL);
	in.sz = sizeof(size_t) - 1; /* shorter than the size field itself */
	CHECK(HWP_OPTS_LOAD(&in, &out, struct v2) == -EINVAL);
}

static void null_is_defaults(void)
{
	struct v2 out;

	memset(&out, 0xff, sizeof(out));
	CHECK(HWP_OPTS_LOAD(NULL, &out, struct v2) == 0);
	CHECK(out.sz == sizeof(out) && out.a == 0 && out.b == 0 && out.c == NULL);
}

static void same_size_copied(void)
{
	struct v2 in = { .sz = sizeof(in), .a = 7, .b = -3, .c = "x" }, out;

	CHECK(HWP_OPTS_LOAD(&in, &out, struct v2) == 0);
	CHECK(out.sz == sizeof(out) && out.a == 7 && out.b == -3 && out.c == in.c);
}

static void newer_zero_tail_accepted(void)
{
	struct v3 in;
	struct v2 out;

	memset(&in, 0, sizeof(in));
	in.known.sz = sizeof(in);
	in.known.a = 5;
	CHECK(HWP_OPTS_LOAD(&in, &out, struct v2) == 0);
	CHECK(out.sz == sizeof(out) && out.a == 5); /* sz is what this library knows */
}

static void newer_set_tail_rejected(void)
{
	struct v3 in;
	struct v2 out;

	memset(&in, 0, sizeof(in));
	in.known.sz = sizeof(in);
	in.d = 1;
	CHECK(HWP_OPTS_LOAD(&in, &out, struct v2) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "is set") != NULL);
	/* the last byte alone */
	in.d = 0;
	((unsigned char *)&in)[sizeof(in) - 1] = 0x80;
	CHECK(HWP_OPTS_LOAD(&in, &out, struct v2) == -EINVAL);
}

static void older_size_zero_fills(void)
{
	struct v1 in = { .sz = sizeof(in), .a = 9 };
	struct v2 out;

	memset(&out, 0xff, sizeof(out));
	CHECK(HWP_OPTS_LOAD(&in, &out, struct v2) == 0);
	CHECK(out.sz == sizeof(out) && out.a == 9 && out.b == 0 && out.c == NULL);
}

/* ------------------------------------------------------------ call sites */

static const struct hwp_capture_host host = { .can_profile_kernel = true };

static void attr_opts_checked(void)
{
	struct {
		struct hwp_attr_opts o;
		uint64_t newer;
	} big;
	struct hwp_attr_opts o = { .sz = 0 };
	struct hwp_attr_result *res = calloc(1, sizeof(*res));

	CHECK(res != NULL);
	if (!res)
		return;
	res->sz = sizeof(*res);
	CHECK(hwp_attr__build(&o, &host, res) == -EINVAL);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.event = "cpu-clock";
	CHECK(hwp_attr__build(&big.o, &host, res) == 0);
	big.newer = 1;
	CHECK(hwp_attr__build(&big.o, &host, res) == -EINVAL);
	/* an older caller that knew only the event and the period */
	o.sz = offsetof(struct hwp_attr_opts, freq);
	o.event = "cpu-clock";
	o.period = 1234;
	o.freq = 99; /* past its size: must be ignored */
	CHECK(hwp_attr__build(&o, &host, res) == 0);
	CHECK(res->attr.sample_period == 1234);
	free(res);
}

/* Result structs: the caller's size is checked and respected both ways. */
static void result_size_checked(void)
{
	struct hwp_attr_opts o = { .sz = sizeof(o), .event = "cpu-clock", .period = 1234 };
	struct {
		struct hwp_attr_result r;
		uint64_t newer;
	} big;
	struct hwp_attr_result *res = malloc(sizeof(*res));
	const unsigned char *tail;
	size_t old = offsetof(struct hwp_attr_result, event);
	bool untouched = true;

	CHECK(res != NULL);
	if (!res)
		return;
	memset(res, 0, sizeof(*res));
	CHECK(hwp_attr__build(&o, &host, res) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "hwp_attr_result") && strstr(hwp_errmsg(), "size 0"));
	/* an older caller whose struct ended before EVENT: nothing past it written */
	memset(res, 0xa5, sizeof(*res));
	res->sz = old;
	CHECK(hwp_attr__build(&o, &host, res) == 0);
	CHECK(res->sz == old && res->attr.sample_period == 1234);
	tail = (const unsigned char *)res + old;
	for (size_t i = 0; i < sizeof(*res) - old; i++)
		untouched &= tail[i] == 0xa5;
	CHECK(untouched);
	/* a newer caller: what this library does not know reads as zero */
	memset(&big, 0xa5, sizeof(big));
	big.r.sz = sizeof(big);
	CHECK(hwp_attr__build(&o, &host, &big.r) == 0);
	CHECK(big.r.sz == sizeof(big) && big.r.attr.sample_period == 1234 && big.newer == 0);
	CHECK(strcmp(big.r.event.name, "cpu-clock") == 0);
	free(res);
}

static void record_opts_checked(void)
{
	struct hwp_record_opts o = { .sz = 0 };
	struct hwp_record_result *res = calloc(1, sizeof(*res));
	struct {
		struct hwp_record_opts o;
		uint64_t newer;
	} big;

	CHECK(res != NULL);
	if (!res)
		return;
	res->sz = sizeof(*res);
	CHECK(hwp_record__run(&o, res) == -EINVAL);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.newer = 1;
	CHECK(hwp_record__run(&big.o, res) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "is set") != NULL);
	free(res);
}

static void emu_opts_checked(void)
{
	char *argv[] = { "/bin/true", NULL };
	struct hwp_emu_opts o = { .sz = 0, .argc = 1, .argv = argv };
	struct {
		struct hwp_emu_opts o;
		uint64_t newer;
	} big;

	errno = 0;
	CHECK(hwp_emu__new(&o) == NULL && errno == EINVAL);
	CHECK(strstr(hwp_errmsg(), "size 0") != NULL);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.argc = 1;
	big.o.argv = argv;
	big.newer = 1;
	errno = 0;
	CHECK(hwp_emu__new(&big.o) == NULL && errno == EINVAL);
	CHECK(strstr(hwp_errmsg(), "is set") != NULL);
	/* an older, smaller size: the fields past it (argc, argv) read as zero */
	o.sz = offsetof(struct hwp_emu_opts, branch_filter);
	errno = 0;
	CHECK(hwp_emu__new(&o) == NULL && errno == EINVAL);
	CHECK(strstr(hwp_errmsg(), "no program") != NULL);
	/* the struct is named in the message */
	o.sz = 0;
	CHECK(hwp_emu__new(&o) == NULL);
	CHECK(strstr(hwp_errmsg(), "struct hwp_emu_opts") != NULL);
}

int main(void)
{
	RUN(zero_size_refused);
	RUN(null_is_defaults);
	RUN(same_size_copied);
	RUN(newer_zero_tail_accepted);
	RUN(newer_set_tail_rejected);
	RUN(older_size_zero_fills);
	RUN(attr_opts_checked);
	RUN(result_size_checked);
	RUN(record_opts_checked);
	RUN(emu_opts_checked);
	TL_EXIT();
}
