/* The JSON writer and its string escaper. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "output/json.h"
#include "testlib.h"

static char *mem;
static FILE *memfp;
static struct hwp_outbuf ob;

/* hwp_outbuf writes to the file descriptor: a temporary file, read back. */
static void start(void)
{
	memfp = tmpfile();
	hwp__outbuf_init(&ob, memfp);
}

/* What was written, NUL-terminated (the caller frees it). */
static const char *text(void)
{
	long n;

	hwp__outbuf_finish(&ob);
	n = lseek(fileno(memfp), 0, SEEK_END);
	mem = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	if (n > 0 && pread(fileno(memfp), mem, (size_t)n, 0) != n)
		tl_case_failed = 1;
	fclose(memfp);
	return mem;
}

static void quote_is(const char *in, size_t len, const char *want)
{
	start();
	hwp__json_quote_len(&ob, in, len);
	const char *got = text();
	if (strcmp(got, want)) {
		fprintf(stderr, "quote: got [%s] want [%s]\n", got, want);
		tl_case_failed = 1;
	}
	free(mem);
}

#define QUOTE_IS(lit, want) quote_is((lit), sizeof(lit) - 1, (want))

static void escapes_quotes_and_backslash(void)
{
	QUOTE_IS("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	QUOTE_IS("", "\"\"");
}

static void escapes_control_chars(void)
{
	QUOTE_IS("\n\t\x01\x1f", "\"\\u000a\\u0009\\u0001\\u001f\"");
	QUOTE_IS("a\0b", "\"a\\u0000b\"");
	QUOTE_IS("\x7f", "\"\x7f\""); /* DEL needs no escape */
}

static void utf8_passes_through(void)
{
	QUOTE_IS("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	QUOTE_IS("\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\""); /* U+FFFF, U+10FFFF */
}

static void invalid_utf8_becomes_fffd(void)
{
#define R "\xef\xbf\xbd"
	QUOTE_IS("a\x80z", "\"a" R "z\"");              /* stray continuation */
	QUOTE_IS("\xc0\xaf", "\"" R R "\"");            /* overlong '/' */
	QUOTE_IS("\xe0\x80\xaf", "\"" R R R "\"");      /* overlong, 3 bytes */
	QUOTE_IS("\xed\xa0\x80", "\"" R R R "\"");      /* surrogate U+D800 */
	QUOTE_IS("\xf4\x90\x80\x80", "\"" R R R R "\""); /* past U+10FFFF */
	QUOTE_IS("\xff\xfe", "\"" R R "\"");
	QUOTE_IS("x\xe2\x82", "\"x" R R "\"");          /* truncated at the end */
	QUOTE_IS("\xe2\x82\"", "\"" R R "\\\"\"");      /* truncated before a quote */
#undef R
	/* NUL-terminated form; NULL is null */
	start();
	hwp__json_quote(&ob, "ok");
	hwp__outbuf_putc(&ob, ' ');
	hwp__json_quote(&ob, NULL);
	CHECK(!strcmp(text(), "\"ok\" null"));
	free(mem);
}

static void nesting_and_commas(void)
{
	struct hwp_json_writer *j;

	start();
	j = hwp__json_writer_new(&ob);
	CHECK(j != NULL);
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_string(j, "a", "x");
	hwp__json_writer_key(j, "b");
	hwp__json_writer_begin_array(j);
	hwp__json_writer_u64(j, 1);
	hwp__json_writer_begin_object(j);
	hwp__json_writer_end_object(j);
	hwp__json_writer_begin_array(j);
	hwp__json_writer_end_array(j);
	hwp__json_writer_null(j);
	hwp__json_writer_end_array(j);
	hwp__json_writer_kv_bool(j, "c", true);
	hwp__json_writer_kv_bool(j, "d", false);
	hwp__json_writer_kv_hex(j, "e", 0x1f00);
	hwp__json_writer_kv_hex(j, "z", 0);
	hwp__json_writer_kv_string(j, "n", NULL);
	hwp__json_writer_key(j, "k\"ey");
	hwp__json_writer_begin_object(j);
	hwp__json_writer_end_object(j);
	hwp__json_writer_end_object(j);
	/* a second top-level value: JSON Lines */
	hwp__json_writer_begin_array(j);
	hwp__json_writer_end_array(j);
	CHECK(hwp__json_writer_finish(j) == 0);
	hwp__json_writer_delete(j);
	const char *got = text();
	const char *want = "{\"a\":\"x\",\"b\":[1,{},[],null],\"c\":true,\"d\":false,\"e\":\"0x1f00\","
			   "\"z\":\"0x0\",\"n\":null,\"k\\\"ey\":{}}\n[]\n";
	if (strcmp(got, want)) {
		fprintf(stderr, "got  %s\nwant %s\n", got, want);
		tl_case_failed = 1;
	}
	free(mem);
	hwp__json_writer_delete(NULL);
}

static void numbers(void)
{
	struct hwp_json_writer *j;

	start();
	j = hwp__json_writer_new(&ob);
	hwp__json_writer_begin_array(j);
	hwp__json_writer_u64(j, 0);
	hwp__json_writer_u64(j, UINT64_MAX);
	hwp__json_writer_i64(j, -1);
	hwp__json_writer_i64(j, INT64_MIN);
	hwp__json_writer_i64(j, INT64_MAX);
	hwp__json_writer_double(j, 0.1);
	hwp__json_writer_double(j, 2.5);
	hwp__json_writer_double(j, 1.0 / 3.0);
	hwp__json_writer_double(j, -1e300);
	hwp__json_writer_double(j, NAN);
	hwp__json_writer_double(j, INFINITY);
	hwp__json_writer_end_array(j);
	CHECK(hwp__json_writer_finish(j) == 0);
	hwp__json_writer_delete(j);
	const char *got = text();
	const char *want = "[0,18446744073709551615,-1,-9223372036854775808,9223372036854775807,"
			   "0.1,2.5,0.33333333333333331,-1e+300,null,null]\n";
	if (strcmp(got, want)) {
		fprintf(stderr, "got  %s\nwant %s\n", got, want);
		tl_case_failed = 1;
	}
	free(mem);
}

static void misuse_is_reported(void)
{
	struct hwp_json_writer *j;

	/* a value in an object without a key: nothing more is written */
	start();
	j = hwp__json_writer_new(&ob);
	hwp__json_writer_begin_object(j);
	hwp__json_writer_u64(j, 1);
	hwp__json_writer_end_object(j);
	CHECK(hwp__json_writer_finish(j) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "without a key") != NULL);
	hwp__json_writer_delete(j);
	CHECK(!strcmp(text(), "{"));
	free(mem);

	/* left open; a key in an array; mismatched close */
	start();
	j = hwp__json_writer_new(&ob);
	hwp__json_writer_begin_array(j);
	CHECK(hwp__json_writer_finish(j) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "left open") != NULL);
	hwp__json_writer_key(j, "k");
	CHECK(hwp__json_writer_finish(j) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "outside an object") != NULL);
	hwp__json_writer_delete(j);
	free((void *)text());

	start();
	j = hwp__json_writer_new(&ob);
	hwp__json_writer_begin_array(j);
	hwp__json_writer_end_object(j);
	CHECK(hwp__json_writer_finish(j) == -EINVAL);
	hwp__json_writer_delete(j);
	free((void *)text());

	errno = 0;
	CHECK(hwp__json_writer_new(NULL) == NULL && errno == EINVAL);
}

int main(void)
{
	RUN(escapes_quotes_and_backslash);
	RUN(escapes_control_chars);
	RUN(utf8_passes_through);
	RUN(invalid_utf8_becomes_fffd);
	RUN(nesting_and_commas);
	RUN(numbers);
	RUN(misuse_is_reported);
	TL_EXIT();
}
