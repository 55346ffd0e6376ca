/* perf_event_attr construction with host facts fixed by the test (the e2e
   test record_attr.sh compares with perf itself on the machine it runs on;
   this one covers hosts it cannot be: Intel, unprivileged, low rate limits). */
#include <errno.h>

#include "capture/attr_build.h"
#include "hwprof/capture.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"
#include "testlib.h"

static const struct hwp_capture_host intel_root = { .can_profile_kernel = true, .amd = false,
						    .max_sample_rate = 100000, .paranoid = 2,
						    .arch = "x86_64" };
static const struct hwp_capture_host amd_user = { .can_profile_kernel = false, .amd = true,
						  .max_sample_rate = 100000, .paranoid = 2,
						  .arch = "x86_64" };

static bool flag(const struct hwp_attr *a, unsigned f)
{
	return (a->flags >> f) & 1;
}

static struct hwp_attr_result R = { .sz = sizeof(R) };

static int build(const struct hwp_capture_host *h, const char *event, uint64_t bst,
		 enum hwp_callgraph cg)
{
	struct hwp_attr_opts o = { .sz = sizeof(o), .event = event, .branch_sample_type = bst,
				   .callgraph = cg };

	return hwp_attr__build(&o, h, &R);
}

static void test_default_event_by_host(void)
{
	/* Intel root: exclude_guest from event_attr_init(), kernel profiled */
	CHECK(build(&intel_root, NULL, HWP_BRANCH_ANY, HWP_CALLGRAPH_NONE) == 0);
	CHECK(R.event.is_default && R.event.precise_max);
	CHECK_EQ_U64(R.attr.type, 0);
	CHECK_EQ_U64(R.attr.size, 128);
	CHECK(flag(&R.attr, HWP_ATTR_EXCLUDE_GUEST));
	CHECK(!flag(&R.attr, HWP_ATTR_EXCLUDE_KERNEL));
	CHECK_EQ_U64(hwp_attr__precise_ip(&R.attr), 3);
	CHECK_EQ_U64(R.attr.sample_type, HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME |
					 HWP_SAMPLE_PERIOD | HWP_SAMPLE_BRANCH_STACK);
	CHECK_EQ_U64(R.attr.branch_sample_type, HWP_BRANCH_ANY);
	CHECK_EQ_U64(R.attr.read_format, HWP_FORMAT_ID | HWP_FORMAT_LOST);
	CHECK(strcmp(R.event.name, "cycles") == 0);
	/* AMD, unprivileged: no exclude_guest (IBS), exclude_kernel, "cycles:u" */
	CHECK(build(&amd_user, NULL, 0, HWP_CALLGRAPH_NONE) == 0);
	CHECK(!flag(&R.attr, HWP_ATTR_EXCLUDE_GUEST));
	CHECK(flag(&R.attr, HWP_ATTR_EXCLUDE_KERNEL));
	CHECK(!flag(&R.attr, HWP_ATTR_EXCLUDE_HV));
	CHECK(strcmp(R.event.name, "cycles:u") == 0);
	/* an explicit -e cycles is a parsed event: exclude_guest even on AMD */
	CHECK(build(&amd_user, "cycles", 0, HWP_CALLGRAPH_NONE) == 0);
	CHECK(flag(&R.attr, HWP_ATTR_EXCLUDE_GUEST) && !flag(&R.attr, HWP_ATTR_EXCLUDE_KERNEL));
	CHECK_EQ_U64(hwp_attr__precise_ip(&R.attr), 0);
}

static void test_modifiers(void)
{
	static const struct {
		const char *ev;
		bool eu, ek, eh, eH, eG, eI;
		unsigned precise;
		bool pmax;
	} t[] = {
		/* perf 6.1 get_event_modifier(), starting from zero */
		{ "cycles", 0, 0, 0, 0, 1, 0, 0, 0 },
		{ "cycles:u", 0, 1, 1, 0, 1, 0, 0, 0 },
		{ "cycles:k", 1, 0, 1, 0, 0, 0, 0, 0 },
		{ "cycles:h", 1, 1, 0, 0, 0, 0, 0, 0 },
		{ "cycles:uk", 0, 0, 1, 0, 1, 0, 0, 0 },
		{ "cycles:G", 0, 0, 0, 1, 0, 0, 0, 0 },
		{ "cycles:H", 0, 0, 0, 0, 1, 0, 0, 0 },
		{ "cycles:Gk", 1, 0, 1, 1, 0, 0, 0, 0 },
		{ "cycles:I", 0, 0, 0, 0, 0, 1, 0, 0 },
		{ "cycles:p", 0, 0, 0, 0, 1, 0, 1, 0 },
		{ "cycles:ppp", 0, 0, 0, 0, 1, 0, 3, 0 },
		{ "cycles:P", 0, 0, 0, 0, 0, 0, 0, 1 },
		{ "instructions:upp", 0, 1, 1, 0, 1, 0, 2, 0 },
		{ "cycles:Gp", 0, 0, 0, 1, 0, 0, 1, 0 }, /* G first: p keeps exclude_guest 0 */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (build(&intel_root, t[i].ev, 0, HWP_CALLGRAPH_NONE) != 0) {
			fprintf(stderr, "%s: %s\n", t[i].ev, hwp_errmsg());
			CHECK(0);
			continue;
		}
		if (flag(&R.attr, HWP_ATTR_EXCLUDE_USER) != t[i].eu ||
		    flag(&R.attr, HWP_ATTR_EXCLUDE_KERNEL) != t[i].ek ||
		    flag(&R.attr, HWP_ATTR_EXCLUDE_HV) != t[i].eh ||
		    flag(&R.attr, HWP_ATTR_EXCLUDE_HOST) != t[i].eH ||
		    flag(&R.attr, HWP_ATTR_EXCLUDE_GUEST) != t[i].eG ||
		    flag(&R.attr, HWP_ATTR_EXCLUDE_IDLE) != t[i].eI ||
		    hwp_attr__precise_ip(&R.attr) != (t[i].pmax ? 3 : t[i].precise) ||
		    R.event.precise_max != t[i].pmax) {
			fprintf(stderr, "modifiers of %s differ from perf's\n", t[i].ev);
			CHECK(0);
		}
	}
	CHECK(build(&intel_root, "cycles:pppp", 0, 0) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "at most 3") != NULL);
	CHECK(build(&intel_root, "cycles:x", 0, 0) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "bad modifier") != NULL);
	CHECK(build(&intel_root, ":u", 0, 0) == -EINVAL);
	CHECK(build(&intel_root, "cycles,instructions", 0, 0) == -EINVAL);
}

static void test_event_names(void)
{
	struct hwp_event_desc ev;

	CHECK(hwp_event__parse("cpu-clock", &intel_root, &ev) == 0 && ev.type == 1 && ev.config == 0);
	CHECK(hwp_event__parse("task-clock", &intel_root, &ev) == 0 && ev.type == 1 && ev.config == 1);
	CHECK(hwp_event__parse("branches", &intel_root, &ev) == 0 && ev.type == 0 && ev.config == 4);
	CHECK(hwp_event__parse("branch-instructions", &intel_root, &ev) == 0 && ev.config == 4);
	CHECK(hwp_event__parse("ref-cycles", &intel_root, &ev) == 0 && ev.config == 9);
	CHECK(hwp_event__parse("cs", &intel_root, &ev) == 0 && ev.type == 1 && ev.config == 3);
	CHECK(hwp_event__parse("r20c4:u", &intel_root, &ev) == 0 && ev.type == 4 &&
	      ev.config == 0x20c4 && ev.exclude_kernel);
	CHECK(hwp_event__parse("no_such_event_anywhere", &intel_root, &ev) < 0);
	CHECK(strstr(hwp_errmsg(), "no_such_event_anywhere") != NULL);
#ifdef HAVE_LIBPFM
	/* libpfm4 with a forced PMU model (main() sets LIBPFM_FORCE_PMU=skl):
	   Skylake's BR_INST_RETIRED.NEAR_TAKEN */
	if (hwp_event__parse("br_inst_retired.near_taken:pp", &intel_root, &ev) == 0) {
		CHECK(ev.from_pfm && ev.type == 4 && ev.config == 0x20c4 && ev.precise == 2);
		CHECK(strstr(ev.pfm_fstr, "BR_INST_RETIRED:NEAR_TAKEN") != NULL);
		CHECK(hwp_event__parse("mem_load_retired.l3_miss", &intel_root, &ev) == 0 &&
		      ev.config == 0x20d1 && ev.exclude_guest);
		CHECK(hwp_event__parse("INST_RETIRED:ANY_P:k=0", &intel_root, &ev) == 0 &&
		      ev.config == 0xc0 && ev.exclude_kernel);
	} else {
		fprintf(stderr, "libpfm4 cannot force skl here: %s\n", hwp_errmsg());
	}
#endif
}

static void test_branch_filters(void)
{
	uint64_t m;

	CHECK(hwp_branch_filter__parse("any,u", &m) == 0 && m == (HWP_BRANCH_ANY | HWP_BRANCH_USER));
	CHECK(hwp_branch_filter__parse("u", &m) == 0 && m == HWP_BRANCH_ANY); /* perf drops u */
	CHECK(hwp_branch_filter__parse("k,hv", &m) == 0 && m == HWP_BRANCH_ANY);
	CHECK(hwp_branch_filter__parse("any_call,any_ret,ind_call,ind_jmp,call,cond", &m) == 0 &&
	      m == (HWP_BRANCH_ANY_CALL | HWP_BRANCH_ANY_RETURN | HWP_BRANCH_IND_CALL |
		    HWP_BRANCH_IND_JUMP | HWP_BRANCH_CALL | HWP_BRANCH_COND));
	CHECK(hwp_branch_filter__parse("stack", &m) == 0 && m == HWP_BRANCH_CALL_STACK);
	CHECK(hwp_branch_filter__parse("call_stack,u", &m) == 0 &&
	      m == (HWP_BRANCH_CALL_STACK | HWP_BRANCH_USER));
	CHECK(hwp_branch_filter__parse("cond,save_type", &m) == 0 &&
	      m == (HWP_BRANCH_COND | HWP_BRANCH_TYPE_SAVE));
	CHECK(hwp_branch_filter__parse("any,no_flags,no_cycles", &m) == 0 &&
	      m == (HWP_BRANCH_ANY | HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES));
	CHECK(hwp_branch_filter__parse("hw_index", &m) == 0 &&
	      m == (HWP_BRANCH_ANY | HWP_BRANCH_HW_INDEX));
	CHECK(hwp_branch_filter__parse("ANY,U", &m) == 0 && m == (HWP_BRANCH_ANY | HWP_BRANCH_USER));
	CHECK(hwp_branch_filter__parse("any,bogus", &m) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "'bogus'") != NULL);
	/* perf splits at every comma: an empty name is an unknown filter */
	m = 42;
	CHECK(hwp_branch_filter__parse("any,,u", &m) == -EINVAL && m == 42);
	CHECK(strstr(hwp_errmsg(), "''") != NULL);
	CHECK(hwp_branch_filter__parse("", &m) == -EINVAL);
	CHECK(hwp_branch_filter__parse("any,", &m) == -EINVAL);
	CHECK(hwp_branch_filter__parse(",any", &m) == -EINVAL);
	CHECK(hwp_branch_filter__parse("any, u", &m) == -EINVAL); /* " u" is no name */
	/* the levels named, also those perf's rule drops */
	uint64_t lv = 42;
	CHECK(hwp_branch_filter__parse_levels("k", &m, &lv) == 0 && m == HWP_BRANCH_ANY &&
	      lv == HWP_BRANCH_KERNEL);
	CHECK(hwp_branch_filter__parse_levels("any,k,hv", &m, &lv) == 0 &&
	      m == (HWP_BRANCH_ANY | HWP_BRANCH_KERNEL | HWP_BRANCH_HV) &&
	      lv == (HWP_BRANCH_KERNEL | HWP_BRANCH_HV));
	CHECK(hwp_branch_filter__parse_levels("u,no_flags", &m, &lv) == 0 &&
	      m == (HWP_BRANCH_ANY | HWP_BRANCH_NO_FLAGS) && lv == HWP_BRANCH_USER);
	CHECK(hwp_branch_filter__parse_levels("cond", &m, &lv) == 0 && m == HWP_BRANCH_COND && lv == 0);
	CHECK(hwp_branch_filter__parse_levels("call", &m, NULL) == 0 && m == HWP_BRANCH_CALL);
}

static void test_freq_period(void)
{
	struct hwp_capture_host slow = intel_root;
	struct hwp_attr_opts o = { .sz = sizeof(o), .event = "cycles", .period = 100000 };

	CHECK(hwp_attr__build(&o, &intel_root, &R) == 0);
	CHECK(!flag(&R.attr, HWP_ATTR_FREQ) && R.attr.sample_period == 100000);
	CHECK(!(R.attr.sample_type & HWP_SAMPLE_PERIOD));
	o.period = 0;
	o.freq = 999;
	CHECK(hwp_attr__build(&o, &intel_root, &R) == 0);
	CHECK(flag(&R.attr, HWP_ATTR_FREQ) && R.attr.sample_period == 999);
	CHECK(R.attr.sample_type & HWP_SAMPLE_PERIOD);
	/* the kernel's limit caps -F and the default 4000, with perf's warnings */
	slow.max_sample_rate = 3000;
	o.freq = 0;
	CHECK(hwp_attr__build(&o, &slow, &R) == 0 && R.attr.sample_period == 3000);
	CHECK(R.nr_warnings == 1 && strstr(R.warnings[0], "Lowering default frequency") != NULL);
	o.freq = 5000;
	CHECK(hwp_attr__build(&o, &slow, &R) == 0 && R.attr.sample_period == 3000);
	CHECK(R.nr_warnings == 1 && strstr(R.warnings[0], "throttling from 5000 Hz to 3000") != NULL);
	o.freq = 0;
	o.freq_max = true;
	CHECK(hwp_attr__build(&o, &slow, &R) == 0 && R.attr.sample_period == 3000);
	o.period = 10;
	CHECK(hwp_attr__build(&o, &slow, &R) == -EINVAL);
}

static void test_inherit_time_callchains(void)
{
	struct hwp_attr_opts o = { .sz = sizeof(o), .event = "cpu-clock", .per_thread = true };

	/* --per-thread: no inherit, no TIME (perf: dummy CPU map) */
	CHECK(hwp_attr__build(&o, &intel_root, &R) == 0);
	CHECK(!flag(&R.attr, HWP_ATTR_INHERIT) && !(R.attr.sample_type & HWP_SAMPLE_TIME));
	o.per_thread = false;
	o.no_inherit = true;
	CHECK(hwp_attr__build(&o, &intel_root, &R) == 0);
	CHECK(!flag(&R.attr, HWP_ATTR_INHERIT) && (R.attr.sample_type & HWP_SAMPLE_TIME));
	/* LBR call stacks: user-only branch stack, or a fall back with perf's warning */
	CHECK(build(&intel_root, NULL, 0, HWP_CALLGRAPH_LBR) == 0);
	CHECK_EQ_U64(R.attr.branch_sample_type, HWP_BRANCH_USER | HWP_BRANCH_CALL_STACK |
						  HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES |
						  HWP_BRANCH_HW_INDEX);
	CHECK(R.attr.sample_type & HWP_SAMPLE_CALLCHAIN);
	CHECK(build(&intel_root, NULL, HWP_BRANCH_ANY, HWP_CALLGRAPH_LBR) == 0);
	CHECK_EQ_U64(R.attr.branch_sample_type, HWP_BRANCH_ANY);
	CHECK(R.nr_warnings == 1 && strstr(R.warnings[0], "Cannot use LBR callstack") != NULL);
	CHECK(build(&intel_root, "cycles:k", 0, HWP_CALLGRAPH_LBR) == 0);
	CHECK(!(R.attr.sample_type & HWP_SAMPLE_BRANCH_STACK));
	CHECK(R.nr_warnings == 1 && strstr(R.warnings[0], "only available to get user") != NULL);
	/* DWARF: registers of the arch, 8 KiB of stack, data addresses */
	struct hwp_capture_host arm = intel_root;

	snprintf(arm.arch, sizeof(arm.arch), "aarch64");
	CHECK(build(&arm, NULL, 0, HWP_CALLGRAPH_DWARF) == 0);
	CHECK_EQ_U64(R.attr.sample_regs_user, 0x1ffffffffULL);
	CHECK_EQ_U64(R.attr.sample_stack_user, 8192);
	CHECK(flag(&R.attr, HWP_ATTR_EXCLUDE_CALLCHAIN_USER) && flag(&R.attr, HWP_ATTR_MMAP_DATA));
	CHECK(build(&intel_root, NULL, 0, HWP_CALLGRAPH_DWARF) == 0);
	CHECK_EQ_U64(R.attr.sample_regs_user, 0xff0fffULL);
	snprintf(arm.arch, sizeof(arm.arch), "riscv64");
	CHECK(build(&arm, NULL, 0, HWP_CALLGRAPH_DWARF) == -EOPNOTSUPP);
}

static void test_format_perf(void)
{
	/* perf 6.1, `perf record -vv -e cycles:pp -b` (AMD host, root) */
	static const char want[] =
		"------------------------------------------------------------\n"
		"perf_event_attr:\n"
		"  size                             128\n"
		"  { sample_period, sample_freq }   4000\n"
		"  sample_type                      IP|TID|TIME|PERIOD|BRANCH_STACK\n"
		"  read_format                      ID|LOST\n"
		"  disabled                         1\n"
		"  inherit                          1\n"
		"  mmap                             1\n"
		"  comm                             1\n"
		"  freq                             1\n"
		"  enable_on_exec                   1\n"
		"  task                             1\n"
		"  precise_ip                       2\n"
		"  sample_id_all                    1\n"
		"  exclude_guest                    1\n"
		"  mmap2                            1\n"
		"  comm_exec                        1\n"
		"  ksymbol                          1\n"
		"  bpf_event                        1\n"
		"  branch_sample_type               ANY\n"
		"------------------------------------------------------------\n";
	char buf[4096];

	CHECK(build(&amd_user, "cycles:pp", HWP_BRANCH_ANY, HWP_CALLGRAPH_NONE) == 0);
	size_t n = hwp_attr__format_perf(&R.attr, buf, sizeof(buf));
	CHECK(n == strlen(want));
	CHECK(strcmp(buf, want) == 0);
	if (strcmp(buf, want))
		fprintf(stderr, "%s", buf);
	/* sample_type in perf's name order (IDENTIFIER before DATA_SRC), hex fields */
	struct hwp_attr a = { .type = 4, .config = 0x20c4, .sample_type = HWP_SAMPLE_DATA_SRC |
					 HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP, .config1 = 0x3 };
	hwp_attr__format_perf(&a, buf, sizeof(buf));
	CHECK(strstr(buf, "  sample_type                      IP|IDENTIFIER|DATA_SRC\n") != NULL);
	CHECK(strstr(buf, "  config                           0x20c4\n") != NULL);
	CHECK(strstr(buf, "  { bp_addr, config1 }             0x3\n") != NULL);
	/* truncation reports the full length */
	CHECK(hwp_attr__format_perf(&a, buf, 10) > 10 && strlen(buf) == 9);
}

static void test_kernel_layout(void)
{
	uint8_t k[128];
	struct hwp_attr a = { .type = 4, .config = 0x20c4, .sample_period = 4000,
			      .sample_type = 0x80f, .read_format = 0x14, .flags = 0x1234,
			      .config1 = 7, .branch_sample_type = 8, .sample_regs_user = 0xff0fff,
			      .sample_stack_user = 8192, .sample_max_stack = 127 };

	hwp__attr_to_kernel(&a, k);
	CHECK(k[0] == 4 && k[4] == 128 && k[8] == 0xc4 && k[9] == 0x20);
	CHECK(k[16] == 0xa0 && k[17] == 0x0f); /* 4000 */
	CHECK(k[40] == 0x34 && k[41] == 0x12);
	CHECK(k[56] == 7 && k[72] == 8 && k[80] == 0xff && k[82] == 0xff);
	CHECK(k[88] == 0x00 && k[89] == 0x20 && k[108] == 127);
}

static void test_writer_branch_stack_feature(void)
{
	/* the flag feature perf report's branch mode needs */
	char path[] = "/tmp/hwprof-test-attr-XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	struct hwp_writer *w = hwp_writer__open(path);
	CHECK(w != NULL);
	CHECK(build(&intel_root, NULL, HWP_BRANCH_ANY, HWP_CALLGRAPH_NONE) == 0);
	uint64_t id = 1;
	CHECK(hwp_writer__add_attr(w, &R.attr, &id, 1, "cycles") == 0);
	CHECK(hwp_writer__set_flag_feature(w, HWP_FEAT_HOSTNAME) == -EINVAL);
	CHECK(hwp_writer__set_flag_feature(w, HWP_FEAT_BRANCH_STACK) == 0);
	CHECK(hwp_writer__set_string(w, HWP_FEAT_HOSTNAME, "h") == 0);
	/* a record: a data size of 0 reads as "perf record was killed" */
	CHECK(hwp_writer__add_finished_round(w) == 0);
	CHECK(hwp_writer__close(w) == 0);
	struct hwp_reader *r = hwp_reader__open(path, NULL);
	CHECK(r != NULL);
	if (r) {
		const struct hwp_header_info *h = hwp_reader__header(r);
		CHECK(hwp_header_info__has(h, HWP_FEAT_BRANCH_STACK));
		CHECK(hwp_header_info__has(h, HWP_FEAT_HOSTNAME) && strcmp(h->hostname, "h") == 0);
		hwp_reader__delete(r);
	}
	unlink(path);
}

int main(void)
{
	/* before libpfm4 is first initialized (it reads this once) */
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	RUN(test_default_event_by_host);
	RUN(test_modifiers);
	RUN(test_event_names);
	RUN(test_branch_filters);
	RUN(test_freq_period);
	RUN(test_inherit_time_callchains);
	RUN(test_format_perf);
	RUN(test_kernel_layout);
	RUN(test_writer_branch_stack_feature);
	TL_EXIT();
}
