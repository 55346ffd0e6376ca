/* SPDX-License-Identifier: MIT */
/*
 * Capability probe: what this machine can record, and why not. Each probe
 * reads below a root directory so tests can hand it fake trees.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
#endif

#include "capture/probe.h"
#include "hwprof/hwprof.h"
#include "hwprof/lbr_msr.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/vec.h"

/* ------------------------------------------------------------ file helpers */

void hwp__root_path(char *buf, size_t len, const char *root, const char *rel)
{
	if (!root || !*root || strcmp(root, "/") == 0)
		snprintf(buf, len, "/%s", rel);
	else
		snprintf(buf, len, "%s/%s", root, rel);
}

int hwp__read_line(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	hwp__root_path(path, sizeof(path), root, rel);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		int e = ferror(f) ? errno : 0;

		fclose(f);
		buf[0] = 0;
		return e ? -e : 0;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int hwp__read_int(const char *root, const char *rel, int *out)
{
	char line[64], *end;
	long v;
	int rc = hwp__read_line(root, rel, line, sizeof(line));

	if (rc)
		return rc;
	errno = 0;
	v = strtol(line, &end, 0);
	if (end == line || errno)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* snprintf into a fixed field; truncation is intended (vsnprintf: no
   -Wformat-truncation noise for paths that may be long). */
static void setf(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void setf(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

static void copy(char *dst, size_t len, const char *src)
{
	setf(dst, len, "%s", src);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* ------------------------------------------------------------ names */

const char *hwp_pmu_kind__name(enum hwp_pmu_kind k)
{
	switch (k) {
	case HWP_PMU_SOFTWARE: return "software";
	case HWP_PMU_CORE: return "core";
	case HWP_PMU_IBS_OP: return "ibs_op";
	case HWP_PMU_IBS_FETCH: return "ibs_fetch";
	case HWP_PMU_ARM_SPE: return "arm_spe";
	case HWP_PMU_TRACE: return "trace";
	case HWP_PMU_OTHER: break;
	}
	return "other";
}

const char *hwp_cpu_vendor__name(enum hwp_cpu_vendor v)
{
	switch (v) {
	case HWP_CPU_INTEL: return "Intel";
	case HWP_CPU_AMD: return "AMD";
	case HWP_CPU_ARM: return "Arm";
	case HWP_CPU_OTHER: return "other";
	case HWP_CPU_UNKNOWN: break;
	}
	return "unknown";
}

const char *hwp_paranoid__meaning(int level)
{
	if (level == HWP_PROBE_UNKNOWN)
		return "unknown (kernel.perf_event_paranoid unreadable: no perf_event support?)";
	if (level >= 3)
		return "perf_event_open refused to unprivileged users altogether (Debian/Android "
		       "patch level)";
	switch (level) {
	case 2:
		return "unprivileged users: own processes, user space only (no kernel samples, no "
		       "kernel branches, no CPU-wide events)";
	case 1:
		return "unprivileged users: own processes, user and kernel (no CPU-wide events)";
	case 0:
		return "unprivileged users: CPU-wide events too (no raw tracepoint or ftrace "
		       "function events)";
	default:
		return "no restrictions (and no perf mlock limit)";
	}
}

const char *hwp_kptr_restrict__meaning(int level)
{
	switch (level) {
	case 0: return "kernel addresses visible to every user (kernel symbols resolve)";
	case 1: return "kernel addresses hidden from users without CAP_SYSLOG";
	case 2: return "kernel addresses hidden from everyone, root included (kernel samples "
		       "stay unsymbolized)";
	}
	return "unknown (/proc/sys/kernel/kptr_restrict unreadable)";
}

/* ------------------------------------------------------------ CPU */

static bool has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);

	for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n)
		if ((p == flags || p[-1] == ' ' || p[-1] == '\t') && (p[n] == 0 || p[n] == ' ' ||
								      p[n] == '\n'))
			return true;
	return false;
}

static const char *arm_implementer(unsigned imp)
{
	switch (imp) {
	case 0x41: return "Arm";
	case 0x42: return "Broadcom";
	case 0x43: return "Cavium";
	case 0x48: return "HiSilicon";
	case 0x4e: return "NVIDIA";
	case 0x51: return "Qualcomm";
	case 0x61: return "Apple";
	case 0xc0: return "Ampere";
	}
	return "unknown implementer";
}

/* The Arm fields of cpuinfo, kept until the vendor is decided. */
struct arm_ids {
	bool seen;
	unsigned imp, part;
};

static void take_cpu_flags(struct hwp_probe_info *info, const char *val)
{
	info->cpu.hypervisor |= has_flag(val, "hypervisor");
	info->cpu.flag_pdcm |= has_flag(val, "pdcm");
	info->cpu.flag_arch_lbr |= has_flag(val, "arch_lbr");
	info->cpu.flag_arch_perfmon |= has_flag(val, "arch_perfmon");
	info->cpu.flag_ibs |= has_flag(val, "ibs");
	info->cpu.flag_perfctr_core |= has_flag(val, "perfctr_core");
	info->cpu.flag_amd_lbr_v2 |= has_flag(val, "amd_lbr_v2");
}

/* One "key : value" line of cpuinfo (x86 and Arm keys). */
static void take_cpuinfo_field(struct hwp_probe_info *info, const char *key, const char *val,
			       struct arm_ids *arm)
{
	if (!strcmp(key, "vendor_id")) {
		copy(info->cpu.vendor_id, sizeof(info->cpu.vendor_id), val);
	} else if (!strcmp(key, "cpu family")) {
		info->cpu.family = (unsigned)strtoul(val, NULL, 0);
		info->cpu.have_fms = true;
	} else if (!strcmp(key, "model")) {
		info->cpu.model = (unsigned)strtoul(val, NULL, 0);
	} else if (!strcmp(key, "stepping")) {
		info->cpu.stepping = (unsigned)strtoul(val, NULL, 0);
	} else if (!strcmp(key, "model name")) {
		copy(info->cpu.model_name, sizeof(info->cpu.model_name), val);
	} else if (!strcmp(key, "flags")) {
		take_cpu_flags(info, val);
	} else if (!strcmp(key, "CPU implementer")) {
		arm->seen = true;
		arm->imp = (unsigned)strtoul(val, NULL, 0);
		copy(info->cpu.vendor_id, sizeof(info->cpu.vendor_id), val);
	} else if (!strcmp(key, "CPU part")) {
		arm->part = (unsigned)strtoul(val, NULL, 0);
	} else if (!strcmp(key, "CPU variant")) {
		info->cpu.family = (unsigned)strtoul(val, NULL, 0);
	} else if (!strcmp(key, "CPU revision")) {
		info->cpu.stepping = (unsigned)strtoul(val, NULL, 0);
	}
}

/* The vendor (and on Arm the model and a name) from the fields read. */
static void decide_vendor(struct hwp_probe_info *info, const struct arm_ids *arm)
{
	if (arm->seen) {
		info->cpu.vendor = HWP_CPU_ARM;
		info->cpu.model = arm->part;
		info->cpu.have_fms = true;
		if (!info->cpu.model_name[0])
			setf(info->cpu.model_name, sizeof(info->cpu.model_name), "%s part 0x%03x",
				 arm_implementer(arm->imp), arm->part);
		if (!info->cpu.arch[0])
			copy(info->cpu.arch, sizeof(info->cpu.arch), "aarch64");
	} else if (info->cpu.vendor_id[0]) {
		if (!strcmp(info->cpu.vendor_id, "GenuineIntel"))
			info->cpu.vendor = HWP_CPU_INTEL;
		else if (!strcmp(info->cpu.vendor_id, "AuthenticAMD") ||
			 !strcmp(info->cpu.vendor_id, "HygonGenuine"))
			info->cpu.vendor = HWP_CPU_AMD;
		else
			info->cpu.vendor = HWP_CPU_OTHER;
		if (!info->cpu.arch[0])
			copy(info->cpu.arch, sizeof(info->cpu.arch), "x86_64");
	}
}

static void parse_cpuinfo(const char *procfs_root, struct hwp_probe_info *info)
{
	char path[4096], line[4096];
	struct arm_ids arm = { false, 0, 0 };
	FILE *f;

	hwp__root_path(path, sizeof(path), procfs_root, "cpuinfo");
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (line[0] == '\n' && info->cpu.vendor_id[0])
			break; /* first processor block only */
		if (!colon)
			continue;
		*colon = 0;
		take_cpuinfo_field(info, trim(line), trim(colon + 1), &arm);
	}
	fclose(f);
	decide_vendor(info, &arm);
}

#ifdef HAVE_CPUID
static void probe_cpuid(struct hwp_probe_info *info)
{
	unsigned a, b, c, d, max, ext_max;
	char v[13];

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	info->cpu.cpuid_used = true;
	max = a;
	memcpy(v, &b, 4);
	memcpy(v + 4, &d, 4);
	memcpy(v + 8, &c, 4);
	v[12] = 0;
	copy(info->cpu.vendor_id, sizeof(info->cpu.vendor_id), v);
	if (!strcmp(v, "GenuineIntel"))
		info->cpu.vendor = HWP_CPU_INTEL;
	else if (!strcmp(v, "AuthenticAMD") || !strcmp(v, "HygonGenuine"))
		info->cpu.vendor = HWP_CPU_AMD;
	else
		info->cpu.vendor = HWP_CPU_OTHER;
	if (max >= 1 && __get_cpuid(1, &a, &b, &c, &d)) {
		unsigned fam = (a >> 8) & 0xf, model = (a >> 4) & 0xf;

		if (fam == 0xf)
			fam += (a >> 20) & 0xff;
		if (fam == 6 || fam >= 0xf)
			model |= ((a >> 16) & 0xf) << 4;
		info->cpu.family = fam;
		info->cpu.model = model;
		info->cpu.stepping = a & 0xf;
		info->cpu.have_fms = true;
		info->cpu.hypervisor |= (c >> 31) & 1;
		info->cpu.flag_pdcm |= (c >> 15) & 1;
	}
	if (max >= 7 && __get_cpuid_count(7, 0, &a, &b, &c, &d))
		info->cpu.flag_arch_lbr |= (d >> 19) & 1;
	if (info->cpu.vendor == HWP_CPU_INTEL && max >= 0xa && __get_cpuid(0xa, &a, &b, &c, &d)) {
		info->cpu.perfmon_version = (int)(a & 0xff);
		info->cpu.flag_arch_perfmon |= info->cpu.perfmon_version > 0;
	}
	if (info->cpu.hypervisor) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(v, &b, 4);
		memcpy(v + 4, &c, 4);
		memcpy(v + 8, &d, 4);
		v[12] = 0;
		for (int i = 0; i < 12; i++)
			if (v[i] && !isprint((unsigned char)v[i]))
				v[i] = '?';
		copy(info->cpu.hypervisor_id, sizeof(info->cpu.hypervisor_id), v);
	}
	ext_max = __get_cpuid_max(0x80000000, NULL);
	if (info->cpu.vendor == HWP_CPU_AMD && ext_max >= 0x80000001 &&
	    __get_cpuid(0x80000001, &a, &b, &c, &d)) {
		info->cpu.flag_ibs |= (c >> 10) & 1;
		info->cpu.flag_perfctr_core |= (c >> 23) & 1;
	}
	if (info->cpu.vendor == HWP_CPU_AMD && ext_max >= 0x80000022 &&
	    __get_cpuid(0x80000022, &a, &b, &c, &d))
		info->cpu.flag_amd_lbr_v2 |= (a >> 1) & 1;
}
#endif

int hwp__probe_cpu(const char *procfs_root, bool use_cpuid, struct hwp_probe_info *info)
{
	if (!info)
		return hwp__set_error(EINVAL, "%s: no info", __func__);
	info->cpu.perfmon_version = -1;
	if (use_cpuid) {
		struct utsname u;

		if (uname(&u) == 0)
			copy(info->cpu.arch, sizeof(info->cpu.arch), u.machine);
	}
	parse_cpuinfo(procfs_root, info);
#ifdef HAVE_CPUID
	if (use_cpuid)
		probe_cpuid(info);
#endif
	return 0;
}

/* ------------------------------------------------------------ permissions */

#define CAP_SYS_ADMIN_BIT 21
#define CAP_SYSLOG_BIT 34
#define CAP_PERFMON_BIT 38

int hwp__probe_perms(const char *procfs_root, struct hwp_probe_info *info)
{
	char path[4096], line[512];
	FILE *f;
	long euid = -1;
	unsigned long long capeff = 0;

	if (!info)
		return hwp__set_error(EINVAL, "%s: no info", __func__);
	if (hwp__read_int(procfs_root, "sys/kernel/perf_event_paranoid", &info->perms.paranoid))
		info->perms.paranoid = HWP_PROBE_UNKNOWN;
	if (hwp__read_int(procfs_root, "sys/kernel/kptr_restrict", &info->perms.kptr_restrict))
		info->perms.kptr_restrict = HWP_PROBE_UNKNOWN;
	if (hwp__read_int(procfs_root, "sys/kernel/perf_event_max_sample_rate",
			  &info->perms.max_sample_rate))
		info->perms.max_sample_rate = HWP_PROBE_UNKNOWN;
	if (hwp__read_int(procfs_root, "sys/kernel/perf_event_mlock_kb", &info->perms.mlock_kb))
		info->perms.mlock_kb = HWP_PROBE_UNKNOWN;
	if (hwp__read_int(procfs_root, "sys/kernel/nmi_watchdog", &info->perms.nmi_watchdog))
		info->perms.nmi_watchdog = HWP_PROBE_UNKNOWN;

	hwp__root_path(path, sizeof(path), procfs_root, "self/status");
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		long r, e;

		if (sscanf(line, "Uid: %ld %ld", &r, &e) == 2)
			euid = e;
		else
			sscanf(line, "CapEff: %llx", &capeff);
	}
	if (f)
		fclose(f);
	info->perms.privilege[0] = 0;
	if (euid == 0)
		copy(info->perms.privilege, sizeof(info->perms.privilege), "root");
	else if ((capeff >> CAP_PERFMON_BIT) & 1)
		copy(info->perms.privilege, sizeof(info->perms.privilege), "CAP_PERFMON");
	else if ((capeff >> CAP_SYS_ADMIN_BIT) & 1)
		copy(info->perms.privilege, sizeof(info->perms.privilege), "CAP_SYS_ADMIN");
	info->perms.privileged = info->perms.privilege[0] != 0;
	info->perms.cap_syslog = euid == 0 || ((capeff >> CAP_SYSLOG_BIT) & 1);
	return 0;
}

/* ------------------------------------------------------------ PMUs */

static enum hwp_pmu_kind pmu_kind(const char *name, bool has_cpus)
{
	static const char *const sw[] = { "software", "tracepoint", "breakpoint", "kprobe",
					  "uprobe" };

	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		if (!strcmp(name, sw[i]))
			return HWP_PMU_SOFTWARE;
	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom") ||
	    !strcmp(name, "cpu_lowpower") || !strncmp(name, "armv", 4))
		return HWP_PMU_CORE;
	if (!strcmp(name, "ibs_op"))
		return HWP_PMU_IBS_OP;
	if (!strcmp(name, "ibs_fetch"))
		return HWP_PMU_IBS_FETCH;
	if (!strncmp(name, "arm_spe", 7))
		return HWP_PMU_ARM_SPE;
	if (!strcmp(name, "intel_pt") || !strcmp(name, "intel_bts") || !strcmp(name, "cs_etm"))
		return HWP_PMU_TRACE;
	/* Other core PMUs (apple_*_pmu, ...) list the CPUs they cover in "cpus";
	   uncore PMUs have "cpumask" instead. */
	if (has_cpus && strncmp(name, "uncore", 6) != 0)
		return HWP_PMU_CORE;
	return HWP_PMU_OTHER;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_cap(const void *a, const void *b)
{
	return strcmp(((const struct hwp_probe_cap *)a)->name, ((const struct hwp_probe_cap *)b)->name);
}

static void read_caps(const char *sysfs_root, const char *dir, struct hwp_probe_pmu *p)
{
	char rel[512], path[4096];
	DIR *d;
	struct dirent *de;

	snprintf(rel, sizeof(rel), "%s/%s/caps", dir, p->name);
	hwp__root_path(path, sizeof(path), sysfs_root, rel);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL && p->nr_caps < HWP_PROBE_MAX_CAPS) {
		char frel[1024];
		struct hwp_probe_cap *c = &p->caps[p->nr_caps];

		if (de->d_name[0] == '.')
			continue;
		snprintf(frel, sizeof(frel), "%s/%s", rel, de->d_name);
		if (hwp__read_line(sysfs_root, frel, c->value, sizeof(c->value)))
			continue;
		copy(c->name, sizeof(c->name), de->d_name);
		p->nr_caps++;
	}
	closedir(d);
	qsort(p->caps, p->nr_caps, sizeof(p->caps[0]), cmp_cap);
	for (size_t i = 0; i < p->nr_caps; i++) {
		if (!strcmp(p->caps[i].name, "branches"))
			p->branches = atoi(p->caps[i].value);
		else if (!strcmp(p->caps[i].name, "max_precise"))
			p->max_precise = atoi(p->caps[i].value);
		else if (!strcmp(p->caps[i].name, "pmu_name"))
			copy(p->pmu_name, sizeof(p->pmu_name), p->caps[i].value);
	}
}

/* The entries of D (closed here) but . and .., sorted; fewer when out of
   memory. */
static char **sorted_names(DIR *d, size_t *np)
{
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *name = strdup(de->d_name), **slot;

		if (!name || !(slot = HWP_VEC_PUSH(names, n, cap))) {
			free(name);
			break;
		}
		*slot = name;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	*np = n;
	return names;
}

/* NAME's kind; a "cpus" file marks the core PMUs pmu_kind() has no name for. */
static enum hwp_pmu_kind sysfs_pmu_kind(const char *sysfs_root, const char *dir, const char *name)
{
	char rel[512], path[4096];
	struct stat st;

	snprintf(rel, sizeof(rel), "%s/%s/cpus", dir, name);
	hwp__root_path(path, sizeof(path), sysfs_root, rel);
	return pmu_kind(name, stat(path, &st) == 0);
}

/* PMU NAME into INFO with its type and caps; only counted once INFO is full. */
static void add_pmu(const char *sysfs_root, const char *dir, const char *name,
		    enum hwp_pmu_kind k, struct hwp_probe_info *info)
{
	char rel[512], tbuf[32];
	struct hwp_probe_pmu *p;

	if (info->nr_pmus == HWP_PROBE_MAX_PMUS) {
		info->nr_other_pmus++;
		return;
	}
	p = &info->pmus[info->nr_pmus++];
	memset(p, 0, sizeof(*p));
	copy(p->name, sizeof(p->name), name);
	p->kind = k;
	p->max_precise = -1;
	snprintf(rel, sizeof(rel), "%s/%s/type", dir, name);
	p->type = hwp__read_line(sysfs_root, rel, tbuf, sizeof(tbuf)) ? -1 : atoi(tbuf);
	read_caps(sysfs_root, dir, p);
}

int hwp__probe_pmus(const char *sysfs_root, struct hwp_probe_info *info)
{
	static const char dir[] = "bus/event_source/devices";
	char path[4096];
	DIR *d;
	char **names;
	size_t n;

	if (!info)
		return hwp__set_error(EINVAL, "%s: no info", __func__);
	info->nr_pmus = 0;
	info->nr_other_pmus = 0;
	hwp__root_path(path, sizeof(path), sysfs_root, dir);
	d = opendir(path);
	if (!d) {
		int e = errno;

		info->pmus_state = HWP_PROBE_UNREADABLE;
		setf(info->pmus_err, sizeof(info->pmus_err), "%s: %s", path, strerror(e));
		return 0;
	}
	names = sorted_names(d, &n);
	/* Keep the interesting PMUs first: two passes, non-OTHER then OTHER. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			enum hwp_pmu_kind k = sysfs_pmu_kind(sysfs_root, dir, names[i]);

			if ((pass == 0) == (k != HWP_PMU_OTHER))
				add_pmu(sysfs_root, dir, names[i], k, info);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	info->pmus_state = n ? HWP_PROBE_READ : HWP_PROBE_ABSENT;
	if (!n)
		setf(info->pmus_err, sizeof(info->pmus_err), "no PMU under %s", path);
	return 0;
}

/* ------------------------------------------------------------ kernel log */

static const char *const kmsg_keys[] = { "Performance Events:", "hw perfevents:" };

/* Looks for the PMU line in LINE; keeps the first one found. */
static void kmsg_match(struct hwp_probe_info *info, const char *line)
{
	if (info->kmsg.state == HWP_PROBE_READ)
		return;
	for (size_t k = 0; k < sizeof(kmsg_keys) / sizeof(kmsg_keys[0]); k++) {
		const char *p = strstr(line, kmsg_keys[k]);

		if (p) {
			copy(info->kmsg.line, sizeof(info->kmsg.line), p);
			info->kmsg.line[strcspn(info->kmsg.line, "\r\n")] = 0;
			info->kmsg.state = HWP_PROBE_READ;
			return;
		}
	}
}

/* Splits BUF into lines (the last, partial one is kept in CARRY). */
static void kmsg_feed(struct hwp_probe_info *info, char *carry, size_t *clen, size_t ccap,
		      const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			carry[*clen] = 0;
			kmsg_match(info, carry);
			*clen = 0;
		} else if (*clen + 1 < ccap) {
			carry[(*clen)++] = buf[i];
		}
	}
}

/* Reads FD (/dev/kmsg) until the PMU line. /dev/kmsg hands out one record
   per read() and EAGAIN at the end; a plain file (tests) hands out text.
   Bounded either way. Returns 0, or the errno that stopped it. */
static int kmsg_read_fd(struct hwp_probe_info *info, int fd)
{
	char buf[8192], carry[1024];
	size_t clen = 0;
	int err = 0;

	for (int rec = 0; rec < 200000; rec++) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && (errno == EPIPE || errno == EINTR))
			continue; /* overwritten record: the next one follows */
		if (r < 0) {
			if (errno != EAGAIN)
				err = errno;
			break;
		}
		if (r == 0)
			break;
		kmsg_feed(info, carry, &clen, sizeof(carry), buf, (size_t)r);
		if (info->kmsg.state == HWP_PROBE_READ)
			break;
	}
	if (clen) {
		carry[clen] = 0;
		kmsg_match(info, carry);
	}
	return err;
}

/* The kernel log through syslog(2), when /dev/kmsg could not be read; false
   when this fails too. */
static bool kmsg_read_syslog(struct hwp_probe_info *info)
{
	char carry[1024];
	size_t clen = 0;
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log;
	int n;

	if (size <= 0)
		return false;
	log = malloc((size_t)size);
	n = log ? klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size) : -1;
	if (n > 0)
		kmsg_feed(info, carry, &clen, sizeof(carry), log, (size_t)n);
	free(log);
	if (n <= 0)
		return false;
	if (info->kmsg.state != HWP_PROBE_READ) {
		info->kmsg.state = HWP_PROBE_ABSENT;
		copy(info->kmsg.err, sizeof(info->kmsg.err),
		     "no \"Performance Events:\" line in the kernel log (rotated?)");
	}
	return true;
}

int hwp__probe_kmsg(const char *dev_root, bool use_syslog, struct hwp_probe_info *info)
{
	char path[4096];
	int fd, err;

	if (!info)
		return hwp__set_error(EINVAL, "%s: no info", __func__);
	info->kmsg.state = HWP_PROBE_NOT_TRIED;
	info->kmsg.line[0] = info->kmsg.err[0] = 0;
	hwp__root_path(path, sizeof(path), dev_root, "kmsg");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		err = kmsg_read_fd(info, fd);
		close(fd);
		if (info->kmsg.state == HWP_PROBE_READ)
			return 0;
		if (!err) {
			info->kmsg.state = HWP_PROBE_ABSENT;
			setf(info->kmsg.err, sizeof(info->kmsg.err),
				 "no \"Performance Events:\" line in %s (log rotated?)", path);
			return 0;
		}
	} else {
		err = errno;
	}
	if (use_syslog && kmsg_read_syslog(info))
		return 0;
	info->kmsg.state = HWP_PROBE_UNREADABLE;
	setf(info->kmsg.err, sizeof(info->kmsg.err), "%s: %s%s", path, strerror(err),
		 err == EPERM || err == EACCES ? " (kernel.dmesg_restrict: run as root)" : "");
	return 0;
}

/* ------------------------------------------------------------ Intel MSR */

int hwp__probe_perf_caps(const char *dev_root, struct hwp_probe_info *info)
{
	char path[4096];
	uint64_t v;
	ssize_t r;
	int fd;

	if (!info)
		return hwp__set_error(EINVAL, "%s: no info", __func__);
	info->perf_caps.lbr_format = -1;
	info->perf_caps.err[0] = 0;
	if (info->cpu.vendor != HWP_CPU_INTEL) {
		info->perf_caps.state = HWP_PROBE_NOT_TRIED;
		copy(info->perf_caps.err, sizeof(info->perf_caps.err), "not an Intel CPU");
		return 0;
	}
	if (!info->cpu.flag_pdcm && !info->cpu.flag_arch_lbr) {
		info->perf_caps.state = HWP_PROBE_ABSENT;
		copy(info->perf_caps.err, sizeof(info->perf_caps.err),
		     "the CPU reports no IA32_PERF_CAPABILITIES (CPUID.01H:ECX.PDCM clear; "
		     "hypervisors often hide it)");
		return 0;
	}
	hwp__root_path(path, sizeof(path), dev_root, "cpu/0/msr");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		info->perf_caps.state = HWP_PROBE_UNREADABLE;
		if (e == ENOENT)
			setf(info->perf_caps.err, sizeof(info->perf_caps.err),
				 "%s missing: 'modprobe msr' and run as root", path);
		else if (e == EACCES || e == EPERM)
			setf(info->perf_caps.err, sizeof(info->perf_caps.err),
				 "%s: %s (reading MSRs needs root: CAP_SYS_RAWIO)", path, strerror(e));
		else
			setf(info->perf_caps.err, sizeof(info->perf_caps.err), "%s: %s", path,
				 strerror(e));
		return 0;
	}
	r = pread(fd, &v, sizeof(v), HWP_MSR_IA32_PERF_CAPABILITIES);
	if (r != (ssize_t)sizeof(v)) {
		int e = r < 0 ? errno : EIO;

		close(fd);
		info->perf_caps.state = HWP_PROBE_UNREADABLE;
		setf(info->perf_caps.err, sizeof(info->perf_caps.err),
			 "%s: MSR 0x345 not readable: %s%s", path, strerror(e),
			 e == EIO ? " (the CPU or hypervisor refuses it)" : "");
		return 0;
	}
	close(fd);
	info->perf_caps.state = HWP_PROBE_READ;
	info->perf_caps.value = v;
	info->perf_caps.lbr_format = (int)hwp_perf_capabilities__lbr_format(v);
	return 0;
}

/* ------------------------------------------------------------ verdicts */

static void say(struct hwp_probe_verdict *v, bool yes, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct hwp_probe_verdict *v, bool yes, const char *fmt, ...)
{
	va_list ap;

	v->yes = yes;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

static bool is_no_pmu_line(const char *l)
{
	return strstr(l, "not available") || strstr(l, "software events only") ||
	       strstr(l, "no PMU driver") || strstr(l, "unsupported");
}

/* What the verdicts look at among the PMUs: the first core PMU, the deepest
   branch stack and the highest max_precise over all core PMUs (hybrid CPUs
   have two), and the IBS and SPE PMUs. */
struct pmu_summary {
	const struct hwp_probe_pmu *core, *ibs, *spe;
	int depth, max_precise;
};

static void summarize_pmus(const struct hwp_probe_info *info, struct pmu_summary *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->max_precise = -1;
	for (size_t i = 0; i < info->nr_pmus; i++) {
		const struct hwp_probe_pmu *p = &info->pmus[i];

		if (p->kind == HWP_PMU_CORE) {
			if (!ps->core)
				ps->core = p;
			if (p->branches > ps->depth)
				ps->depth = p->branches;
			if (p->max_precise > ps->max_precise)
				ps->max_precise = p->max_precise;
		} else if (p->kind == HWP_PMU_IBS_OP) {
			ps->ibs = p;
		} else if (p->kind == HWP_PMU_ARM_SPE) {
			ps->spe = p;
		}
	}
}

/* Hardware PMU: a core PMU registered, or why none: what the kernel said,
   a VM without vPMU, an unreadable sysfs, or no driver. */
static void verdict_hw_pmu(struct hwp_probe_info *info, const struct pmu_summary *ps)
{
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_HW_PMU];
	const struct hwp_probe_pmu *core = ps->core;
	const char *hv_id = info->cpu.hypervisor_id;

	if (core)
		say(v, true, "%s PMU (type %d%s%s%s)", core->name, core->type,
		    core->pmu_name[0] ? ", " : "", core->pmu_name,
		    info->cpu.hypervisor ? ", virtual PMU of a VM" : "");
	else if (info->kmsg.state == HWP_PROBE_READ && is_no_pmu_line(info->kmsg.line))
		say(v, false, "no hardware PMU: the kernel says \"%s\"", info->kmsg.line);
	else if (info->cpu.hypervisor)
		say(v, false, "no hardware PMU: this is a virtual machine%s%s%s whose "
		    "hypervisor exposes no PMU (enable a vPMU, e.g. QEMU -cpu host,pmu=on)",
		    hv_id[0] ? " (" : "", hv_id, hv_id[0] ? ")" : "");
	else if (info->pmus_state != HWP_PROBE_READ)
		say(v, false, "no hardware PMU found: %s", info->pmus_err);
	else
		say(v, false, "no hardware PMU: the kernel registered no CPU PMU "
		    "(no driver for this CPU, or perf events disabled)");
}

/* Access: perf_event_open at all, as perf_event_paranoid and privilege allow. */
static void verdict_access(struct hwp_probe_info *info)
{
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_ACCESS];
	int par = info->perms.paranoid;

	if (par == HWP_PROBE_UNKNOWN)
		say(v, false, "kernel.perf_event_paranoid unreadable: this kernel has "
		    "no perf_event support");
	else if (info->perms.privileged)
		say(v, true, "%s: not limited by perf_event_paranoid=%d", info->perms.privilege,
		    par);
	else if (par >= 3)
		say(v, false, "perf_event_paranoid=%d: perf_event_open is refused to "
		    "unprivileged users (needs CAP_PERFMON, or sysctl kernel.perf_event_paranoid=2)",
		    par);
	else
		say(v, true, "perf_event_paranoid=%d: %s", par, hwp_paranoid__meaning(par));
}

/* Kernel samples and branches: privileged, or perf_event_paranoid <= 1. */
static void verdict_kernel(struct hwp_probe_info *info)
{
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_KERNEL];
	int par = info->perms.paranoid;

	if (!info->verdict[HWP_CAP_ACCESS].yes)
		say(v, false, "no access to perf events");
	else if (info->perms.privileged || par <= 1)
		say(v, true, "kernel samples and kernel branches allowed");
	else
		say(v, false, "perf_event_paranoid=%d: kernel samples and kernel "
		    "branches are refused; record user space only (event modifier :u, branch "
		    "filter u) or lower it to 1", par);
}

/* Kernel symbols: kptr_restrict 0, or 1 with CAP_SYSLOG. */
static void verdict_kernel_syms(struct hwp_probe_info *info)
{
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_KERNEL_SYMS];
	int kptr = info->perms.kptr_restrict;

	if (kptr == HWP_PROBE_UNKNOWN)
		say(v, false, "%s", hwp_kptr_restrict__meaning(kptr));
	else if (kptr == 0 || (kptr == 1 && info->perms.cap_syslog))
		say(v, true, "kptr_restrict=%d: kernel addresses readable", kptr);
	else
		say(v, false, "kptr_restrict=%d: %s", kptr, hwp_kptr_restrict__meaning(kptr));
}

/* Software events: whenever perf events are accessible at all. */
static void verdict_software(struct hwp_probe_info *info)
{
	const struct hwp_probe_verdict *access = &info->verdict[HWP_CAP_ACCESS];
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_SOFTWARE];

	if (access->yes)
		say(v, true, "cpu-clock, task-clock and the other software events");
	else
		say(v, false, "%s", access->why);
}

/* What this vendor calls its branch stack. */
static const char *branch_stack_name(const struct hwp_probe_info *info)
{
	switch (info->cpu.vendor) {
	case HWP_CPU_INTEL:
		return info->cpu.flag_arch_lbr || info->perf_caps.lbr_format == 0x3f
			       ? "architectural LBR" : "LBR";
	case HWP_CPU_AMD:
		return info->cpu.flag_amd_lbr_v2 ? "LBRv2" : "BRS";
	case HWP_CPU_ARM:
		return "BRBE";
	default:
		return "branch stack";
	}
}

/* The core PMU's caps/branch_counter_nr when positive, else "". */
static const char *branch_counters(const struct hwp_probe_pmu *core)
{
	const char *cntr = "";

	for (size_t c = 0; c < core->nr_caps; c++)
		if (!strcmp(core->caps[c].name, "branch_counter_nr") &&
		    atoi(core->caps[c].value) > 0)
			cntr = core->caps[c].value;
	return cntr;
}

/* Branch stacks when the core PMU has one: usable if perf events are. */
static void verdict_branch_stack_depth(struct hwp_probe_info *info,
				       const struct pmu_summary *ps)
{
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_BRANCH_STACK];
	const char *what = branch_stack_name(info), *cntr = branch_counters(ps->core);

	if (info->verdict[HWP_CAP_ACCESS].yes)
		say(v, true, "%d-entry %s (%s/caps/branches)%s%s%s", ps->depth, what,
		    ps->core->name,
		    info->verdict[HWP_CAP_KERNEL].yes ? "" : "; user-space branches only",
		    *cntr ? "; branch counters: " : "", cntr);
	else
		say(v, false, "%d-entry %s, but %s", ps->depth, what,
		    info->verdict[HWP_CAP_ACCESS].why);
}

/* Branch stacks: the core PMU's, or why there is none on this vendor's CPU
   (and what samples branches instead). */
static void verdict_branch_stack(struct hwp_probe_info *info, const struct pmu_summary *ps)
{
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_BRANCH_STACK];

	if (!ps->core)
		say(v, false, "no branch records without a hardware PMU");
	else if (ps->depth > 0)
		verdict_branch_stack_depth(info, ps);
	else if (info->cpu.vendor == HWP_CPU_INTEL)
		say(v, false, "the %s PMU reports no LBR (no caps/branches)%s", ps->core->name,
		    info->cpu.hypervisor ? ": the hypervisor does not pass LBR through (KVM needs "
					   "-cpu host with lbr-fmt)" : "");
	else if (info->cpu.vendor == HWP_CPU_AMD)
		say(v, false, "no branch stack on this AMD PMU (Zen 3 BRS needs "
		    "kernel 5.19+, Zen 4 LBRv2 6.1+; older cores have none)%s",
		    ps->ibs ? "; IBS gives precise single-branch samples" : "");
	else if (info->cpu.vendor == HWP_CPU_ARM)
		say(v, false, "no BRBE on this Arm PMU (Armv9.2 BRBE with a kernel "
		    "that supports it)%s", ps->spe ? "; SPE samples branch targets" : "");
	else
		say(v, false, "the %s PMU reports no branch stack", ps->core->name);
}

/* LBR call stacks: Intel LBR from Haswell (format 4) on, and arch LBR. */
static void verdict_lbr_callstack(struct hwp_probe_info *info)
{
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_LBR_CALLSTACK];
	int fmt = info->perf_caps.lbr_format;

	if (!info->verdict[HWP_CAP_BRANCH_STACK].yes)
		say(v, false, "no branch stack");
	else if (info->cpu.vendor != HWP_CPU_INTEL)
		say(v, false, "LBR call-stack mode is Intel-only (Haswell and later)");
	else if (fmt >= 0 && fmt < HWP_LBR_FMT_EIP_FLAGS2)
		say(v, false, "LBR format %d predates call-stack mode (Haswell)", fmt);
	else
		say(v, true, "user-space call stacks from the LBR");
}

/* Precise samples: Intel PEBS, AMD IBS, Arm SPE, or a core PMU's
   max_precise. */
static void verdict_precise(struct hwp_probe_info *info, const struct pmu_summary *ps)
{
	struct hwp_probe_verdict *v = &info->verdict[HWP_CAP_PRECISE];
	const struct hwp_probe_pmu *core = ps->core;
	int mp = ps->max_precise;

	if (!core)
		say(v, false, "no hardware PMU");
	else if (info->cpu.vendor == HWP_CPU_INTEL && mp > 0)
		say(v, true, "PEBS, up to :%.*s (%s/caps/max_precise=%d)", mp, "ppp", core->name,
		    mp);
	else if (ps->ibs)
		say(v, true, "AMD IBS (%s PMU, type %d): :p on cycles uses it", ps->ibs->name,
		    ps->ibs->type);
	else if (ps->spe)
		say(v, true, "Arm SPE (%s PMU, type %d)", ps->spe->name, ps->spe->type);
	else if (mp > 0)
		say(v, true, "%s/caps/max_precise=%d", core->name, mp);
	else
		say(v, false, "no PEBS, IBS or SPE found");
}

/* Each capability's verdict; later ones build on earlier ones (access
   before kernel, software and branch stacks; branch stacks before LBR call
   stacks). */
void hwp__probe_verdicts(struct hwp_probe_info *info)
{
	struct pmu_summary ps;

	if (!info)
		return;
	summarize_pmus(info, &ps);
	info->branch_depth = ps.depth;
	copy(info->core_pmu, sizeof(info->core_pmu), ps.core ? ps.core->name : "");

	verdict_hw_pmu(info, &ps);
	verdict_access(info);
	verdict_kernel(info);
	verdict_kernel_syms(info);
	verdict_software(info);
	verdict_branch_stack(info, &ps);
	verdict_lbr_callstack(info);
	verdict_precise(info, &ps);
}

/* ------------------------------------------------------------ all */

int hwp_probe__run(const struct hwp_probe_opts *opts, struct hwp_probe_info *info)
{
	struct hwp_probe_opts o;
	bool cpuid;
	int err;

	if (!info)
		return hwp__set_error(EINVAL, "hwp_probe__run: no info");
	if ((err = HWP_OPTS_LOAD(opts, &o, struct hwp_probe_opts)) < 0)
		return err;
	memset(info, 0, sizeof(*info));
	cpuid = o.no_cpuid ? false : (o.use_cpuid || !o.procfs_root);
	hwp__probe_cpu(o.procfs_root ? o.procfs_root : "/proc", cpuid, info);
	hwp__probe_perms(o.procfs_root ? o.procfs_root : "/proc", info);
	hwp__probe_pmus(o.sysfs_root ? o.sysfs_root : "/sys", info);
	hwp__probe_kmsg(o.dev_root ? o.dev_root : "/dev", !o.dev_root, info);
	hwp__probe_perf_caps(o.dev_root ? o.dev_root : "/dev", info);
	hwp__probe_verdicts(info);
	return 0;
}

/* ------------------------------------------------------------ the result */

struct hwp_probe_info *hwp_probe_info__new(void)
{
	struct hwp_probe_info *info = calloc(1, sizeof(*info));

	if (!info) {
		hwp__set_error(ENOMEM, "out of memory");
	}
	return info;
}

void hwp_probe_info__delete(struct hwp_probe_info *info)
{
	free(info);
}

const struct hwp_probe_cpu *hwp_probe_info__cpu(const struct hwp_probe_info *info)
{
	return &info->cpu;
}

const struct hwp_probe_perms *hwp_probe_info__perms(const struct hwp_probe_info *info)
{
	return &info->perms;
}

const struct hwp_probe_kmsg *hwp_probe_info__kmsg(const struct hwp_probe_info *info)
{
	return &info->kmsg;
}

const struct hwp_probe_perf_caps *hwp_probe_info__perf_caps(const struct hwp_probe_info *info)
{
	return &info->perf_caps;
}

size_t hwp_probe_info__nr_pmus(const struct hwp_probe_info *info)
{
	return info->nr_pmus;
}

const struct hwp_probe_pmu *hwp_probe_info__pmu(const struct hwp_probe_info *info, size_t i)
{
	return i < info->nr_pmus ? &info->pmus[i] : NULL;
}

size_t hwp_probe_info__nr_other_pmus(const struct hwp_probe_info *info)
{
	return info->nr_other_pmus;
}

enum hwp_probe_state hwp_probe_info__pmus_state(const struct hwp_probe_info *info,
						const char **err)
{
	if (err)
		*err = info->pmus_err;
	return info->pmus_state;
}

const struct hwp_probe_verdict *hwp_probe_info__verdict(const struct hwp_probe_info *info,
							enum hwp_capability c)
{
	static const struct hwp_probe_verdict unknown = { false, "unknown capability" };

	return (unsigned)c < HWP_CAP_COUNT ? &info->verdict[c] : &unknown;
}

int hwp_probe_info__branch_depth(const struct hwp_probe_info *info)
{
	return info->branch_depth;
}

const char *hwp_probe_info__core_pmu(const struct hwp_probe_info *info)
{
	return info->core_pmu;
}
