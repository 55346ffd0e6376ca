/* Capability probe on fake sysfs/procfs/dev trees: an Intel machine with LBR,
   an AMD one with IBS and LBRv2, an Arm one with SPE, and a VM without PMU. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "capture/probe.h"
#include "hwprof/hwprof.h"
#include "hwprof/probe.h"
#include "testlib.h"

static char root[256];

static void mkdirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

/* Writes ROOT/REL (creating directories) with printf-style content. */
static void put(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(const char *rel, const char *fmt, ...)
{
	char path[512], dir[512];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	mkdirs(dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* A fake /dev/cpu/0/msr: a sparse file holding VALUE at offset MSR. */
static void put_msr(uint32_t msr, uint64_t value)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/dev/cpu/0", root);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/dev/cpu/0/msr", root);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || pwrite(fd, &value, 8, msr) != 8) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
	close(fd);
}

static void pmu(const char *name, int type)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/%s/type", name);
	put(rel, "%d\n", type);
}

static void cap(const char *pmu_name, const char *cap_name, const char *value)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/%s/caps/%s", pmu_name, cap_name);
	put(rel, "%s\n", value);
}

static void sysctls(int paranoid, int kptr, int rate)
{
	put("proc/sys/kernel/perf_event_paranoid", "%d\n", paranoid);
	put("proc/sys/kernel/kptr_restrict", "%d\n", kptr);
	put("proc/sys/kernel/perf_event_max_sample_rate", "%d\n", rate);
	put("proc/sys/kernel/perf_event_mlock_kb", "516\n");
}

static void user(int uid, const char *capeff)
{
	put("proc/self/status", "Name:\tprobe\nUid:\t%d\t%d\t%d\t%d\nGid:\t0\t0\t0\t0\n"
	    "CapInh:\t0000000000000000\nCapPrm:\t%s\nCapEff:\t%s\n", uid, uid, uid, uid, capeff, capeff);
}

static void fresh_root(void)
{
	char cmd[600];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			exit(2);
	}
	snprintf(root, sizeof(root), "/tmp/hwprof-test-probe-XXXXXX");
	if (!mkdtemp(root))
		exit(2);
}

/* Parts of the result IN of the test case. */
#define VERDICT(c) hwp_probe_info__verdict(in, HWP_CAP_##c)
#define CPU hwp_probe_info__cpu(in)
#define PERMS hwp_probe_info__perms(in)
#define PERF_CAPS hwp_probe_info__perf_caps(in)
#define KMSG hwp_probe_info__kmsg(in)

/* One result per process: each test case probes a fresh tree into it. */
static struct hwp_probe_info *info_;

static struct hwp_probe_info *probe(void)
{
	struct hwp_probe_info *info = info_ ? info_ : (info_ = hwp_probe_info__new());
	char sys[300], proc[300], dev[300];
	struct hwp_probe_opts o = { .sz = sizeof(o), .sysfs_root = sys, .procfs_root = proc,
				    .dev_root = dev };

	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	CHECK(info != NULL);
	CHECK(hwp_probe__run(&o, info) == 0);
	CHECK(!hwp_probe_info__cpu(info)->cpuid_used); /* a fake tree never mixes in the host's CPU */
	return info;
}

static const struct hwp_probe_pmu *find_pmu(const struct hwp_probe_info *in, const char *name)
{
	for (size_t i = 0; i < hwp_probe_info__nr_pmus(in); i++)
		if (!strcmp(hwp_probe_info__pmu(in, i)->name, name))
			return hwp_probe_info__pmu(in, i);
	return NULL;
}

/* ------------------------------------------------------------ Intel */

static void intel_tree(void)
{
	fresh_root();
	put("proc/cpuinfo",
	    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
	    "model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz\nstepping\t: 4\n"
	    "flags\t\t: fpu vme de pse tsc msr pae mce arch_perfmon pebs bts rep_good pdcm pcid "
	    "dca sse4_1 rtm\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n");
	sysctls(2, 1, 25000);
	put("proc/sys/kernel/nmi_watchdog", "1\n");
	user(1000, "0000000000000000");
	pmu("cpu", 4);
	cap("cpu", "branches", "32");
	cap("cpu", "max_precise", "3");
	cap("cpu", "pmu_name", "skylake");
	pmu("software", 1);
	pmu("tracepoint", 2);
	pmu("breakpoint", 5);
	pmu("intel_pt", 8);
	pmu("uncore_imc_0", 12);
	put("sys/bus/event_source/devices/uncore_imc_0/cpumask", "0,20\n");
	pmu("power", 13);
	put("dev/kmsg", "6,1,0,-;Linux version 6.1.0\n"
	    "6,412,310186,-;Performance Events: PEBS fmt3+, Skylake events, 32-deep LBR, "
	    "full-width counters, Intel PMU driver.\n 6,413,310190,-;... version:                4\n");
	put_msr(0x345, 0x33c5); /* LBR format 000101b */
}

static void test_intel_lbr(void)
{
	intel_tree();
	struct hwp_probe_info *in = probe();

	CHECK(CPU->vendor == HWP_CPU_INTEL);
	CHECK(strcmp(CPU->vendor_id, "GenuineIntel") == 0);
	CHECK(CPU->family == 6 && CPU->model == 85 && CPU->stepping == 4);
	CHECK(strcmp(CPU->arch, "x86_64") == 0);
	CHECK(!CPU->hypervisor);
	CHECK(CPU->flag_pdcm && CPU->flag_arch_perfmon && !CPU->flag_arch_lbr);
	CHECK_EQ_U64(PERMS->paranoid, 2);
	CHECK_EQ_U64(PERMS->kptr_restrict, 1);
	CHECK_EQ_U64(PERMS->max_sample_rate, 25000);
	CHECK_EQ_U64(PERMS->nmi_watchdog, 1);
	CHECK(!PERMS->privileged && !PERMS->cap_syslog);
	CHECK(KMSG->state == HWP_PROBE_READ);
	CHECK(strncmp(KMSG->line, "Performance Events: PEBS fmt3+, Skylake events, 32-deep LBR",
		      59) == 0);

	const struct hwp_probe_pmu *cpu = find_pmu(in, "cpu");
	CHECK(cpu && cpu->kind == HWP_PMU_CORE && cpu->type == 4);
	CHECK(cpu && cpu->branches == 32 && cpu->max_precise == 3);
	CHECK(cpu && strcmp(cpu->pmu_name, "skylake") == 0 && cpu->nr_caps == 3);
	CHECK(find_pmu(in, "intel_pt") && find_pmu(in, "intel_pt")->kind == HWP_PMU_TRACE);
	CHECK(find_pmu(in, "software") && find_pmu(in, "software")->kind == HWP_PMU_SOFTWARE);
	CHECK(find_pmu(in, "uncore_imc_0") && find_pmu(in, "uncore_imc_0")->kind == HWP_PMU_OTHER);
	/* interesting ones first */
	CHECK(hwp_probe_info__pmu(in, hwp_probe_info__nr_pmus(in) - 1)->kind == HWP_PMU_OTHER);

	CHECK(PERF_CAPS->state == HWP_PROBE_READ);
	CHECK_EQ_U64(PERF_CAPS->value, 0x33c5);
	CHECK_EQ_U64(PERF_CAPS->lbr_format, 5);

	CHECK(VERDICT(HW_PMU)->yes);
	CHECK(VERDICT(ACCESS)->yes);
	CHECK(!VERDICT(KERNEL)->yes); /* paranoid 2, unprivileged */
	CHECK(strstr(VERDICT(KERNEL)->why, "perf_event_paranoid=2") != NULL);
	CHECK(!VERDICT(KERNEL_SYMS)->yes); /* kptr_restrict 1 without CAP_SYSLOG */
	CHECK(VERDICT(BRANCH_STACK)->yes);
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "32-entry LBR") != NULL);
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "user-space branches only") != NULL);
	CHECK(VERDICT(LBR_CALLSTACK)->yes);
	CHECK(VERDICT(PRECISE)->yes && strstr(VERDICT(PRECISE)->why, "PEBS") != NULL);
	CHECK(VERDICT(SOFTWARE)->yes);
	CHECK_EQ_U64(hwp_probe_info__branch_depth(in), 32);
	CHECK(strcmp(hwp_probe_info__core_pmu(in), "cpu") == 0);
}

static void test_intel_msr_unreadable(void)
{
	intel_tree();
	char path[600];

	snprintf(path, sizeof(path), "%s/dev/cpu/0/msr", root);
	unlink(path);
	user(0, "000001ffffffffff"); /* root: kernel samples and symbols too */
	struct hwp_probe_info *in = probe();

	CHECK(PERF_CAPS->state == HWP_PROBE_UNREADABLE);
	CHECK(strstr(PERF_CAPS->err, "modprobe msr") != NULL);
	CHECK_EQ_U64((uint64_t)(int64_t)PERF_CAPS->lbr_format, (uint64_t)-1);
	CHECK(PERMS->privileged && strcmp(PERMS->privilege, "root") == 0);
	CHECK(VERDICT(KERNEL)->yes && VERDICT(KERNEL_SYMS)->yes);
	CHECK(VERDICT(BRANCH_STACK)->yes);
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "user-space") == NULL);
	/* format not known: call stacks assumed from the LBR being there */
	CHECK(VERDICT(LBR_CALLSTACK)->yes);
}

static void test_intel_arch_lbr_capperfmon(void)
{
	intel_tree();
	put("proc/cpuinfo", "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
	    "model name\t: Intel(R) Xeon(R) Platinum 8480+\nstepping\t: 8\n"
	    "flags\t\t: fpu pdcm arch_perfmon arch_lbr\n");
	put_msr(0x345, 0x4f33f); /* 111111b: arch LBR */
	user(1000, "0000004000000000"); /* CAP_PERFMON (bit 38) */
	struct hwp_probe_info *in = probe();

	CHECK(CPU->model == 143 && CPU->flag_arch_lbr);
	CHECK_EQ_U64(PERF_CAPS->lbr_format, 0x3f);
	CHECK(PERMS->privileged && strcmp(PERMS->privilege, "CAP_PERFMON") == 0);
	CHECK(VERDICT(KERNEL)->yes);
	CHECK(!VERDICT(KERNEL_SYMS)->yes); /* CAP_PERFMON is not CAP_SYSLOG */
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "architectural LBR") != NULL);
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "branch counters") == NULL);
	cap("cpu", "branch_counter_nr", "4");
	cap("cpu", "branch_counter_width", "2");
	in = probe();
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "; branch counters: 4") != NULL);
	CHECK(VERDICT(LBR_CALLSTACK)->yes);
}

static void test_intel_old_lbr_format(void)
{
	intel_tree();
	put_msr(0x345, 0x3); /* 000011b: Nehalem-era EIP with flags, no call stacks */
	cap("cpu", "branches", "16");
	struct hwp_probe_info *in = probe();

	CHECK_EQ_U64(PERF_CAPS->lbr_format, 3);
	CHECK(VERDICT(BRANCH_STACK)->yes && hwp_probe_info__branch_depth(in) == 16);
	CHECK(!VERDICT(LBR_CALLSTACK)->yes);
}

static void test_intel_vm_without_lbr(void)
{
	/* a KVM guest with a vPMU but no LBR passthrough, PDCM hidden */
	intel_tree();
	put("proc/cpuinfo", "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
	    "model name\t: Intel Xeon Processor (Skylake)\nstepping\t: 4\n"
	    "flags\t\t: fpu arch_perfmon hypervisor\n");
	char path[600];

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/cpu/caps/branches", root);
	unlink(path);
	struct hwp_probe_info *in = probe();

	CHECK(CPU->hypervisor);
	CHECK(VERDICT(HW_PMU)->yes && strstr(VERDICT(HW_PMU)->why, "virtual PMU") != NULL);
	CHECK(PERF_CAPS->state == HWP_PROBE_ABSENT);
	CHECK(strstr(PERF_CAPS->err, "PDCM") != NULL);
	CHECK(!VERDICT(BRANCH_STACK)->yes);
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "reports no LBR") != NULL);
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "hypervisor") != NULL);
}

/* ------------------------------------------------------------ AMD */

static void amd_tree(void)
{
	fresh_root();
	put("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
	    "model\t\t: 17\nmodel name\t: AMD EPYC 9654 96-Core Processor\nstepping\t: 1\n"
	    "flags\t\t: fpu vme perfctr_core ibs amd_lbr_v2 perfmon_v2\n");
	sysctls(1, 0, 100000);
	user(0, "000001ffffffffff");
	pmu("cpu", 4);
	cap("cpu", "branches", "16");
	pmu("ibs_op", 11);
	cap("ibs_op", "zen4_ibs_extensions", "1");
	pmu("ibs_fetch", 10);
	cap("ibs_fetch", "zen4_ibs_extensions", "1");
	pmu("amd_df", 12);
	pmu("amd_l3", 13);
	pmu("software", 1);
	pmu("kprobe", 6);
	put("dev/kmsg", "6,300,1000,-;Performance Events: Fam17h+ 16-deep LBR, core perfctr, "
	    "AMD PMU driver.\n");
}

static void test_amd_ibs_lbrv2(void)
{
	amd_tree();
	struct hwp_probe_info *in = probe();

	CHECK(CPU->vendor == HWP_CPU_AMD);
	CHECK(CPU->family == 25 && CPU->model == 17);
	CHECK(CPU->flag_ibs && CPU->flag_perfctr_core && CPU->flag_amd_lbr_v2);
	CHECK(find_pmu(in, "ibs_op") && find_pmu(in, "ibs_op")->kind == HWP_PMU_IBS_OP);
	CHECK(find_pmu(in, "ibs_fetch") && find_pmu(in, "ibs_fetch")->kind == HWP_PMU_IBS_FETCH);
	CHECK(find_pmu(in, "ibs_op") && find_pmu(in, "ibs_op")->nr_caps == 1);
	CHECK(find_pmu(in, "kprobe") && find_pmu(in, "kprobe")->kind == HWP_PMU_SOFTWARE);
	CHECK(PERF_CAPS->state == HWP_PROBE_NOT_TRIED); /* an Intel MSR */
	CHECK(VERDICT(HW_PMU)->yes && VERDICT(KERNEL)->yes && VERDICT(KERNEL_SYMS)->yes);
	CHECK(VERDICT(BRANCH_STACK)->yes && strstr(VERDICT(BRANCH_STACK)->why, "16-entry LBRv2") != NULL);
	CHECK(!VERDICT(LBR_CALLSTACK)->yes && strstr(VERDICT(LBR_CALLSTACK)->why, "Intel-only") != NULL);
	CHECK(VERDICT(PRECISE)->yes && strstr(VERDICT(PRECISE)->why, "IBS") != NULL);
	CHECK(strstr(KMSG->line, "16-deep LBR") != NULL);
}

static void test_amd_zen2_no_branch_stack(void)
{
	amd_tree();
	put("proc/cpuinfo", "vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n"
	    "model name\t: AMD EPYC 7742 64-Core Processor\nstepping\t: 0\n"
	    "flags\t\t: fpu perfctr_core ibs\n");
	char path[600];

	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/cpu/caps/branches", root);
	unlink(path);
	sysctls(3, 0, 100000);
	user(1000, "0000000000000000");
	struct hwp_probe_info *in = probe();

	CHECK(VERDICT(HW_PMU)->yes);
	CHECK(!VERDICT(ACCESS)->yes && strstr(VERDICT(ACCESS)->why, "perf_event_paranoid=3") != NULL);
	CHECK(!VERDICT(SOFTWARE)->yes);
	CHECK(!VERDICT(BRANCH_STACK)->yes);
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "IBS") != NULL);
}

/* ------------------------------------------------------------ Arm */

static void test_arm_spe(void)
{
	fresh_root();
	put("proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes "
	    "pmull sha1 sha2 crc32 atomics\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
	    "CPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n"
	    "processor\t: 1\nCPU implementer\t: 0x41\n");
	sysctls(2, 0, 100000);
	user(1000, "0000000000000000");
	pmu("armv8_pmuv3_0", 8);
	put("sys/bus/event_source/devices/armv8_pmuv3_0/cpus", "0-79\n");
	pmu("arm_spe_0", 9);
	cap("arm_spe_0", "min_interval", "1024");
	put("sys/bus/event_source/devices/arm_spe_0/cpumask", "0-79\n");
	pmu("arm_cmn_0", 10);
	put("sys/bus/event_source/devices/arm_cmn_0/cpumask", "0\n");
	pmu("software", 1);
	put("dev/kmsg", "6,200,1000,-;hw perfevents: enabled with armv8_pmuv3_0 PMU driver, "
	    "7 counters available\n");
	struct hwp_probe_info *in = probe();

	CHECK(CPU->vendor == HWP_CPU_ARM);
	CHECK(strcmp(CPU->vendor_id, "0x41") == 0);
	CHECK_EQ_U64(CPU->model, 0xd0c);
	CHECK(strcmp(CPU->arch, "aarch64") == 0);
	CHECK(strstr(CPU->model_name, "Arm part 0xd0c") != NULL);
	CHECK(find_pmu(in, "armv8_pmuv3_0") && find_pmu(in, "armv8_pmuv3_0")->kind == HWP_PMU_CORE);
	CHECK(find_pmu(in, "arm_spe_0") && find_pmu(in, "arm_spe_0")->kind == HWP_PMU_ARM_SPE);
	CHECK(find_pmu(in, "arm_cmn_0") && find_pmu(in, "arm_cmn_0")->kind == HWP_PMU_OTHER);
	CHECK(strcmp(hwp_probe_info__core_pmu(in), "armv8_pmuv3_0") == 0);
	CHECK(VERDICT(HW_PMU)->yes);
	CHECK(!VERDICT(BRANCH_STACK)->yes && strstr(VERDICT(BRANCH_STACK)->why, "BRBE") != NULL);
	CHECK(strstr(VERDICT(BRANCH_STACK)->why, "SPE") != NULL);
	CHECK(VERDICT(PRECISE)->yes && strstr(VERDICT(PRECISE)->why, "Arm SPE") != NULL);
	CHECK(PERF_CAPS->state == HWP_PROBE_NOT_TRIED);
	CHECK(strstr(KMSG->line, "hw perfevents: enabled with armv8_pmuv3_0") == KMSG->line);

	/* an Arm core with BRBE: caps/branches on the core PMU */
	cap("armv8_pmuv3_0", "branches", "64");
	in = probe();
	CHECK(VERDICT(BRANCH_STACK)->yes && strstr(VERDICT(BRANCH_STACK)->why, "64-entry BRBE") != NULL);
	CHECK(!VERDICT(LBR_CALLSTACK)->yes);
}

/* ------------------------------------------------------------ this VM */

static void vm_tree(void)
{
	fresh_root();
	put("proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
	    "model\t\t: 1\nmodel name\t: AMD EPYC\nstepping\t: 1\n"
	    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic hypervisor lahf_lm\n");
	sysctls(2, 0, 100000);
	user(0, "000001ffffffffff");
	pmu("breakpoint", 5);
	pmu("msr", 9);
	pmu("software", 1);
	pmu("tracepoint", 2);
	pmu("uprobe", 8);
	put("dev/kmsg", "6,1,0,-;Linux version 6.18.44\n"
	    "6,2,1,-;Hypervisor detected: KVM\n"
	    "6,300,310186,-;Performance Events: PMU not available due to virtualization, using "
	    "software events only.\n");
}

static void test_vm_no_pmu(void)
{
	vm_tree();
	struct hwp_probe_info *in = probe();

	CHECK(CPU->vendor == HWP_CPU_AMD && CPU->hypervisor);
	CHECK(hwp_probe_info__core_pmu(in)[0] == 0 && hwp_probe_info__branch_depth(in) == 0);
	CHECK(find_pmu(in, "msr") && find_pmu(in, "msr")->kind == HWP_PMU_OTHER);
	CHECK(!VERDICT(HW_PMU)->yes);
	CHECK(strstr(VERDICT(HW_PMU)->why, "no hardware PMU") != NULL);
	CHECK(strstr(VERDICT(HW_PMU)->why, "PMU not available due to virtualization") != NULL);
	CHECK(!VERDICT(BRANCH_STACK)->yes && !VERDICT(LBR_CALLSTACK)->yes && !VERDICT(PRECISE)->yes);
	CHECK(VERDICT(SOFTWARE)->yes && VERDICT(ACCESS)->yes && VERDICT(KERNEL)->yes);
}

static void test_vm_no_kmsg(void)
{
	vm_tree();
	char path[600];

	snprintf(path, sizeof(path), "%s/dev/kmsg", root);
	unlink(path);
	struct hwp_probe_info *in = probe();

	CHECK(KMSG->state == HWP_PROBE_UNREADABLE);
	CHECK(!VERDICT(HW_PMU)->yes && strstr(VERDICT(HW_PMU)->why, "virtual machine") != NULL);

	/* the log without a PMU line, and no sysfs at all */
	put("dev/kmsg", "6,1,0,-;Linux version 6.18.44\n");
	snprintf(path, sizeof(path), "rm -rf '%s/sys'", root);
	CHECK(system(path) == 0);
	put("proc/cpuinfo", "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t: 1\nstepping\t: 1\n");
	in = probe();
	CHECK(KMSG->state == HWP_PROBE_ABSENT);
	CHECK(hwp_probe_info__pmus_state(in, NULL) == HWP_PROBE_UNREADABLE);
	CHECK(!VERDICT(HW_PMU)->yes && strstr(VERDICT(HW_PMU)->why, "no hardware PMU found") != NULL);
}

static void test_meanings(void)
{
	CHECK(strstr(hwp_paranoid__meaning(2), "user space only") != NULL);
	CHECK(strstr(hwp_paranoid__meaning(3), "refused") != NULL);
	CHECK(strstr(hwp_paranoid__meaning(4), "refused") != NULL);
	CHECK(strstr(hwp_paranoid__meaning(1), "no CPU-wide") != NULL);
	CHECK(strstr(hwp_paranoid__meaning(-1), "no restrictions") != NULL);
	CHECK(strstr(hwp_kptr_restrict__meaning(2), "root included") != NULL);
	CHECK(strcmp(hwp_pmu_kind__name(HWP_PMU_IBS_OP), "ibs_op") == 0);
	CHECK(strcmp(hwp_probe_info__verdict(NULL, HWP_CAP_COUNT)->why, "unknown capability") == 0);
	/* size-versioned options: zero size refused, an unknown set tail refused,
	   an older (smaller) size accepted */
	struct {
		struct hwp_probe_opts o;
		char newer[8];
	} big;
	struct hwp_probe_opts bad = { .sz = 0 };
	struct hwp_probe_info *in = hwp_probe_info__new();
	CHECK(in != NULL);
	CHECK(hwp_probe__run(&bad, in) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "size") != NULL);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.no_cpuid = true;
	big.o.procfs_root = big.o.sysfs_root = big.o.dev_root = "/nonexistent";
	CHECK(hwp_probe__run(&big.o, in) == 0);
	big.newer[3] = 1;
	CHECK(hwp_probe__run(&big.o, in) == -EINVAL);
	bad.sz = offsetof(struct hwp_probe_opts, dev_root); /* an older caller */
	bad.procfs_root = bad.sysfs_root = "/nonexistent";
	CHECK(hwp_probe__run(&bad, in) == 0);
	CHECK(hwp__probe_cpu("/nonexistent", false, NULL) == -EINVAL);
	hwp_probe_info__delete(in);
	hwp_probe_info__delete(NULL);
}

int main(void)
{
	RUN(test_intel_lbr);
	RUN(test_intel_msr_unreadable);
	RUN(test_intel_arch_lbr_capperfmon);
	RUN(test_intel_old_lbr_format);
	RUN(test_intel_vm_without_lbr);
	RUN(test_amd_ibs_lbrv2);
	RUN(test_amd_zen2_no_branch_stack);
	RUN(test_arm_spe);
	RUN(test_vm_no_pmu);
	RUN(test_vm_no_kmsg);
	RUN(test_meanings);
	hwp_probe_info__delete(info_);
	if (root[0]) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			return 1;
	}
	TL_EXIT();
}
