/* SPDX-License-Identifier: MIT */
/*
 * hwprof record's decisions besides its options: the memory event put into
 * the attr, why an open failed (from the probe), and the previous recording
 * kept as FILE.old (perf's rm_rf_perf_data() and rename).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwprof/probe.h"
#include "hwprof/record_setup.h"
#include "util/error.h"

int hwp_mem_events__attr_opts(const struct hwp_mem_events *e, struct hwp_attr_opts *ao, char *buf, size_t len)
{
	switch (e->kind) {
	case HWP_MEM_PMU_INTEL:
		/* the loads event's encoding; its PMU type and ldlat are set after the build */
		snprintf(buf, len, "r%" PRIx64 ":P", e->config);
		break;
	case HWP_MEM_PMU_AMD_IBS:
		snprintf(buf, len, "r0");
		break;
	default:
		return -EOPNOTSUPP;
	}
	ao->event = buf;
	ao->weight = true;
	ao->data_addr = true;
	return 0;
}

void hwp_mem_events__apply(const struct hwp_mem_events *e, struct hwp_attr_result *r)
{
	if (e->kind != HWP_MEM_PMU_INTEL && e->kind != HWP_MEM_PMU_AMD_IBS)
		return;
	r->attr.type = e->type;
	r->attr.config = e->config;
	r->attr.config1 = e->config1;
	snprintf(r->event.name, sizeof(r->event.name), "%s", e->loads);
	if (e->kind == HWP_MEM_PMU_AMD_IBS)
		r->attr.sample_type |= HWP_SAMPLE_RAW; /* the IBS registers, decoded by hwprof mem */
}

int hwp_record__explain_open(const struct hwp_attr *a, const struct hwp_record_result *r,
			     struct hwp_open_failure *out)
{
	struct hwp_probe_opts po = { .sz = sizeof(po) };
	struct hwp_probe_info *pi = hwp_probe_info__new();
	const struct hwp_probe_verdict *hw, *bs;
	int err = r->open_errno;

	memset(out, 0, sizeof(*out));
	if (!pi || hwp_probe__run(&po, pi) < 0) {
		hwp_probe_info__delete(pi);
		return -EIO;
	}
	out->paranoid = hwp_probe_info__perms(pi)->paranoid;
	out->paranoid_meaning = hwp_paranoid__meaning(out->paranoid);
	out->kernel_branches = a->branch_sample_type & HWP_BRANCH_KERNEL;
	hw = hwp_probe_info__verdict(pi, HWP_CAP_HW_PMU);
	bs = hwp_probe_info__verdict(pi, HWP_CAP_BRANCH_STACK);
	if ((err == EACCES || err == EPERM) && out->paranoid != HWP_PROBE_UNKNOWN) {
		out->kind = HWP_OPEN_FAILURE_PERMISSION;
	} else if (a->sample_type & HWP_SAMPLE_BRANCH_STACK) {
		if (a->type == 1 && bs->yes) {
			out->kind = HWP_OPEN_FAILURE_SW_BRANCHES;
		} else if (!bs->yes) {
			out->kind = HWP_OPEN_FAILURE_NO_BRANCHES;
			snprintf(out->why, sizeof(out->why), "%s", hw->yes ? bs->why : hw->why);
		} else {
			out->kind = HWP_OPEN_FAILURE_BRANCH_FILTER;
		}
	} else if (a->type != 1 && !hw->yes) {
		out->kind = HWP_OPEN_FAILURE_NO_HW_PMU;
		snprintf(out->why, sizeof(out->why), "%s", hw->why);
	}
	hwp_probe_info__delete(pi);
	return 0;
}

/* perf's directory format holds "data" and "data.N" files: the only ones
   perf removes from an old directory before reusing its name. */
static bool perf_data_name(const char *name)
{
	return !strcmp(name, "data") || !strncmp(name, "data.", 5);
}

static int cannot_remove(const char *what)
{
	int err = errno;

	/* a path too long for the buffer comes without errno */
	return hwp__set_error(err ? err : ENAMETOOLONG, "can't remove old data %s: %s", what, strerror(err));
}

/* Removes OLD as perf's rm_rf_perf_data() does: a file (or link) at once, a
   directory only when it holds nothing but perf's data files. */
static int remove_old(const char *old)
{
	struct stat st;
	struct dirent *de;
	DIR *d;

	if (lstat(old, &st) < 0)
		return errno == ENOENT ? 0 : cannot_remove(old);
	if (!S_ISDIR(st.st_mode))
		return unlink(old) < 0 ? cannot_remove(old) : 0;
	d = opendir(old);
	if (!d)
		return cannot_remove(old);
	/* look first, delete after: nothing is removed when something is foreign */
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && !perf_data_name(de->d_name)) {
			/* the message first: closedir() frees DE */
			int rc = hwp__set_error(ENOTEMPTY, "can't remove old data %s: a directory holding %s, "
						"which is not perf data", old, de->d_name);

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
			int rc = cannot_remove(path);

			closedir(d);
			return rc;
		}
	}
	closedir(d);
	return rmdir(old) < 0 ? cannot_remove(old) : 0;
}

int hwp_record__keep_old_output(const char *path)
{
	char old[PATH_MAX];
	struct stat st;
	int rc;

	/* "-" is standard output, a pipe or whatever the shell opened: perf
	   moves nothing then. An empty file (or a device: /dev/null) is
	   overwritten, as perf checks only for a non-zero size. */
	if (!path || !strcmp(path, "-") || stat(path, &st) < 0 || st.st_size == 0)
		return 0;
	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
		return hwp__set_error(ENAMETOOLONG, "%s: path too long", path);
	rc = remove_old(old);
	if (rc < 0)
		return rc;
	if (rename(path, old) < 0) {
		int err = errno;

		return hwp__set_error(err, "can't move %s to %s: %s", path, old, strerror(err));
	}
	return 0;
}
