/* The one $PATH search: empty entries, unset PATH, '/' names, non-executables. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "testlib.h"
#include "util/path_search.h"

static char dir[64];

static void make_file(const char *sub, const char *name, int mode)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s", dir, sub, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd >= 0)
		close(fd);
	chmod(p, (mode_t)mode);
}

static int is(char *got, const char *want)
{
	int ok = got && !strcmp(got, want);

	if (!ok)
		fprintf(stderr, "got %s, want %s\n", got ? got : "NULL", want);
	free(got);
	return ok;
}

static void finds_first_executable(void)
{
	char sp[256], want[256];

	snprintf(sp, sizeof(sp), "%s/a:%s/b:%s/c", dir, dir, dir);
	snprintf(want, sizeof(want), "%s/b/prog", dir);
	CHECK(is(hwp__path_search("prog", sp), want)); /* a/prog is not executable */
	snprintf(want, sizeof(want), "%s/c/other", dir);
	CHECK(is(hwp__path_search("other", sp), want)); /* b/other is a directory */
}

static void non_executable_only_is_eacces(void)
{
	char sp[256];

	snprintf(sp, sizeof(sp), "%s/a", dir);
	errno = 0;
	CHECK(hwp__path_search("prog", sp) == NULL && errno == EACCES);
	errno = 0;
	CHECK(hwp__path_search("nothing-here", sp) == NULL && errno == ENOENT);
	errno = 0;
	CHECK(hwp__path_search("", sp) == NULL && errno == ENOENT);
}

static void empty_entries_mean_cwd(void)
{
	char sp[256], cwd[512];

	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(sp, sizeof(sp), "%s/c", dir);
	CHECK(chdir(sp) == 0); /* c/other and c/prog are executable */
	CHECK(is(hwp__path_search("other", ":/nonexistent"), "./other"));  /* leading */
	CHECK(is(hwp__path_search("other", "/nonexistent:"), "./other"));  /* trailing */
	CHECK(is(hwp__path_search("other", "/nonexistent::/x"), "./other")); /* doubled */
	CHECK(is(hwp__path_search("other", ""), "./other"));               /* PATH="" */
	CHECK(hwp__path_search("other", "/nonexistent") == NULL);          /* no empty entry */
	CHECK(chdir(cwd) == 0);
}

static void slash_names_not_searched(void)
{
	CHECK(is(hwp__path_search("./prog", "/bin"), "./prog"));
	CHECK(is(hwp__path_search("/no/such/file", "/bin"), "/no/such/file"));
	CHECK(is(hwp__path_search("sub/sh", "/bin"), "sub/sh"));
}

static void unset_path_uses_default(void)
{
	char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char *got;

	unsetenv("PATH");
	got = hwp__path_search("sh", NULL); /* confstr(_CS_PATH): /bin or /usr/bin */
	CHECK(got && (!strcmp(got, "/bin/sh") || !strcmp(got, "/usr/bin/sh")));
	free(got);
	setenv("PATH", dir, 1);
	CHECK(hwp__path_search("sh", NULL) == NULL); /* $PATH when set */
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hwp_path_search.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	make_file("a", "prog", 0644);
	make_file("b", "prog", 0755);
	make_file("b/other", "x", 0755); /* b/other is a directory */
	make_file("c", "other", 0755);
	make_file("c", "prog", 0755);
	RUN(finds_first_executable);
	RUN(non_executable_only_is_eacces);
	RUN(empty_entries_mean_cwd);
	RUN(slash_names_not_searched);
	RUN(unset_path_uses_default);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	TL_EXIT();
}
