/* SPDX-License-Identifier: MIT */
/*
 * record --mem: the precise memory events of this machine, from sysfs
 * (/sys/bus/event_source/devices/PMU/{type,events/NAME,format/TERM}), as
 * `perf mem record` names them per vendor.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/capture.h"
#include "hwprof/hwprof.h"
#include "util/error.h"
#include "util/opts.h"

/* Reads PATH into BUF (trailing newline dropped): 0, -ENOENT, or -EINVAL. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -ENOENT;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int pmu_type(const char *dev, uint32_t *type)
{
	char path[4200], buf[32], *end;
	unsigned long v;

	snprintf(path, sizeof(path), "%s/type", dev);
	if (read_line(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	v = strtoul(buf, &end, 10);
	if (end == buf || *end || v > UINT32_MAX)
		return hwp__set_error(EINVAL, "%s: '%s' is not a PMU type", path, buf);
	*type = (uint32_t)v;
	return 0;
}

/* Puts VALUE into the bits format/TERM names ("config:0-7", "config1:0-15",
   "config:0-7,21"). */
static int apply_term(const char *dev, const char *term, uint64_t value, uint64_t cfg[3])
{
	char path[4200], fmt[128], *p, *field_end;
	int which;
	unsigned used = 0;

	snprintf(path, sizeof(path), "%s/format/%s", dev, term);
	if (read_line(path, fmt, sizeof(fmt)) < 0)
		return hwp__set_error(EINVAL, "%s: missing (the event names a term its PMU has no "
				      "format for)", path);
	field_end = strchr(fmt, ':');
	if (!field_end)
		return hwp__set_error(EINVAL, "%s: '%s' is not a format", path, fmt);
	*field_end = '\0';
	which = !strcmp(fmt, "config") ? 0 : !strcmp(fmt, "config1") ? 1 : !strcmp(fmt, "config2") ? 2 : -1;
	if (which < 0)
		return hwp__set_error(EINVAL, "%s: unknown field '%s'", path, fmt);
	for (p = field_end + 1; *p;) {
		char *e;
		unsigned long lo = strtoul(p, &e, 10), hi = lo;
		if (e == p || lo > 63)
			return hwp__set_error(EINVAL, "%s: bad bit range", path);
		if (*e == '-') {
			p = e + 1;
			hi = strtoul(p, &e, 10);
			if (e == p || hi > 63 || hi < lo)
				return hwp__set_error(EINVAL, "%s: bad bit range", path);
		}
		for (unsigned long b = lo; b <= hi; b++, used++)
			if (used < 64 && ((value >> used) & 1))
				cfg[which] |= 1ull << b;
		p = *e == ',' ? e + 1 : e;
		if (*e && *e != ',')
			return hwp__set_error(EINVAL, "%s: bad bit range", path);
	}
	return 0;
}

/* events/NAME ("event=0xcd,umask=0x1,ldlat=3") into CFG; LDLAT (non-zero)
   replaces the event's ldlat term, as perf's "mem-loads,ldlat=N" does. */
static int encode_event(const char *dev, const char *name, unsigned ldlat, uint64_t cfg[3])
{
	char path[4200], buf[256], *tok, *save = NULL;
	bool had_ldlat = false;
	int rc;

	snprintf(path, sizeof(path), "%s/events/%s", dev, name);
	if (read_line(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v = 1;
		if (eq) {
			char *e;
			*eq = '\0';
			v = strtoull(eq + 1, &e, 0);
			if (e == eq + 1 || *e)
				return hwp__set_error(EINVAL, "%s: bad value of '%s'", path, tok);
		}
		if (!strcmp(tok, "ldlat") && ldlat) {
			v = ldlat;
			had_ldlat = true;
		}
		if ((rc = apply_term(dev, tok, v, cfg)) < 0)
			return rc;
	}
	if (ldlat && !had_ldlat && (rc = apply_term(dev, "ldlat", ldlat, cfg)) < 0)
		return rc;
	return 0;
}

static int choose(const char *sysfs, unsigned ldlat, struct hwp_mem_events *e)
{
	static const char *const intel_pmus[] = { "cpu", "cpu_core" };
	char dev[4096];
	int rc;

	if (!sysfs)
		sysfs = "/sys";
	if (!ldlat)
		ldlat = 30; /* perf_mem_events__loads_ldlat */
	for (size_t i = 0; i < sizeof(intel_pmus) / sizeof(intel_pmus[0]); i++) {
		uint64_t cfg[3] = { 0 }, st[3] = { 0 };

		snprintf(dev, sizeof(dev), "%s/bus/event_source/devices/%s", sysfs, intel_pmus[i]);
		rc = encode_event(dev, "mem-loads", ldlat, cfg);
		if (rc == -ENOENT)
			continue;
		if (rc < 0 || (rc = pmu_type(dev, &e->type)) < 0)
			return rc == -ENOENT ? hwp__set_error(EINVAL, "%s/type: missing", dev) : rc;
		e->kind = HWP_MEM_PMU_INTEL;
		snprintf(e->pmu, sizeof(e->pmu), "%s", intel_pmus[i]);
		e->config = cfg[0];
		e->config1 = cfg[1];
		snprintf(e->loads, sizeof(e->loads), "%s/mem-loads,ldlat=%u/P", intel_pmus[i], ldlat);
		rc = encode_event(dev, "mem-stores", 0, st);
		if (rc < 0 && rc != -ENOENT)
			return rc;
		if (rc == 0) {
			e->store_config = st[0];
			snprintf(e->stores, sizeof(e->stores), "%s/mem-stores/P", intel_pmus[i]);
		}
		return 0;
	}
	snprintf(dev, sizeof(dev), "%s/bus/event_source/devices/ibs_op", sysfs);
	if ((rc = pmu_type(dev, &e->type)) == 0) {
		e->kind = HWP_MEM_PMU_AMD_IBS;
		snprintf(e->pmu, sizeof(e->pmu), "ibs_op");
		snprintf(e->loads, sizeof(e->loads), "ibs_op//");
		return 0;
	}
	if (rc != -ENOENT)
		return rc;
	snprintf(dev, sizeof(dev), "%s/bus/event_source/devices/arm_spe_0", sysfs);
	if ((rc = pmu_type(dev, &e->type)) == 0) {
		e->kind = HWP_MEM_PMU_ARM_SPE;
		snprintf(e->pmu, sizeof(e->pmu), "arm_spe_0");
		snprintf(e->loads, sizeof(e->loads), "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,"
			 "store_filter=1/");
		return 0;
	}
	if (rc != -ENOENT)
		return rc;
	snprintf(e->why, sizeof(e->why), "no precise memory sampling PMU in %s/bus/event_source/devices "
		 "(Intel cpu/events/mem-loads, AMD ibs_op, Arm arm_spe_0)", sysfs);
	return 0;
}

int hwp_mem_events__choose(const char *sysfs, unsigned ldlat, struct hwp_mem_events *out)
{
	struct hwp_mem_events e;
	int rc;

	if ((rc = HWP_RESULT_BEGIN(out, &e, struct hwp_mem_events)) < 0)
		return rc;
	memset(&e, 0, sizeof(e));
	rc = choose(sysfs, ldlat, &e);
	hwp__result_end(out, &e, sizeof(e));
	return rc;
}

double hwp_mem_events__expected(uint64_t events, uint64_t period)
{
	return period ? (double)events / (double)period : 0.0;
}
