/* Every failure of a public function sets this thread's message: each case
   leaves a sentinel message, makes one call fail through the public API and
   checks the return value and that the message now names the cause. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hwprof/branch_collect.h"
#include "hwprof/branch_report.h"
#include "hwprof/maps.h"
#include "hwprof/mispredicts.h"
#include "hwprof/perf_data.h"
#include "hwprof/session.h"
#include "hwprof/symbolize.h"
#include "hwprof/table.h"
#include "output/json.h"
#include "output/outbuf.h"
#include "testlib.h"
#include "util/error.h"

/* A pipe-mode perf.data header and nothing else: an empty, valid recording. */
static const uint8_t pipe_header[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };

static void sentinel(void)
{
	hwp__set_error(EIO, "sentinel");
}

/* The message replaced the sentinel and contains WANT (and WANT2 unless NULL). */
static int fresh_message(const char *want, const char *want2)
{
	const char *m = hwp_errmsg();
	int ok = strcmp(m, "sentinel") != 0 && strstr(m, want) && (!want2 || strstr(m, want2));

	if (!ok)
		fprintf(stderr, "message \"%s\" does not say \"%s\"%s%s\n", m, want, want2 ? " and " : "",
			want2 ? want2 : "");
	return ok;
}

#define CHECK_MSG(want) CHECK(fresh_message((want), NULL))
#define CHECK_MSG2(want, want2) CHECK(fresh_message((want), (want2)))

/* A constructor CALL fails: NULL, errno ERR, and a message saying WANT (and WANT2). */
#define CHECK_NULL(call, err, want, want2)            \
	do {                                          \
		sentinel();                           \
		errno = 0;                            \
		CHECK((call) == NULL);                \
		CHECK(errno == (err));                \
		CHECK(fresh_message((want), (want2))); \
	} while (0)

static struct hwp_session *empty_session(void)
{
	struct hwp_reader_opts ro = { .sz = sizeof(ro) };
	struct hwp_session_opts so = { .sz = sizeof(so), .no_kernel = true, .debug_dirs = "/nonexistent" };
	struct hwp_reader *r = hwp_reader__open_mem(pipe_header, sizeof(pipe_header), "empty.data", &ro);

	return r ? hwp_session__from_reader(r, &so) : NULL;
}

static struct hwp_symbolizer *symbolizer(void)
{
	struct hwp_symbolizer_opts o = { .sz = sizeof(o), .no_kernel = true, .debug_dirs = "/nonexistent" };

	return hwp_symbolizer__new(&o);
}

/* ---------------------------------------------------------------- format */

static void reader_missing_file(void)
{
	struct hwp_reader_opts o = { .sz = sizeof(o) };

	CHECK_NULL(hwp_reader__open("/nonexistent/perf.data", &o), ENOENT, "/nonexistent/perf.data", NULL);
}

static void reader_opts_size_zero(void)
{
	struct hwp_reader_opts o = { .sz = 0 };

	CHECK_NULL(hwp_reader__open("/nonexistent/perf.data", &o), EINVAL, "hwp_reader_opts", "size 0");
}

static void reader_no_path(void)
{
	CHECK_NULL(hwp_reader__open(NULL, NULL), EINVAL, "no input path", NULL);
}

static void reader_mem_no_buffer(void)
{
	CHECK_NULL(hwp_reader__open_mem(NULL, 100, "img", NULL), EINVAL, "img", "no buffer");
}

static void reader_truncated_header(void)
{
	CHECK_NULL(hwp_reader__open_mem(pipe_header, 12, "cut.data", NULL), EINVAL, "cut.data", "truncated");
}

static void reader_truncated_record(void)
{
	uint8_t img[sizeof(pipe_header) + 4];
	struct hwp_reader *r;
	struct hwp_event ev;

	memcpy(img, pipe_header, sizeof(pipe_header));
	memset(img + sizeof(pipe_header), 0, 4);
	r = hwp_reader__open_mem(img, sizeof(img), "short.data", NULL);
	CHECK(r != NULL);
	if (!r)
		return;
	sentinel();
	CHECK(hwp_reader__next(r, &ev) == -EINVAL);
	CHECK_MSG2("short.data", "truncated record header");
	hwp_reader__delete(r);
}

static void ordered_no_reader(void)
{
	CHECK_NULL(hwp_ordered__new(NULL), EINVAL, "no reader", NULL);
}

static void read_values_out_of_range(void)
{
	uint8_t data[8] = { 42 };
	struct hwp_bytes b = { data, sizeof(data) };
	struct hwp_bytes empty = { NULL, 0 };
	struct hwp_read_value v;
	struct hwp_read rd;

	CHECK(hwp_read__value(&b, 0, 0, &v) == 0 && v.value == 42);
	sentinel();
	CHECK(hwp_read__value(&b, 0, 1, &v) == -EINVAL);
	CHECK_MSG("no value 1");
	sentinel();
	CHECK(hwp_read__parse(&empty, 0, &rd) == -EINVAL);
	CHECK_MSG2("0 bytes", "read_format");
}

/* --------------------------------------------------------------- session */

static void session_opts_size_zero(void)
{
	struct hwp_session_opts o = { .sz = 0 };

	sentinel();
	errno = 0;
	/* the options are checked before the input is opened */
	CHECK(hwp_session__open("/nonexistent/perf.data", &o) == NULL);
	CHECK(errno == EINVAL);
	CHECK_MSG2("hwp_session_opts", "size 0");
}

static void session_missing_file(void)
{
	CHECK_NULL(hwp_session__open("/nonexistent/perf.data", NULL), ENOENT, "/nonexistent/perf.data", NULL);
}

static void session_no_reader(void)
{
	CHECK_NULL(hwp_session__from_reader(NULL, NULL), EINVAL, "no reader", NULL);
}

static void session_handler_size_zero(void)
{
	struct hwp_session *s = empty_session();
	struct hwp_session_handler h = { .sz = 0 };

	CHECK(s != NULL);
	if (!s)
		return;
	sentinel();
	CHECK(hwp_session__process(s, &h) == -EINVAL);
	CHECK_MSG2("hwp_session_handler", "size 0");
	hwp_session__delete(s);
}

/* -------------------------------------------------------------- analysis */

static void collector_opts_size_zero(void)
{
	struct hwp_session *s = empty_session();
	struct hwp_branch_collect_opts o = { .sz = 0 };

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_NULL(hwp_branch_collector__new(s, &o), EINVAL, "hwp_branch_collect_opts", "size 0");
	hwp_session__delete(s);
}

static void collector_no_session(void)
{
	struct hwp_branch_collect_opts o = { .sz = sizeof(o) };

	CHECK_NULL(hwp_branch_collector__new(NULL, &o), EINVAL, "no session", NULL);
}

static void sort_key_unknown(void)
{
	enum hwp_branch_key_id keys[HWP_MAX_SORT_KEYS];

	sentinel();
	CHECK(hwp_branch_keys__parse("symbol_from,bogus_key", keys, HWP_MAX_SORT_KEYS) == -EINVAL);
	CHECK_MSG2("bogus_key", "symbol_to");
	/* perf's prefixes: "sym" is its symbol key, "Symbol_F" symbol_from,
	   "ty" hwprof's type; "in" is perf's ins_lat, refused by name */
	CHECK(hwp_branch_keys__parse("sym,Symbol_F, ty", keys, HWP_MAX_SORT_KEYS) == 3);
	CHECK(keys[0] == HWP_KEY_SYMBOL && keys[1] == HWP_KEY_SYMBOL_FROM && keys[2] == HWP_KEY_TYPE);
	sentinel();
	CHECK(hwp_branch_keys__parse("in", keys, HWP_MAX_SORT_KEYS) == -ENOTSUP);
	CHECK_MSG2("'in'", "ins_lat");
}

static void report_bad_keys(void)
{
	struct hwp_branch_table *t = hwp_branch_table__new(0);
	struct hwp_symbolizer *sym = symbolizer();
	enum hwp_branch_key_id keys[HWP_MAX_SORT_KEYS] = { HWP_KEY_SYMBOL_FROM };

	CHECK(t && sym);
	if (!t || !sym)
		goto out;
	CHECK_NULL(hwp_branch_report__new(t, sym, keys, 0, NULL), EINVAL, "no sort keys", NULL);
	sentinel();
	CHECK(hwp_branch_report__new(t, sym, keys, HWP_MAX_SORT_KEYS, NULL) == NULL);
	CHECK_MSG2("16 sort keys", "at most");
	sentinel();
	CHECK(hwp_branch_report__new(NULL, sym, keys, 1, NULL) == NULL);
	CHECK_MSG("no branch table");
out:
	hwp_symbolizer__delete(sym);
	hwp_branch_table__delete(t);
}

static void mispredicts_no_table(void)
{
	size_t nr;
	uint64_t total;

	CHECK_NULL(hwp_mispredicts__build(NULL, &nr, &total), EINVAL, "no branch table", NULL);
}

/* ------------------------------------------------------------- symbolize */

static void symbolizer_opts_size_zero(void)
{
	struct hwp_symbolizer_opts o = { .sz = 0 };
	struct hwp_symbolizer *s;

	sentinel();
	errno = 0;
	s = hwp_symbolizer__new(&o);
	CHECK(s == NULL);
	CHECK(errno == EINVAL);
	CHECK_MSG2("hwp_symbolizer_opts", "size 0");
	hwp_symbolizer__delete(s);
}

static void symbolizer_unknown_module(void)
{
	struct hwp_symbolizer *s = symbolizer();
	struct hwp_symbol_info si;
	uint64_t vaddr;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(hwp_symbolizer__module(s, "/bin/x", NULL, 0) == 0);
	sentinel();
	CHECK(hwp_symbolizer__module_name(s, 42) == NULL);
	CHECK_MSG2("module id 42", "not registered");
	sentinel();
	CHECK(hwp_symbolizer__module_short_name(s, -1) == NULL);
	CHECK_MSG("module id -1");
	sentinel();
	CHECK(hwp_symbolizer__lookup(s, 7, 0x1000, &si) == -EINVAL);
	CHECK_MSG("module id 7");
	sentinel();
	CHECK(hwp_symbolizer__module_vaddr(s, 9, 0x1000, &vaddr) == -EINVAL);
	CHECK_MSG("module id 9");
	sentinel();
	CHECK(hwp_symbolizer__module_file(s, 3) == NULL);
	CHECK_MSG("module id 3");
	hwp_symbolizer__delete(s);
}

static void symbolizer_no_symbolizer(void)
{
	struct hwp_symbol_info si;

	sentinel();
	CHECK(hwp_symbolizer__kernel_module(NULL) == -EINVAL);
	CHECK_MSG("kernel module");
	sentinel();
	CHECK(hwp_symbolizer__lookup(NULL, 0, 0x10, &si) == -EINVAL);
	CHECK_MSG("none given");
	sentinel();
	CHECK(hwp_symbolizer__module(NULL, "/bin/x", NULL, 0) == -EINVAL);
	CHECK_MSG("/bin/x");
}

static void symbolizer_kernel_has_no_file(void)
{
	char path[] = "/tmp/hwprof_errors_kallsymsXXXXXX";
	int fd = mkstemp(path);
	struct hwp_symbolizer_opts o = { .sz = sizeof(o), .kallsyms = path, .debug_dirs = "/nonexistent" };
	struct hwp_symbolizer *s;
	int km;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	const char text[] = "ffffffff81000000 T _stext\nffffffff81000100 T do_work\n";
	CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);
	s = hwp_symbolizer__new(&o);
	CHECK(s != NULL);
	if (!s)
		goto out;
	km = hwp_symbolizer__kernel_module(s);
	CHECK(km >= 0);
	CHECK_NULL(hwp_symbolizer__module_file(s, km), ENOENT, "kernel", "no ELF file");
	hwp_symbolizer__delete(s);
out:
	unlink(path);
}

static void machine_short_record(void)
{
	struct hwp_machine *m = hwp_machine__new();
	uint8_t rec[16] = { 0 };
	struct hwp_event ev;

	CHECK(m != NULL);
	if (!m)
		return;
	rec[0] = HWP_RECORD_MMAP2;
	rec[6] = sizeof(rec);
	memset(&ev, 0, sizeof(ev));
	ev.type = HWP_RECORD_MMAP2;
	ev.size = sizeof(rec);
	ev.data = rec;
	ev.file_offset = 0x1f00;
	ev.index = 812;
	sentinel();
	CHECK(hwp_machine__process_event(m, &ev) == -EINVAL);
	CHECK_MSG2("MMAP2 record at offset 0x1f00 (record 812)", "16 bytes");
	ev.type = HWP_RECORD_FORK;
	ev.size = 12;
	sentinel();
	CHECK(hwp_machine__process_event(m, &ev) == -EINVAL);
	CHECK_MSG2("FORK", "12 bytes");
	hwp_machine__delete(m);
}

/* ---------------------------------------------------------------- output */

static void table_cell_out_of_range(void)
{
	struct hwp_table *t = hwp_table__new();

	CHECK(t != NULL);
	if (!t)
		return;
	for (int i = 0; i < 5; i++)
		CHECK(hwp_table__add_column(t, "Title", "key", HWP_COL_COUNT) == 0);
	sentinel();
	CHECK(hwp_table__set_count(t, 0, 1) == -EINVAL);
	CHECK_MSG("no row");
	CHECK(hwp_table__new_row(t) == 0);
	sentinel();
	CHECK(hwp_table__set_text(t, 7, "x") == -EINVAL);
	CHECK_MSG("column 7 of 5");
	sentinel();
	CHECK(hwp_table__set_real(t, 5, 1.0) == -EINVAL);
	CHECK_MSG("column 5 of 5");
	sentinel();
	CHECK(hwp_table__add_column(t, "Late", "late", HWP_COL_TEXT) == -EINVAL);
	CHECK_MSG2("Late", "columns come first");
	hwp_table__delete(t);
}

/* The public renderer: to a FILE, flushed; a full disk and an unknown
   format are errors with a message. */
static void table_print(void)
{
	struct hwp_table *t = hwp_table__new();
	FILE *fp = tmpfile(), *full = fopen("/dev/full", "w");
	char text[256] = "";

	CHECK(t && fp);
	if (!t || !fp)
		goto out;
	CHECK(hwp_table__add_column(t, "Symbol", "symbol", HWP_COL_TEXT) == 0);
	CHECK(hwp_table__add_column(t, "Samples", "samples", HWP_COL_COUNT) == 0);
	CHECK(hwp_table__new_row(t) == 0 && hwp_table__set_text(t, 0, "main") == 0 &&
	      hwp_table__set_count(t, 1, 12345) == 0);
	CHECK(hwp_table__print(t, HWP_TABLE_JSON, fp) == 0);
	rewind(fp);
	CHECK(fread(text, 1, sizeof(text) - 1, fp) > 0);
	CHECK(strstr(text, "\"symbol\"") && strstr(text, "\"main\"") && strstr(text, "12345"));
	sentinel();
	CHECK(hwp_table__print(t, (enum hwp_table_format)42, fp) == -EINVAL);
	CHECK_MSG("unknown output format");
	if (full) {
		sentinel();
		CHECK(hwp_table__print(t, HWP_TABLE_TEXT, full) == -ENOSPC);
		CHECK_MSG(strerror(ENOSPC));
	}
out:
	if (fp)
		fclose(fp);
	if (full)
		fclose(full);
	hwp_table__delete(t);
}

static void json_left_open(void)
{
	struct hwp_outbuf o;
	struct hwp_json_writer *j;

	CHECK(hwp__outbuf_init(&o, stdout) == 0);
	j = hwp__json_writer_new(&o);
	CHECK(j != NULL);
	if (j) {
		hwp__json_writer_begin_array(j);
		sentinel();
		CHECK(hwp__json_writer_finish(j) == -EINVAL);
		CHECK_MSG("left open");
	}
	hwp__json_writer_delete(j);
	o.len = 0; /* write nothing */
	hwp__outbuf_finish(&o);
	CHECK_NULL(hwp__json_writer_new(NULL), EINVAL, "no output", NULL);
}

static void outbuf_write_error(void)
{
	FILE *fp = fopen("/dev/full", "w");
	struct hwp_outbuf o;

	if (!fp)
		SKIP("no /dev/full");
	CHECK(hwp__outbuf_init(&o, fp) == 0);
	hwp__outbuf_puts(&o, "no room for this\n");
	sentinel();
	CHECK(hwp__outbuf_finish(&o) == -ENOSPC);
	CHECK_MSG2("writing the output", strerror(ENOSPC));
	fclose(fp);
}

int main(void)
{
	RUN(reader_missing_file);
	RUN(reader_opts_size_zero);
	RUN(reader_no_path);
	RUN(reader_mem_no_buffer);
	RUN(reader_truncated_header);
	RUN(reader_truncated_record);
	RUN(ordered_no_reader);
	RUN(read_values_out_of_range);
	RUN(session_opts_size_zero);
	RUN(session_missing_file);
	RUN(session_no_reader);
	RUN(session_handler_size_zero);
	RUN(collector_opts_size_zero);
	RUN(collector_no_session);
	RUN(sort_key_unknown);
	RUN(report_bad_keys);
	RUN(mispredicts_no_table);
	RUN(symbolizer_opts_size_zero);
	RUN(symbolizer_unknown_module);
	RUN(symbolizer_no_symbolizer);
	RUN(symbolizer_kernel_has_no_file);
	RUN(machine_short_record);
	RUN(table_cell_out_of_range);
	RUN(table_print);
	RUN(json_left_open);
	RUN(outbuf_write_error);
	TL_EXIT();
}
