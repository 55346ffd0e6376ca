/* hwp_fleet__default_spool(): where hwprof push keeps its batches by default. */
#include <stdlib.h>

#include "hwprof/fleet.h"
#include "testlib.h"

static void xdg_first(void)
{
	char buf[256];

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/u", 1);
	CHECK(hwp_fleet__default_spool(buf, sizeof(buf)) == buf && !strcmp(buf, "/x/cache/hwprof/spool"));
}

static void home_when_xdg_empty(void)
{
	char buf[256];

	setenv("XDG_CACHE_HOME", "", 1);
	setenv("HOME", "/home/u", 1);
	CHECK(hwp_fleet__default_spool(buf, sizeof(buf)) && !strcmp(buf, "/home/u/.cache/hwprof/spool"));
	unsetenv("XDG_CACHE_HOME");
	CHECK(hwp_fleet__default_spool(buf, sizeof(buf)) && !strcmp(buf, "/home/u/.cache/hwprof/spool"));
}

static void none_without_either(void)
{
	char buf[256];

	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	CHECK(hwp_fleet__default_spool(buf, sizeof(buf)) == NULL);
	setenv("HOME", "", 1);
	CHECK(hwp_fleet__default_spool(buf, sizeof(buf)) == NULL);
}

static void too_small_is_none(void)
{
	char buf[16];

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	CHECK(hwp_fleet__default_spool(buf, sizeof(buf)) == NULL); /* 21 bytes needed */
	CHECK(hwp_fleet__default_spool(buf, 0) == NULL);
}

int main(void)
{
	RUN(xdg_first);
	RUN(home_when_xdg_empty);
	RUN(none_without_either);
	RUN(too_small_is_none);
	TL_EXIT();
}
