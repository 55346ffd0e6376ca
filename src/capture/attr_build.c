/* SPDX-License-Identifier: MIT */
/*
 * perf_event_attr construction, following perf record 6.1 step by step:
 * parse_events() and its modifiers (util/parse-events.c), evsel__new_cycles()
 * for the default event, record_opts__config_freq() (util/record.c),
 * parse_branch_stack() (util/parse-branch-options.c) and evsel__config()
 * with evsel__config_callchain() (util/evsel.c). The attr is the one perf
 * opens first; the fallbacks perf takes after a failed open (lower
 * precise_ip, cycles -> cpu-clock, :u) are the recorder's business.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif

#include "capture/attr_build.h"
#include "capture/probe.h"
#include "format/perf_data_internal.h"
#include "hwprof/attr_names.h"
#include "hwprof/hwprof.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/opts.h"

#define PERF_TYPE_HARDWARE 0
#define PERF_TYPE_SOFTWARE 1
#define PERF_TYPE_RAW 4

/* ------------------------------------------------------------ host */

int hwp_capture_host__detect(const char *procfs_root, struct hwp_capture_host *h)
{
	struct hwp_probe_info *pi;
	const struct hwp_probe_perms *perms;
	const struct hwp_probe_cpu *cpu;

	if (!h)
		return hwp__set_error(EINVAL, "hwp_capture_host__detect: no host");
	memset(h, 0, sizeof(*h));
	pi = hwp_probe_info__new();
	if (!pi)
		return -ENOMEM;
	hwp__probe_perms(procfs_root ? procfs_root : "/proc", pi);
	hwp__probe_cpu(procfs_root ? procfs_root : "/proc", !procfs_root, pi);
	perms = hwp_probe_info__perms(pi);
	cpu = hwp_probe_info__cpu(pi);
	/* perf_event_can_profile_kernel() = perf_event_paranoid_check(1) */
	h->can_profile_kernel = perms->privileged ||
				(perms->paranoid != HWP_PROBE_UNKNOWN && perms->paranoid <= 1);
	h->amd = cpu->vendor == HWP_CPU_AMD;
	h->max_sample_rate = perms->max_sample_rate > 0 ? (unsigned)perms->max_sample_rate : 0;
	h->paranoid = perms->paranoid;
	snprintf(h->arch, sizeof(h->arch), "%s", cpu->arch);
	hwp_probe_info__delete(pi);
	return 0;
}

/* ------------------------------------------------------------ events */

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} generic[] = {
	/* perf's event_symbols_hw / event_symbols_sw, with their aliases */
	{ "cpu-cycles", PERF_TYPE_HARDWARE, 0 },
	{ "cycles", PERF_TYPE_HARDWARE, 0 },
	{ "instructions", PERF_TYPE_HARDWARE, 1 },
	{ "cache-references", PERF_TYPE_HARDWARE, 2 },
	{ "cache-misses", PERF_TYPE_HARDWARE, 3 },
	{ "branch-instructions", PERF_TYPE_HARDWARE, 4 },
	{ "branches", PERF_TYPE_HARDWARE, 4 },
	{ "branch-misses", PERF_TYPE_HARDWARE, 5 },
	{ "bus-cycles", PERF_TYPE_HARDWARE, 6 },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, 7 },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, 7 },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, 8 },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, 8 },
	{ "ref-cycles", PERF_TYPE_HARDWARE, 9 },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, 0 },
	{ "task-clock", PERF_TYPE_SOFTWARE, 1 },
	{ "page-faults", PERF_TYPE_SOFTWARE, 2 },
	{ "faults", PERF_TYPE_SOFTWARE, 2 },
	{ "context-switches", PERF_TYPE_SOFTWARE, 3 },
	{ "cs", PERF_TYPE_SOFTWARE, 3 },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, 4 },
	{ "migrations", PERF_TYPE_SOFTWARE, 4 },
	{ "minor-faults", PERF_TYPE_SOFTWARE, 5 },
	{ "major-faults", PERF_TYPE_SOFTWARE, 6 },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, 7 },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, 8 },
	{ "dummy", PERF_TYPE_SOFTWARE, 9 },
	{ "bpf-output", PERF_TYPE_SOFTWARE, 10 },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, 11 },
};

static bool lookup_generic(const char *name, struct hwp_event_desc *ev)
{
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(name, generic[i].name)) {
			ev->type = generic[i].type;
			ev->config = generic[i].config;
			return true;
		}
	/* rNNNN: raw PMU code, hex */
	if (name[0] == 'r' && name[1] && strlen(name) <= 17) {
		const char *p = name + 1;

		while (isxdigit((unsigned char)*p))
			p++;
		if (!*p) {
			ev->type = PERF_TYPE_RAW;
			ev->config = strtoull(name + 1, NULL, 16);
			return true;
		}
	}
	return false;
}

static bool is_modifier_string(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("ukhGHIpP", *s))
			return false;
	return true;
}

/* perf 6.1 get_event_modifier() with a NULL evsel: every value starts at 0. */
static int apply_modifiers(const char *mods, struct hwp_event_desc *ev)
{
	int eu = 0, ek = 0, eh = 0, eH = 0, eG = 0, eI = 0, precise = 0, precise_max = 0;
	int exclude = 0, exclude_GH = 0;

	for (const char *s = mods; *s; s++) {
		switch (*s) {
		case 'u':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			if (!exclude_GH) /* && !perf_guest */
				eG = 1;
			eu = 0;
			break;
		case 'k':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			ek = 0;
			break;
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			eh = 0;
			break;
		case 'G':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			eG = 0;
			break;
		case 'H':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			eH = 0;
			break;
		case 'I':
			eI = 1;
			break;
		case 'p':
			precise++;
			/* use of precise requires exclude_guest */
			if (!exclude_GH)
				eG = 1;
			break;
		case 'P':
			precise_max = 1;
			break;
		default:
			return hwp__set_error(EINVAL, "event '%s': unknown modifier '%c' (u k h G H I p "
					      "pp ppp P)", ev->name, *s);
		}
	}
	if (precise > 3)
		return hwp__set_error(EINVAL, "event '%s': at most 3 p modifiers (:ppp)", ev->name);
	ev->exclude_user = eu;
	ev->exclude_kernel = ek;
	ev->exclude_hv = eh;
	ev->exclude_host = eH;
	ev->exclude_guest = eG;
	ev->exclude_idle = eI;
	ev->precise = (unsigned)precise;
	ev->precise_max = precise_max;
	return 0;
}

#ifdef HAVE_LIBPFM
static int pfm_state; /* 0 not tried, 1 ok, <0 pfm error */

static int pfm_encode(const char *name, struct hwp_event_desc *ev)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int r;

	if (!pfm_state)
		pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	if (pfm_state < 0)
		return hwp__set_error(ENOENT, "unknown event '%s': not a generic event or rNNNN raw "
				      "code, and libpfm4 knows no PMU model for this CPU", name);
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	/* All privilege levels by default: exclusions come from the modifiers
	   (perf's or libpfm's own u=/k=/h= attributes). */
	r = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3 | PFM_PLMH, PFM_OS_PERF_EVENT, &arg);
	if (r != PFM_SUCCESS) {
		free(fstr);
		if (r == PFM_ERR_NOTFOUND)
			return hwp__set_error(ENOENT, "unknown event '%s' (not a generic event, rNNNN "
					      "raw code, or libpfm4 event of this CPU's PMU)", name);
		return hwp__set_error(EINVAL, "event '%s': libpfm4: %s", name, pfm_strerror(r));
	}
	ev->type = a.type;
	ev->config = a.config;
	ev->config1 = a.config1;
	ev->config2 = a.config2;
	ev->exclude_user |= a.exclude_user;
	ev->exclude_kernel |= a.exclude_kernel;
	ev->exclude_hv |= a.exclude_hv;
	ev->from_pfm = true;
	snprintf(ev->pfm_fstr, sizeof(ev->pfm_fstr), "%s", fstr ? fstr : name);
	free(fstr);
	return 0;
}
#endif

int hwp_event__parse(const char *str, const struct hwp_capture_host *h, struct hwp_event_desc *ev)
{
	char name[sizeof(ev->name)];
	const char *mods = NULL;
	char *colon;
	int rc;

	if (!ev || !h)
		return hwp__set_error(EINVAL, "hwp_event__parse: invalid argument");
	memset(ev, 0, sizeof(*ev));
	if (!str || !*str) {
		/* evsel__new_cycles(): exclude_kernel when the kernel cannot be
		   profiled, event_attr_init()'s exclude_guest except on AMD, and
		   precise_max. */
		ev->is_default = true;
		ev->type = PERF_TYPE_HARDWARE;
		ev->config = 0;
		ev->exclude_kernel = !h->can_profile_kernel;
		ev->exclude_guest = !h->amd;
		ev->precise_max = true;
		snprintf(ev->name, sizeof(ev->name), "%s", ev->exclude_kernel ? "cycles:u" : "cycles");
		return 0;
	}
	if (strlen(str) >= sizeof(name))
		return hwp__set_error(EINVAL, "event name too long: '%.40s...'", str);
	if (strchr(str, ','))
		return hwp__set_error(EINVAL, "'%s': one event at a time (no event lists or groups)", str);
	snprintf(ev->name, sizeof(ev->name), "%s", str);
	snprintf(name, sizeof(name), "%s", str);
	colon = strrchr(name, ':');
	if (colon && is_modifier_string(colon + 1)) {
		*colon = 0;
		mods = colon + 1;
	} else if (colon && !strchr(name, '=')) {
		/* "cycles:x": a generic event with a bad modifier */
		char base[sizeof(name)];
		struct hwp_event_desc tmp = { .type = 0 };

		snprintf(base, sizeof(base), "%.*s", (int)(colon - name), name);
		if (lookup_generic(base, &tmp))
			return hwp__set_error(EINVAL, "event '%s': bad modifier ':%s' (u k h G H I p pp "
					      "ppp P)", str, colon + 1);
	}
	/* No modifier: event_attr_init() sets exclude_guest (perf_guest is
	   false); modifiers start from zero and set their own. */
	if (mods) {
		if ((rc = apply_modifiers(mods, ev)) < 0)
			return rc;
	} else {
		ev->exclude_guest = true;
	}
	if (!*name)
		return hwp__set_error(EINVAL, "event '%s': no event name before the modifiers", str);
	if (lookup_generic(name, ev))
		return 0;
#ifdef HAVE_LIBPFM
	return pfm_encode(name, ev);
#else
	return hwp__set_error(EOPNOTSUPP, "unknown event '%s': not a generic event or rNNNN raw "
			      "code, and hwprof was built without libpfm4 for named PMU events "
			      "(install libpfm4-dev and rebuild)", name);
#endif
}

/* ------------------------------------------------------------ -j filters */

static const struct {
	const char *name;
	uint64_t bit;
	bool ext; /* hwprof's (the kernel's names), not perf 6.1's */
} branch_modes[] = {
	{ "u", HWP_BRANCH_USER, false },
	{ "k", HWP_BRANCH_KERNEL, false },
	{ "hv", HWP_BRANCH_HV, false },
	{ "any", HWP_BRANCH_ANY, false },
	{ "any_call", HWP_BRANCH_ANY_CALL, false },
	{ "any_ret", HWP_BRANCH_ANY_RETURN, false },
	{ "ind_call", HWP_BRANCH_IND_CALL, false },
	{ "abort_tx", HWP_BRANCH_ABORT_TX, false },
	{ "in_tx", HWP_BRANCH_IN_TX, false },
	{ "no_tx", HWP_BRANCH_NO_TX, false },
	{ "cond", HWP_BRANCH_COND, false },
	{ "ind_jmp", HWP_BRANCH_IND_JUMP, false },
	{ "call", HWP_BRANCH_CALL, false },
	{ "save_type", HWP_BRANCH_TYPE_SAVE, false },
	{ "stack", HWP_BRANCH_CALL_STACK, false },
	{ "priv", HWP_BRANCH_PRIV_SAVE, false },
	{ "call_stack", HWP_BRANCH_CALL_STACK, true },
	{ "no_flags", HWP_BRANCH_NO_FLAGS, true },
	{ "no_cycles", HWP_BRANCH_NO_CYCLES, true },
	{ "hw_index", HWP_BRANCH_HW_INDEX, true },
	{ "counter", HWP_BRANCH_COUNTERS, true },
};

#define ONLY_PLM (HWP_BRANCH_USER | HWP_BRANCH_KERNEL | HWP_BRANCH_HV)
/* hwprof's extensions that shape entries rather than select branches */
#define EXT_FLAGS (HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES | HWP_BRANCH_HW_INDEX | \
		   HWP_BRANCH_COUNTERS)

/* The bit of one name, or 0 when it is not a filter name. */
static uint64_t branch_mode_bit(const char *name)
{
	for (size_t i = 0; i < sizeof(branch_modes) / sizeof(branch_modes[0]); i++)
		if (!strcasecmp(name, branch_modes[i].name))
			return branch_modes[i].bit;
	return 0;
}

int hwp_branch_filter__parse_levels(const char *s, uint64_t *mask, uint64_t *levels)
{
	uint64_t m = 0;

	if (!s || !mask)
		return hwp__set_error(EINVAL, "hwp_branch_filter__parse: invalid argument");
	/* perf 6.1's parse_branch_str(): split at every comma, so an empty name
	   ("", "any,,u", "any,") is an unknown filter, not skipped */
	for (const char *tok = s;;) {
		const char *comma = strchr(tok, ',');
		size_t len = comma ? (size_t)(comma - tok) : strlen(tok);
		char name[32];
		uint64_t bit = 0;

		if (len < sizeof(name)) {
			memcpy(name, tok, len);
			name[len] = 0;
			bit = branch_mode_bit(name);
		}
		if (!bit)
			return hwp__set_error(EINVAL, "unknown branch filter '%.*s'%s (u, k, hv, any, "
					      "any_call, any_ret, ind_call, ind_jmp, call, cond, "
					      "abort_tx, in_tx, no_tx, save_type, stack/call_stack, priv, "
					      "no_flags, no_cycles, hw_index, counter)",
					      (int)(len > 64 ? 64 : len), tok,
					      len ? "" : " (an empty name)");
		m |= bit;
		if (!comma)
			break;
		tok = comma + 1;
	}
	if (levels)
		*levels = m & ONLY_PLM;
	/* perf: "default to any branch" when only privilege levels are given,
	   and the levels themselves are then dropped (the event's exclude_*
	   bits decide); the entry-shaping extensions select no branch, so they
	   do not count as a branch type, and are kept. */
	if ((m & ~(ONLY_PLM | EXT_FLAGS)) == 0)
		m = HWP_BRANCH_ANY | (m & EXT_FLAGS);
	*mask = m;
	return 0;
}

int hwp_branch_filter__parse(const char *s, uint64_t *mask)
{
	return hwp_branch_filter__parse_levels(s, mask, NULL);
}

/* ------------------------------------------------------------ attr */

static void warn(struct hwp_attr_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(struct hwp_attr_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr_warnings >= sizeof(r->warnings) / sizeof(r->warnings[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->warnings[r->nr_warnings++], sizeof(r->warnings[0]), fmt, ap);
	va_end(ap);
}

static void set_flag(struct hwp_attr *a, unsigned f, bool on)
{
	hwp__attr_set_flag(a, f, on);
}

/* record_opts__config_freq(): *FREQP, or 0 and the period in *INTERVAL. */
static int config_freq(const struct hwp_attr_opts *o, const struct hwp_capture_host *h,
		       struct hwp_attr_result *out, uint64_t *freqp, uint64_t *interval)
{
	uint64_t freq = HWP_PERF_DEFAULT_FREQ;

	*interval = 0;
	if (o->period && (o->freq || o->freq_max))
		return hwp__set_error(EINVAL, "cannot set both a sampling frequency and a sampling period");
	if (o->freq_max) {
		if (!h->max_sample_rate)
			return hwp__set_error(EINVAL, "maximum sampling frequency: kernel.perf_event_max_sample_rate unreadable");
		freq = h->max_sample_rate;
	} else if (o->freq) {
		freq = o->freq;
		if (h->max_sample_rate && freq > h->max_sample_rate) {
			warn(out, "Maximum frequency rate (%u Hz) exceeded, throttling from %" PRIu64
			     " Hz to %u Hz", h->max_sample_rate, freq, h->max_sample_rate);
			freq = h->max_sample_rate;
		}
	}
	if (o->period) {
		*interval = o->period;
		freq = 0;
	} else if (!o->freq && h->max_sample_rate && freq > h->max_sample_rate) {
		warn(out, "Lowering default frequency rate from %" PRIu64 " to %u", freq,
		     h->max_sample_rate);
		freq = h->max_sample_rate;
	}
	*freqp = freq;
	return 0;
}

/* the event: parse_events() / evsel__new_cycles() */
static void config_event(struct hwp_attr *a, const struct hwp_event_desc *ev)
{
	a->type = ev->type;
	a->size = HWP_ATTR_SIZE_VER7; /* perf 6.1's sizeof(struct perf_event_attr) */
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	set_flag(a, HWP_ATTR_EXCLUDE_USER, ev->exclude_user);
	set_flag(a, HWP_ATTR_EXCLUDE_KERNEL, ev->exclude_kernel);
	set_flag(a, HWP_ATTR_EXCLUDE_HV, ev->exclude_hv);
	set_flag(a, HWP_ATTR_EXCLUDE_IDLE, ev->exclude_idle);
	set_flag(a, HWP_ATTR_EXCLUDE_HOST, ev->exclude_host);
	set_flag(a, HWP_ATTR_EXCLUDE_GUEST, ev->exclude_guest);
	hwp__attr_set_precise(a, ev->precise);
}

/* evsel__config_callchain() */
static void config_callchain(const struct hwp_attr_opts *o, const struct hwp_capture_host *h,
			     struct hwp_attr_result *out)
{
	struct hwp_attr *a = &out->attr;

	if (o->callgraph == HWP_CALLGRAPH_NONE)
		return;
	a->sample_type |= HWP_SAMPLE_CALLCHAIN;
	if (o->callgraph == HWP_CALLGRAPH_LBR) {
		if (o->branch_sample_type)
			warn(out, "Cannot use LBR callstack with branch stack. Falling back to "
			     "framepointers.");
		else if (out->event.exclude_user)
			warn(out, "LBR callstack option is only available to get user callchain "
			     "information. Falling back to framepointers.");
		else {
			a->sample_type |= HWP_SAMPLE_BRANCH_STACK;
			a->branch_sample_type = HWP_BRANCH_USER | HWP_BRANCH_CALL_STACK |
						HWP_BRANCH_NO_CYCLES | HWP_BRANCH_NO_FLAGS |
						HWP_BRANCH_HW_INDEX;
		}
	} else if (o->callgraph == HWP_CALLGRAPH_DWARF) {
		a->sample_type |= HWP_SAMPLE_REGS_USER | HWP_SAMPLE_STACK_USER;
		a->sample_regs_user = strcmp(h->arch, "aarch64") ? HWP_PERF_REGS_MASK_X86_64
								 : HWP_PERF_REGS_MASK_ARM64;
		a->sample_stack_user = o->dwarf_stack_size ? o->dwarf_stack_size
							   : HWP_PERF_DEFAULT_DWARF_DUMP;
		set_flag(a, HWP_ATTR_EXCLUDE_CALLCHAIN_USER, true);
	}
}

/* the tracking event (the only one here), for a forked workload: enabled at exec */
static void config_tracking(struct hwp_attr *a, bool track)
{
	set_flag(a, HWP_ATTR_MMAP, track);
	set_flag(a, HWP_ATTR_MMAP2, track);
	set_flag(a, HWP_ATTR_COMM, track);
	set_flag(a, HWP_ATTR_COMM_EXEC, track);
	set_flag(a, HWP_ATTR_KSYMBOL, track);
	set_flag(a, HWP_ATTR_BPF_EVENT, track);
	set_flag(a, HWP_ATTR_TASK, track);
	set_flag(a, HWP_ATTR_DISABLED, true);
	set_flag(a, HWP_ATTR_ENABLE_ON_EXEC, true);
}

/* evlist__config() and evsel__config() for the one event, sampling at FREQ or every INTERVAL. */
static void config_evsel(const struct hwp_attr_opts *o, const struct hwp_capture_host *h,
			 struct hwp_attr_result *out, uint64_t freq, uint64_t interval)
{
	struct hwp_attr *a = &out->attr;
	bool no_inherit, per_cpu, sample_address, track = true;

	/* evlist__config(): a dummy CPU map (--per-thread) forces no_inherit */
	no_inherit = o->no_inherit || o->per_thread;
	per_cpu = !o->per_thread;
	sample_address = o->data_addr || o->callgraph == HWP_CALLGRAPH_DWARF;

	/* evsel__config() */
	set_flag(a, HWP_ATTR_SAMPLE_ID_ALL, true);
	set_flag(a, HWP_ATTR_INHERIT, !no_inherit);
	a->read_format = HWP_FORMAT_ID | HWP_FORMAT_LOST;
	a->sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID;
	if (freq) {
		set_flag(a, HWP_ATTR_FREQ, true);
		a->sample_period = freq;
		a->sample_type |= HWP_SAMPLE_PERIOD;
	} else {
		a->sample_period = interval;
	}
	if (sample_address) {
		a->sample_type |= HWP_SAMPLE_ADDR | HWP_SAMPLE_DATA_SRC;
		set_flag(a, HWP_ATTR_MMAP_DATA, track);
	}
	if (o->phys_data)
		a->sample_type |= HWP_SAMPLE_PHYS_ADDR;
	if (o->data_page_size)
		a->sample_type |= HWP_SAMPLE_DATA_PAGE_SIZE;
	if (o->weight)
		a->sample_type |= strcmp(h->arch, "x86_64") ? HWP_SAMPLE_WEIGHT : HWP_SAMPLE_WEIGHT_STRUCT;
	config_callchain(o, h, out);
	/* TIME, unless no inherit without per-CPU buffers */
	if (!no_inherit || per_cpu)
		a->sample_type |= HWP_SAMPLE_TIME;
	if (o->branch_sample_type) {
		a->sample_type |= HWP_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_sample_type;
	}
	config_tracking(a, track);
	if (out->event.precise_max)
		hwp__attr_set_precise(a, 3);
}

static int attr_build(const struct hwp_attr_opts *opts, const struct hwp_capture_host *h,
		      struct hwp_attr_result *out)
{
	struct hwp_attr_opts o;
	uint64_t freq = 0, interval = 0;
	int rc;

	if ((rc = HWP_OPTS_LOAD(opts, &o, struct hwp_attr_opts)) < 0)
		return rc;
	if ((rc = hwp_event__parse(o.event, h, &out->event)) < 0)
		return rc;
	if ((rc = config_freq(&o, h, out, &freq, &interval)) < 0)
		return rc;
	if (o.callgraph == HWP_CALLGRAPH_DWARF && strcmp(h->arch, "x86_64") &&
	    strcmp(h->arch, "aarch64"))
		return hwp__set_error(EOPNOTSUPP, "DWARF call graphs: registers of arch '%s' unknown "
				      "to hwprof (x86_64, aarch64)", h->arch);
	config_event(&out->attr, &out->event);
	config_evsel(&o, h, out, freq, interval);
	return 0;
}

int hwp_attr__build(const struct hwp_attr_opts *opts, const struct hwp_capture_host *h,
		    struct hwp_attr_result *out)
{
	struct hwp_attr_result res;
	int rc;

	if (!opts || !h)
		return hwp__set_error(EINVAL, "hwp_attr__build: invalid argument");
	if ((rc = HWP_RESULT_BEGIN(out, &res, struct hwp_attr_result)) < 0)
		return rc;
	memset(&res, 0, sizeof(res));
	rc = attr_build(opts, h, &res);
	hwp__result_end(out, &res, sizeof(res));
	return rc;
}

/* ------------------------------------------------------------ printing */

static const struct {
	uint64_t bit;
	const char *name;
} perf_sample_names[] = {
	/* perf's __p_sample_type() order (it lists IDENTIFIER before REGS_INTR,
	   DATA_SRC, WEIGHT, and has no TRANSACTION) */
	{ HWP_SAMPLE_IP, "IP" }, { HWP_SAMPLE_TID, "TID" }, { HWP_SAMPLE_TIME, "TIME" },
	{ HWP_SAMPLE_ADDR, "ADDR" }, { HWP_SAMPLE_READ, "READ" },
	{ HWP_SAMPLE_CALLCHAIN, "CALLCHAIN" }, { HWP_SAMPLE_ID, "ID" }, { HWP_SAMPLE_CPU, "CPU" },
	{ HWP_SAMPLE_PERIOD, "PERIOD" }, { HWP_SAMPLE_STREAM_ID, "STREAM_ID" },
	{ HWP_SAMPLE_RAW, "RAW" }, { HWP_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
	{ HWP_SAMPLE_REGS_USER, "REGS_USER" }, { HWP_SAMPLE_STACK_USER, "STACK_USER" },
	{ HWP_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { HWP_SAMPLE_REGS_INTR, "REGS_INTR" },
	{ HWP_SAMPLE_DATA_SRC, "DATA_SRC" }, { HWP_SAMPLE_WEIGHT, "WEIGHT" },
	{ HWP_SAMPLE_PHYS_ADDR, "PHYS_ADDR" }, { HWP_SAMPLE_AUX, "AUX" },
	{ HWP_SAMPLE_CGROUP, "CGROUP" }, { HWP_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	{ HWP_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" }, { HWP_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
};

struct sbuf {
	char *p;
	size_t len, n;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(b->n < b->len ? b->p + b->n : NULL, b->n < b->len ? b->len - b->n : 0, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->n += (size_t)r;
}

static void field(struct sbuf *b, const char *name, const char *val)
{
	sb_printf(b, "  %-32s %s\n", name, val);
}

static void field_u(struct sbuf *b, const char *name, uint64_t v)
{
	char val[32];

	if (!v)
		return;
	snprintf(val, sizeof(val), "%" PRIu64, v);
	field(b, name, val);
}

static void field_x(struct sbuf *b, const char *name, uint64_t v)
{
	char val[32];

	if (!v)
		return;
	snprintf(val, sizeof(val), "%#" PRIx64, v);
	field(b, name, val);
}

static void bits_by_name(char *out, size_t len, uint64_t v, const char *(*name)(unsigned))
{
	size_t n = 0;

	out[0] = 0;
	for (unsigned i = 0; i < 64 && n < len; i++)
		if ((v >> i) & 1 && name(i)) {
			int r = snprintf(out + n, len - n, "%s%s", n ? "|" : "", name(i));

			if (r > 0)
				n += (size_t)r;
		}
}

size_t hwp_attr__format_perf(const struct hwp_attr *a, char *buf, size_t len)
{
	static const char dashes[] = "------------------------------------------------------------";
	struct sbuf b = { buf, len, 0 };
	char v[512];

	if (len)
		buf[0] = 0;
	sb_printf(&b, "%s\nperf_event_attr:\n", dashes);
	field_u(&b, "type", a->type);
	field_u(&b, "size", a->size);
	field_x(&b, "config", a->config);
	field_u(&b, "{ sample_period, sample_freq }", a->sample_period);
	if (a->sample_type) {
		size_t n = 0;

		v[0] = 0;
		for (size_t i = 0; i < sizeof(perf_sample_names) / sizeof(perf_sample_names[0]); i++)
			if (a->sample_type & perf_sample_names[i].bit) {
				int r = snprintf(v + n, sizeof(v) - n, "%s%s", n ? "|" : "",
						 perf_sample_names[i].name);

				if (r > 0 && (size_t)r < sizeof(v) - n)
					n += (size_t)r;
			}
		field(&b, "sample_type", v);
	}
	if (a->read_format) {
		bits_by_name(v, sizeof(v), a->read_format, hwp_read_format__bit_name);
		field(&b, "read_format", v);
	}
	for (unsigned f = 0; f < HWP_ATTR_FLAG_COUNT; f++) {
		if (f == HWP_ATTR_PRECISE_IP + 1)
			continue;
		if (f == HWP_ATTR_PRECISE_IP) {
			field_u(&b, "precise_ip", hwp_attr__precise_ip(a));
			continue;
		}
		field_u(&b, hwp_attr_flag__name(f), (a->flags >> f) & 1);
	}
	field_u(&b, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	field_u(&b, "bp_type", a->bp_type);
	field_x(&b, "{ bp_addr, config1 }", a->config1);
	field_x(&b, "{ bp_len, config2 }", a->config2);
	if (a->branch_sample_type) {
		bits_by_name(v, sizeof(v), a->branch_sample_type, hwp_branch_sample_type__bit_name);
		field(&b, "branch_sample_type", v);
	}
	field_x(&b, "sample_regs_user", a->sample_regs_user);
	field_u(&b, "sample_stack_user", a->sample_stack_user);
	if (a->clockid) {
		snprintf(v, sizeof(v), "%" PRId32, a->clockid);
		field(&b, "clockid", v);
	}
	field_x(&b, "sample_regs_intr", a->sample_regs_intr);
	field_u(&b, "aux_watermark", a->aux_watermark);
	field_u(&b, "sample_max_stack", a->sample_max_stack);
	field_u(&b, "aux_sample_size", a->aux_sample_size);
	field_u(&b, "sig_data", a->sig_data);
	sb_printf(&b, "%s\n", dashes);
	return b.n;
}

/* ------------------------------------------------------------ kernel ABI */

void hwp__attr_to_kernel(const struct hwp_attr *a, uint8_t out[128])
{
	hwp__attr_encode(a, out, 128);
}
