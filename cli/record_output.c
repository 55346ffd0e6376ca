/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's output file, for both the hardware and the emulated path:
 * the previous recording is kept as FILE.old, as perf record keeps it, and a
 * recording without samples is said to be one, with the period to lower.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "record_opts.h"

/* perf's directory format holds "data" and "data.N" files: the only ones
   perf removes from an old directory before reusing its name. */
static bool perf_data_name(const char *name)
{
	return !strcmp(name, "data") || !strncmp(name, "data.", 5);
}

/* Removes OLD as perf's rm_rf_perf_data() does: a file (or link) at once, a
   directory only when it holds nothing but perf's data files. */
static int remove_old(const char *old)
{
	struct stat st;
	struct dirent *de;
	DIR *d;

	if (lstat(old, &st) < 0)
		return errno == ENOENT ? 0 : cli_error("record: can't remove old data %s: %s", old,
						       strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(old) < 0)
			return cli_error("record: can't remove old data %s: %s", old, strerror(errno));
		return 0;
	}
	d = opendir(old);
	if (!d)
		return cli_error("record: can't remove old data %s: %s", old, strerror(errno));
	/* look first, delete after: nothing is removed when something is foreign */
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && !perf_data_name(de->d_name)) {
			/* the message first: closedir() frees DE */
			int rc = cli_error("record: can't remove old data %s: a directory holding %s, which "
					   "is not perf data", old, de->d_name);

			closedir(d);
			return rc;
		}
	rewinddir(d);
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		if (!perf_data_name(de->d_name))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", old, de->d_name) >= sizeof(path) ||
		    unlink(path) < 0) {
			closedir(d);
			return cli_error("record: can't remove old data %s: %s", path, strerror(errno));
		}
	}
	closedir(d);
	if (rmdir(old) < 0)
		return cli_error("record: can't remove old data %s: %s", old, strerror(errno));
	return 0;
}

int record_keep_old_output(const char *path)
{
	char old[PATH_MAX];
	struct stat st;

	/* "-" is standard output, a pipe or whatever the shell opened: perf
	   moves nothing then. An empty file (or a device: /dev/null) is
	   overwritten, as perf checks only for a non-zero size. */
	if (!path || !strcmp(path, "-") || stat(path, &st) < 0 || st.st_size == 0)
		return 0;
	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
		return cli_error("record: %s: path too long", path);
	if (remove_old(old))
		return 1;
	if (rename(path, old) < 0)
		return cli_error("record: can't move %s to %s: %s", path, old, strerror(errno));
	return 0;
}

void record_warn_no_samples(const char *prog, const char *out, const struct record_no_samples *ns)
{
	if (ns->emulated) {
		/* the events are known: say how far the program got, and a
		   period that gives about a hundred samples */
		uint64_t suggest = ns->events / 100 ? ns->events / 100 : 1;

		cli_warn("record: %s has 0 samples: %s ran %" PRIu64 " taken branches, fewer than the "
			 "period (%" PRIu64 "): lower it with -c N (-c %" PRIu64 " gives about 100 samples)",
			 out, prog, ns->events, ns->period, suggest);
	} else if (ns->freq) {
		cli_warn("record: %s has 0 samples: %s ended before the first %s sample at %" PRIu64
			 " Hz: sample more often (a higher -F) or every N events (-c N)",
			 out, prog, ns->event, ns->freq);
	} else {
		cli_warn("record: %s has 0 samples: %s ran fewer %s events than the period (%" PRIu64
			 "): lower it (-c N) or sample by frequency (-F N)",
			 out, prog, ns->event, ns->period);
	}
}
