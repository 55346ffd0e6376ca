/* One log channel with levels: library notes reach the callback once. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"
#include "hwprof/session.h"
#include "testlib.h"
#include "util/error.h"

static int calls[4];
static char last[512], last_warn[512];

static void capture(void *ctx, enum hwp_log_level level, const char *msg)
{
	(void)ctx;
	if (level <= HWP_LOG_DEBUG)
		calls[level]++;
	snprintf(last, sizeof(last), "%s", msg);
	if (level == HWP_LOG_WARN)
		snprintf(last_warn, sizeof(last_warn), "%s", msg);
}

static void test_levels_reach_callback(void)
{
	memset(calls, 0, sizeof(calls));
	hwp_set_log(capture, NULL);
	hwp__log(HWP_LOG_INFO, "x=%d", 7);
	hwp__log(HWP_LOG_DEBUG, "y");
	CHECK(calls[HWP_LOG_INFO] == 1 && calls[HWP_LOG_DEBUG] == 1);
	CHECK(!strcmp(last, "y"));
	hwp_set_log(NULL, NULL);
	hwp__log(HWP_LOG_WARN, "dropped");
	CHECK(calls[HWP_LOG_WARN] == 0);
}

/* Two AUXTRACE records (no payload): the reader says so once, as a warning. */
static void test_reader_note_once(void)
{
	char path[256];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/hwprof-log-%d.data", tmp ? tmp : "/tmp", (int)getpid());
	struct hwp_writer *w = hwp_writer__open(path);
	struct hwp_attr a;
	uint8_t aux[48];

	CHECK(w != NULL);
	if (!w)
		return;
	memset(&a, 0, sizeof(a));
	a.sample_type = HWP_SAMPLE_IP;
	CHECK(hwp_writer__add_attr(w, &a, NULL, 0, "cycles") >= 0);
	memset(aux, 0, sizeof(aux));
	aux[0] = HWP_RECORD_AUXTRACE; /* type (little-endian), misc 0, size 48 */
	aux[6] = sizeof(aux);
	CHECK(hwp_writer__add_raw(w, aux, sizeof(aux)) == 0);
	CHECK(hwp_writer__add_raw(w, aux, sizeof(aux)) == 0);
	CHECK(hwp_writer__close(w) == 0);

	memset(calls, 0, sizeof(calls));
	hwp_set_log(capture, NULL);
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp_event ev;
	int n = 0, rc;
	while (s && (rc = hwp_session__next(s, &ev, NULL)) > 0)
		n += ev.type == HWP_RECORD_AUXTRACE;
	CHECK(n == 2);
	CHECK_EQ_U64(calls[HWP_LOG_WARN], 1);
	CHECK(strstr(last_warn, "AUXTRACE") && strstr(last_warn, path));
	CHECK(strstr(last, "2 records") != NULL); /* the session's summary, at INFO */
	hwp_session__delete(s);
	hwp_set_log(NULL, NULL);
	remove(path);
}

int main(void)
{
	RUN(test_levels_reach_callback);
	RUN(test_reader_note_once);
	TL_EXIT();
}
