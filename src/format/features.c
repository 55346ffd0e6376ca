/* SPDX-License-Identifier: MIT */
/* Header feature sections (file mode) and HEADER_FEATURE records (pipe mode). */
#include <errno.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "format/reader_internal.h"
#include "util/bytes.h"
#include "util/error.h"

struct fcur {
	const uint8_t *p, *end;
	const char *why;   /* first problem found, for the message */
	const uint8_t *at; /* where */
};

static bool f_bad(struct fcur *c, const uint8_t *at, const char *why)
{
	if (!c->why) {
		c->why = why;
		c->at = at;
	}
	return false;
}

static bool f_u32(struct fcur *c, uint32_t *v)
{
	if (c->end - c->p < 4)
		return f_bad(c, c->p, "a 4-byte field is cut off by the end of the section");
	*v = ld32(c->p);
	c->p += 4;
	return true;
}

static bool f_u64(struct fcur *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return f_bad(c, c->p, "an 8-byte field is cut off by the end of the section");
	*v = ld64(c->p);
	c->p += 8;
	return true;
}

/* perf_header_string: u32 len (padded length incl. NUL), then the bytes. */
static bool f_str(struct hwp_reader *r, struct fcur *c, const char **out)
{
	uint32_t len;

	if (!f_u32(c, &len))
		return false;
	if ((uint64_t)(c->end - c->p) < len)
		return f_bad(c, c->p - 4, "a string's length runs past the end of the section");
	*out = hwp__arena_strndup(&r->arena, c->p, len);
	c->p += len;
	return *out != NULL;
}

static bool f_strlist(struct hwp_reader *r, struct fcur *c, size_t *nr, const char ***out)
{
	uint32_t n;

	if (!f_u32(c, &n))
		return false;
	if (n > (uint64_t)(c->end - c->p) / 4)
		return f_bad(c, c->p - 4, "a string count is larger than the section can hold");
	const char **v = hwp__arena_alloc(&r->arena, (n ? n : 1) * sizeof(*v));
	if (!v)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!f_str(r, c, &v[i]))
			return false;
	*nr = n;
	*out = v;
	return true;
}

static bool parse_build_ids(struct hwp_reader *r, struct fcur *c)
{
	const uint8_t *p;
	size_t n = 0;

	/* Count first, then fill: records are {header, pid, id[24], filename}. */
	for (p = c->p; c->end - p >= 8;) {
		uint16_t sz = ld16(p + 6);
		if (sz < 8 || sz > c->end - p)
			return f_bad(c, p, "a build-id record's size runs past the end of the section");
		p += sz;
		n++;
	}
	struct hwp_build_id *v = hwp__arena_alloc(&r->arena, (n ? n : 1) * sizeof(*v));
	if (!v)
		return false;
	size_t i = 0;
	for (p = c->p; i < n; i++) {
		uint16_t sz = ld16(p + 6), misc = ld16(p + 4);
		if (sz < 36)
			return f_bad(c, p, "a build-id record is smaller than its 36-byte header");
		v[i].misc = misc;
		v[i].pid = (int32_t)ld32(p + 8);
		memcpy(v[i].id, p + 12, 20);
		/* Newer perf stores the id's length beside it (BUILD_ID_SIZE misc bit). */
		v[i].size = (misc & HWP_MISC_BUILD_ID_SIZE) && p[32] <= 20 ? p[32] : 20;
		v[i].filename = hwp__arena_strndup(&r->arena, p + 36, sz - 36);
		if (!v[i].filename)
			return false;
		p += sz;
	}
	r->hdr.build_ids = v;
	r->hdr.nr_build_ids = n;
	return true;
}

static bool parse_event_desc(struct hwp_reader *r, struct fcur *c)
{
	uint32_t nr, attr_size;

	if (!f_u32(c, &nr) || !f_u32(c, &attr_size))
		return false;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids;
		const char *name;

		if ((uint64_t)(c->end - c->p) < attr_size)
			return f_bad(c, c->p, "an event's attr size runs past the end of the section");
		c->p += attr_size;
		if (!f_u32(c, &nr_ids) || !f_str(r, c, &name))
			return false;
		if (nr_ids > (uint64_t)(c->end - c->p) / 8)
			return f_bad(c, c->p, "an event's id count is larger than the section can hold");
		/* Match by sample id when there is one (pipe mode may order events
		   differently), else by position. */
		struct hwp_evsel *e = nr_ids ? hwp__reader_evsel_by_id(r, ld64(c->p)) : NULL;
		if (e)
			e->name = name;
		else if (i < r->nr_evsels && !nr_ids)
			hwp__reader_set_evsel_name(r, i, name);
		c->p += (uint64_t)nr_ids * 8;
	}
	return true;
}

static bool parse_pmu_mappings(struct hwp_reader *r, struct fcur *c)
{
	uint32_t nr;

	if (!f_u32(c, &nr))
		return false;
	if (nr > (uint64_t)(c->end - c->p) / 8)
		return f_bad(c, c->p - 4, "the mapping count is larger than the section can hold");
	struct hwp_pmu_mapping *v = hwp__arena_alloc(&r->arena, (nr ? nr : 1) * sizeof(*v));
	if (!v)
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!f_u32(c, &v[i].type) || !f_str(r, c, &v[i].name))
			return false;
	r->hdr.pmu_mappings = v;
	r->hdr.nr_pmu_mappings = nr;
	return true;
}

/* caps are (name, value) string pairs, kept as "name=value". */
static bool parse_caps(struct hwp_reader *r, struct fcur *c, struct hwp_pmu_caps *pc)
{
	uint32_t nr;

	if (!f_u32(c, &nr))
		return false;
	if (nr > (uint64_t)(c->end - c->p) / 8)
		return f_bad(c, c->p - 4, "the capability count is larger than the section can hold");
	pc->caps = hwp__arena_alloc(&r->arena, (nr ? nr : 1) * sizeof(*pc->caps));
	if (!pc->caps)
		return false;
	for (uint32_t i = 0; i < nr; i++) {
		const char *name, *value;
		if (!f_str(r, c, &name) || !f_str(r, c, &value))
			return false;
		size_t ln = strlen(name), lv = strlen(value);
		char *kv = hwp__arena_alloc(&r->arena, ln + lv + 2);
		if (!kv)
			return false;
		memcpy(kv, name, ln);
		kv[ln] = '=';
		memcpy(kv + ln + 1, value, lv);
		pc->caps[i] = kv;
	}
	pc->nr_caps = nr;
	return true;
}

static bool add_pmu_caps(struct hwp_reader *r, const struct hwp_pmu_caps *pc)
{
	/* Grow by doubling: a PMU_CAPS section lists up to len/8 PMUs, and
	   copying the array for each one would take quadratic arena memory. */
	if (r->hdr.nr_pmu_caps == r->cap_pmu_caps) {
		size_t ncap = r->cap_pmu_caps ? r->cap_pmu_caps * 2 : 4;
		struct hwp_pmu_caps *v = hwp__arena_alloc(&r->arena, ncap * sizeof(*v));

		if (!v)
			return false;
		if (r->hdr.nr_pmu_caps)
			memcpy(v, r->hdr.pmu_caps, r->hdr.nr_pmu_caps * sizeof(*v));
		r->hdr.pmu_caps = v;
		r->cap_pmu_caps = ncap;
	}
	r->hdr.pmu_caps[r->hdr.nr_pmu_caps++] = *pc;
	return true;
}

int hwp__parse_feature(struct hwp_reader *r, unsigned feat, const uint8_t *p, uint64_t len,
		       uint64_t file_off)
{
	struct fcur c = { p, p + len, NULL, NULL };
	struct hwp_header_info *h = &r->hdr;
	bool ok = true;

	if (feat >= HWP_FEAT_BITS)
		return 0;
	h->features[feat / 64] |= 1ULL << (feat % 64);
	switch (feat) {
	case HWP_FEAT_BUILD_ID:
		ok = parse_build_ids(r, &c);
		break;
	case HWP_FEAT_HOSTNAME:
		ok = f_str(r, &c, &h->hostname);
		break;
	case HWP_FEAT_OSRELEASE:
		ok = f_str(r, &c, &h->osrelease);
		break;
	case HWP_FEAT_VERSION:
		ok = f_str(r, &c, &h->version);
		break;
	case HWP_FEAT_ARCH:
		ok = f_str(r, &c, &h->arch);
		break;
	case HWP_FEAT_CPUDESC:
		ok = f_str(r, &c, &h->cpudesc);
		break;
	case HWP_FEAT_CPUID:
		ok = f_str(r, &c, &h->cpuid);
		break;
	case HWP_FEAT_NRCPUS:
		ok = f_u32(&c, &h->nr_cpus_avail) && f_u32(&c, &h->nr_cpus_online);
		break;
	case HWP_FEAT_TOTAL_MEM:
		ok = f_u64(&c, &h->total_mem_kb);
		break;
	case HWP_FEAT_CMDLINE:
		ok = f_strlist(r, &c, &h->nr_cmdline, &h->cmdline);
		break;
	case HWP_FEAT_EVENT_DESC:
		ok = parse_event_desc(r, &c);
		break;
	case HWP_FEAT_PMU_MAPPINGS:
		ok = parse_pmu_mappings(r, &c);
		break;
	case HWP_FEAT_CPU_PMU_CAPS: {
		struct hwp_pmu_caps pc = { .pmu_name = "cpu" };
		ok = parse_caps(r, &c, &pc) && add_pmu_caps(r, &pc);
		break;
	}
	case HWP_FEAT_PMU_CAPS: {
		uint32_t nr;
		ok = f_u32(&c, &nr) &&
		     (nr <= len / 8 || f_bad(&c, p, "the PMU count is larger than the section can hold"));
		for (uint32_t i = 0; ok && i < nr; i++) {
			struct hwp_pmu_caps pc = { 0 };
			ok = parse_caps(r, &c, &pc) && f_str(r, &c, &pc.pmu_name) && add_pmu_caps(r, &pc);
		}
		break;
	}
	case HWP_FEAT_COMPRESSED:
		h->has_compressed = true;
		ok = f_u32(&c, &h->comp_version) && f_u32(&c, &h->comp_type) &&
		     f_u32(&c, &h->comp_level) && f_u32(&c, &h->comp_ratio) &&
		     f_u32(&c, &h->comp_mmap_len);
		break;
	case HWP_FEAT_SAMPLE_TIME:
		ok = f_u64(&c, &h->sample_time_start) && f_u64(&c, &h->sample_time_end);
		break;
	case HWP__FEAT_SIMPLEPERF_FILE2:
		h->nr_unknown_features++; /* to perf it is one */
		return hwp__parse_simpleperf_files(r, p, len, file_off);
	default:
		if (feat >= HWP_FEAT_LAST_KNOWN)
			h->nr_unknown_features++;
		break;
	}
	if (!ok && c.why)
		return hwp__set_error(EINVAL, "%s: feature %s at offset 0x%llx is malformed: %s (at offset 0x%llx, section of %llu bytes)",
				      r->name, hwp_feature__name(feat), (unsigned long long)file_off, c.why,
				      (unsigned long long)(file_off + (uint64_t)(c.at - p)),
				      (unsigned long long)len);
	if (!ok) /* every other failure is an allocation */
		return hwp__set_error(ENOMEM, "%s: out of memory reading feature %s at offset 0x%llx",
				      r->name, hwp_feature__name(feat), (unsigned long long)file_off);
	return 0;
}
