/* SPDX-License-Identifier: MIT */
/* hwprof/pgo.h: one binary's profile for a PGO tool, in the format named. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "export/profile_sum.h"
#include "hwprof/bolt_profile.h"
#include "hwprof/branch_table.h"
#include "hwprof/export.h"
#include "hwprof/fleet.h"
#include "hwprof/llvm_profile.h"
#include "hwprof/pgo.h"
#include "hwprof/propeller.h"
#include "hwprof/range_profile.h"
#include "hwprof/symbolize.h"
#include "util/error.h"

static const char *const names[HWP_PGO_NR_FORMATS] = {
	[HWP_PGO_LLVM] = "llvm",
	[HWP_PGO_BOLT] = "bolt",
	[HWP_PGO_BOLT_PA] = "bolt-pa",
	[HWP_PGO_AUTOFDO] = "autofdo",
	[HWP_PGO_PROPELLER] = "propeller",
	[HWP_PGO_LLVM_CS] = "llvm-cs",
};

const char *hwp_pgo__format_name(enum hwp_pgo_format f)
{
	return (unsigned)f < HWP_PGO_NR_FORMATS ? names[f] : NULL;
}

void hwp_pgo__collect_opts(enum hwp_pgo_format f, bool all_ips, struct hwp_branch_collect_opts *co)
{
	/* AutoFDO's text has an address section; LLVM's and BOLT's formats do
	   not. IPs of samples without a stack cost nothing in a branch recording. */
	*co = (struct hwp_branch_collect_opts){
		.sz = sizeof(*co),
		.ranges = true,
		.no_addresses = f != HWP_PGO_AUTOFDO,
		.ip_samples = all_ips ? HWP_IP_SAMPLES_ALL : HWP_IP_SAMPLES_WITHOUT_STACK,
	};
}

bool hwp_pgo__ip_profile(const struct hwp_branch_collector *c, bool all_ips)
{
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(c);

	/* no branch entry at all (no stacks, or perf script text without brstack) */
	return st->ip_samples && (all_ips || !st->entries);
}

const char *hwp_pgo__ip_samples_lack(enum hwp_pgo_format f)
{
	switch (f) {
	case HWP_PGO_LLVM:
		return "line counts are sample densities, with no call targets and no head samples";
	case HWP_PGO_BOLT:
	case HWP_PGO_BOLT_PA:
		return "sample counts per address, no taken or fall-through edges, no calls";
	case HWP_PGO_PROPELLER:
		return "no edges between blocks, which the block layout is made of";
	default:
		return "the address section only, with no ranges and no branches";
	}
}

int hwp_pgo__binary_module(struct hwp_branch_collector *c, const char *binary, struct hwp_pgo_placement *pl)
{
	int module = hwp_range_profile__module_for_file(c, binary);

	/* placed only when no module matched, some branches fell outside every
	   map, and the binary is there to be read */
	if (module != -ENOENT || hwp_branch_collector__range_stats(c)->rejected[HWP_RANGE_UNMAPPED] == 0 ||
	    access(binary, R_OK))
		return module;
	if (hwp_range_profile__infer_load_bias(c, binary, &pl->bias, &pl->matched, &pl->tried) < 0)
		return -ENOENT;
	return hwp__set_error(EAGAIN, "%s: no mapping for it in the recording", binary);
}

int hwp_pgo__write(struct hwp_branch_collector *c, int module, enum hwp_pgo_format f, bool ips, FILE *fp)
{
	switch (f) {
	case HWP_PGO_LLVM:
		return ips ? hwp_llvm_profile__write_ip_samples(c, module, fp) : hwp_llvm_profile__write(c, module, fp);
	case HWP_PGO_BOLT:
	case HWP_PGO_BOLT_PA:
		return hwp_bolt_profile__write(c, module, ips ? HWP_BOLT_FORMAT_NO_LBR
							     : f == HWP_PGO_BOLT ? HWP_BOLT_FORMAT_FDATA
										 : HWP_BOLT_FORMAT_PREAGG, fp);
	case HWP_PGO_LLVM_CS:
		if (ips)
			return hwp__set_error(EINVAL, "llvm-cs: a probe profile needs branch stacks, not IP samples");
		return hwp_llvm_profile__write_probes(c, module, fp);
	case HWP_PGO_AUTOFDO:
		return hwp_range_profile__write(c, module, ips ? HWP_RANGE_FORMAT_AUTOFDO_IPS : HWP_RANGE_FORMAT_AUTOFDO,
						fp);
	case HWP_PGO_PROPELLER:
		if (ips)
			return hwp__set_error(EINVAL, "Propeller's block layout needs branch stacks (taken branches and "
						      "fall-through ranges), not IP samples");
		return hwp_propeller__write(c, module, fp, NULL, NULL);
	default:
		return hwp__set_error(EINVAL, "hwp_pgo__write: unknown format %d", (int)f);
	}
}

int hwp_pgo__write_sum(struct hwp_branch_collector *const *cs, size_t n, int module, enum hwp_pgo_format f,
		       const char *path)
{
	FILE *fp = stdout;
	int err;

	if (f != HWP_PGO_LLVM && f != HWP_PGO_BOLT && f != HWP_PGO_BOLT_PA)
		return hwp__set_error(EINVAL, "%s: no sum of profiles in this format", hwp_pgo__format_name(f));
	if (path && strcmp(path, "-") && !(fp = fopen(path, "w")))
		return hwp__set_error(errno, "%s: cannot write: %s", path, strerror(errno));
	err = f == HWP_PGO_LLVM ? hwp__llvm_profile_write_sum(cs, n, module, fp)
				: hwp__bolt_profile_write_sum(cs, n, module,
							      f == HWP_PGO_BOLT ? HWP_BOLT_FORMAT_FDATA : HWP_BOLT_FORMAT_PREAGG, fp);
	if (fp != stdout && fclose(fp) && !err)
		return hwp__set_error(errno, "%s: write failed: %s", path, strerror(errno));
	return err;
}

int hwp_pgo__write_file(struct hwp_branch_collector *c, int module, enum hwp_pgo_format f, bool ips,
			const char *path)
{
	FILE *fp = stdout;
	int err;

	if (path && strcmp(path, "-") && !(fp = fopen(path, "w")))
		return hwp__set_error(errno, "%s: cannot write: %s", path, strerror(errno));
	err = hwp_pgo__write(c, module, f, ips, fp);
	if (fp != stdout && fclose(fp) && !err)
		return hwp__set_error(errno, "%s: write failed: %s", path, strerror(errno));
	return err;
}

/* The module of the rows of build-id BUILD_ID (hex) in SYM; -ENOENT when none. */
static int rows_module(const struct hwp_export *e, struct hwp_symbolizer *sym, const char *build_id)
{
	size_t n;
	const struct hwp_export_row *r = hwp_export__rows(e, &n);

	for (size_t i = 0; i < n; i++) {
		uint8_t bid[64];
		size_t len = strlen(r[i].build_id);

		if (strcasecmp(r[i].build_id, build_id) || len % 2 || len / 2 > sizeof(bid))
			continue;
		for (size_t k = 0; k < len / 2; k++) {
			unsigned v;

			sscanf(r[i].build_id + 2 * k, "%2x", &v);
			bid[k] = (uint8_t)v;
		}
		int module = hwp_symbolizer__module(sym, r[i].module, bid, (uint8_t)(len / 2));
		if (module >= 0)
			return module;
	}
	return hwp__set_error(ENOENT, "no rows of build-id %s", build_id);
}

struct hwp_branch_collector *hwp_pgo__rows_collector(const struct hwp_export *e, struct hwp_symbolizer *sym,
						     const char *name, const char *build_id, int *module)
{
	struct hwp_branch_table *split = NULL, *t = NULL, *ranges = NULL;
	struct hwp_branch_collector *c = NULL;
	size_t n;

	if ((*module = rows_module(e, sym, build_id)) < 0) {
		errno = ENOENT;
		return NULL;
	}
	/* a local recording's table is not split by type: merged so */
	if (!(split = hwp_export__branch_table(e, HWP_EXPORT_BRANCH, sym)) || !(t = hwp_branch_table__new(0)) ||
	    !(ranges = hwp_export__branch_table(e, HWP_EXPORT_RANGE, sym)))
		goto out;
	const struct hwp_branch_row *br = hwp_branch_table__rows(split, &n);
	for (size_t i = 0; i < n; i++)
		if (hwp_branch_table__add_row(t, &br[i]) < 0)
			goto out;
	c = hwp_branch_collector__from_tables(sym, name, t, ranges);
	t = ranges = NULL; /* the collector's now */
out:
	hwp_branch_table__delete(split);
	hwp_branch_table__delete(t);
	hwp_branch_table__delete(ranges);
	if (!c && errno == ENOENT) /* ENOENT says: no rows */
		errno = EIO;
	return c;
}
