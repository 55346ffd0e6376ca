/* SPDX-License-Identifier: MIT */
/*
 * AutoFDO and llvm-profgen unsymbolized text profiles from the collector's
 * range, address and branch tables: module file offsets become link-time
 * addresses through the binary's program headers, then relative to the
 * base each tool uses.
 */
#include <errno.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/branch_collect_internal.h"
#include "decode/insn_starts.h"
#include "hwprof/range_profile.h"
#include "hwprof/symbolize.h"
#include "session/session_internal.h"
#include "symbolize/build_id_lookup.h"
#include "util/error.h"
#include "util/vec.h"

struct item {
	uint64_t a, b, count;
};

struct items {
	struct item *v;
	size_t nr, cap;
};

static int by_addr(const void *x, const void *y)
{
	const struct item *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* Sorts and sums the counts of equal keys (branch rows split by flags,
   sources outside the module folded into one "external" address). */
static void sort_merge(struct items *it)
{
	size_t n = 0;

	if (!it->nr)
		return;
	qsort(it->v, it->nr, sizeof(*it->v), by_addr);
	for (size_t i = 1; i < it->nr; i++) {
		if (it->v[i].a == it->v[n].a && it->v[i].b == it->v[n].b)
			it->v[n].count += it->v[i].count;
		else
			it->v[++n] = it->v[i];
	}
	it->nr = n + 1;
}

static int push(struct items *it, uint64_t a, uint64_t b, uint64_t count)
{
	struct item *p = HWP_VEC_PUSH(it->v, it->nr, it->cap);

	if (!p)
		return hwp__set_error(ENOMEM, "out of memory writing a profile");
	*p = (struct item){ a, b, count };
	return 0;
}

struct ctx {
	struct hwp__code_file *file; /* NULL: not at hand, SHIFT makes addresses */
	uint64_t shift;
	int module;
	uint64_t base;
	enum hwp_range_format fmt;
	struct items ranges, addrs, branches;
};

/* OFF's (of the module) link-time address; false outside every segment.
   Rows keep these and are sorted by them, as llvm-profgen sorts (its
   "external" address 1 first); the base is subtracted when written. */
static bool rel(const struct ctx *x, uint64_t off, uint64_t *out)
{
	if (!x->file) {
		*out = off + x->shift;
		return true;
	}
	return hwp__code_file_offset_to_vaddr(x->file, off, out) == 0;
}

/*
 * Without the binary (simpleperf inject's way): addresses are file offsets,
 * or, where simpleperf recorded the binary's lowest executable address and
 * its offset, offset - that offset + that address. llvm-profgen's base, the
 * page of the first executable segment, is then the page of the lowest
 * offset the binary was mapped executable from (or of simpleperf's
 * address). Says which with one warning.
 */
static void assume_layout(struct ctx *x, struct hwp_branch_collector *c, const char *name, const char *why)
{
	struct hwp_session *s = hwp__branch_collector_session(c);
	const struct hwp_file_vaddr *fv = s ? hwp__session_file_vaddr(s, name) : NULL;
	uint64_t pgoff = 0;
	bool mapped = s && hwp__session_exec_pgoff(s, name, &pgoff);

	if (fv) {
		x->shift = fv->min_vaddr - (fv->has_file_offset ? fv->file_offset : 0);
		x->base = x->fmt == HWP_RANGE_FORMAT_PROFGEN ? fv->min_vaddr & ~(uint64_t)0xfff : 0;
		hwp__log(HWP_LOG_WARN, "%s: addresses in it are its file offsets %s 0x%" PRIx64
			 " (the lowest executable address 0x%" PRIx64 " at offset 0x%" PRIx64
			 " the recording names)%s", why, x->shift >> 63 ? "less" : "plus",
			 x->shift >> 63 ? -x->shift : x->shift, fv->min_vaddr, fv->min_vaddr - x->shift,
			 x->base ? ", less its page" : "");
		return;
	}
	x->shift = 0;
	x->base = x->fmt == HWP_RANGE_FORMAT_PROFGEN && mapped ? pgoff & ~(uint64_t)0xfff : 0;
	if (x->fmt == HWP_RANGE_FORMAT_PROFGEN)
		hwp__log(HWP_LOG_WARN, "%s: addresses in it are its file offsets less 0x%" PRIx64
			 ", the page of the lowest offset it was mapped executable from%s (llvm-profgen's when "
			 "that is its first executable segment)", why, x->base, mapped ? "" : " (none recorded)");
	else
		hwp__log(HWP_LOG_WARN, "%s: addresses in it are its file offsets (as simpleperf inject "
			 "writes them; the binary's own when its first segment is loaded at address 0 from offset 0)",
			 why);
}

static int gather(struct ctx *x, struct hwp_branch_collector *c)
{
	const struct hwp_branch_row *r;
	size_t n;
	uint64_t a, b;
	int err;

	if (x->fmt == HWP_RANGE_FORMAT_AUTOFDO_IPS) { /* the address section only */
		r = hwp_branch_table__rows(hwp__branch_collector_ip_samples(c), &n);
		for (size_t i = 0; i < n; i++)
			if (r[i].key.from.module == x->module && r[i].c.count && rel(x, r[i].key.from.offset, &a) &&
			    (err = push(&x->addrs, a, 0, r[i].c.count)))
				return err;
		sort_merge(&x->addrs);
		return 0;
	}
	r = hwp_branch_table__rows(hwp_branch_collector__ranges(c), &n);
	for (size_t i = 0; i < n; i++)
		if (r[i].key.from.module == x->module && rel(x, r[i].key.from.offset, &a) &&
		    rel(x, r[i].key.to.offset, &b) && (err = push(&x->ranges, a, b, r[i].c.count)))
			return err;
	if (x->fmt == HWP_RANGE_FORMAT_AUTOFDO) {
		r = hwp_branch_table__rows(hwp__branch_collector_addresses(c), &n);
		for (size_t i = 0; i < n; i++)
			if (r[i].key.from.module == x->module && rel(x, r[i].key.from.offset, &a) &&
			    (err = push(&x->addrs, a, 0, r[i].c.count)))
				return err;
	}
	r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);
	for (size_t i = 0; i < n; i++) {
		const struct hwp_branch_key *k = &r[i].key;

		if (k->to.module != x->module || !rel(x, k->to.offset, &b))
			continue;
		if (k->from.module == x->module && rel(x, k->from.offset, &a))
			; /* inside the module */
		else if (x->fmt == HWP_RANGE_FORMAT_PROFGEN)
			a = 1; /* llvm-profgen's ExternalAddr */
		else
			continue; /* AutoFDO keeps branches within the binary */
		if ((err = push(&x->branches, a, b, r[i].c.count)))
			return err;
	}
	sort_merge(&x->ranges);
	sort_merge(&x->addrs);
	sort_merge(&x->branches);
	return 0;
}

static void write_pairs(FILE *fp, const struct items *it, const char *sep, uint64_t base)
{
	fprintf(fp, "%zu\n", it->nr);
	for (size_t i = 0; i < it->nr; i++)
		fprintf(fp, "%" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n", it->v[i].a - base, sep, it->v[i].b - base,
			it->v[i].count);
}

int hwp_range_profile__write(struct hwp_branch_collector *c, int module, enum hwp_range_format f, FILE *fp)
{
	struct hwp_symbolizer *s = hwp__branch_collector_symbolizer(c);
	struct ctx x = { .module = module, .fmt = f };
	bool autofdo = f == HWP_RANGE_FORMAT_AUTOFDO || f == HWP_RANGE_FORMAT_AUTOFDO_IPS;
	const char *path;
	int err;

	if (f == HWP_RANGE_FORMAT_AUTOFDO_IPS ? !hwp__branch_collector_ip_samples(c) : !hwp_branch_collector__ranges(c))
		return hwp__set_error(EINVAL, "range profile: the branch collector counted no %s",
				      f == HWP_RANGE_FORMAT_AUTOFDO_IPS ? "sample addresses" : "ranges");
	if (!s)
		return -ENOENT;
	if (!(path = hwp_symbolizer__module_file(s, module))) {
		const char *name = hwp_symbolizer__module_name(s, module);

		if (!name || *name == '[')
			return -ENOENT; /* the kernel, vdso: the symbolizer said why */
		char why[512];

		snprintf(why, sizeof(why), "%s", hwp_errmsg());
		assume_layout(&x, c, name, why);
	} else if (!(x.file = hwp__code_file_open(path))) {
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	}
	/* simpleperf: vaddr = offset + first PT_LOAD's vaddr; llvm-profgen:
	   the first executable segment's page */
	if (x.file && !hwp__code_file_base(x.file, f == HWP_RANGE_FORMAT_PROFGEN, &x.base)) {
		err = hwp__set_error(ERANGE, "%s: no loadable segment", path);
		goto out;
	}
	if (x.file && f == HWP_RANGE_FORMAT_PROFGEN)
		x.base &= ~(uint64_t)0xfff;
	if ((err = gather(&x, c)))
		goto out;
	write_pairs(fp, &x.ranges, "-", x.base);
	if (autofdo) {
		fprintf(fp, "%zu\n", x.addrs.nr);
		for (size_t i = 0; i < x.addrs.nr; i++)
			fprintf(fp, "%" PRIx64 ":%" PRIu64 "\n", x.addrs.v[i].a - x.base, x.addrs.v[i].count);
	}
	write_pairs(fp, &x.branches, "->", x.base);
	if (autofdo) {
		const char *bid = hwp_symbolizer__module_build_id(s, module);

		/* simpleperf writes 20 zero bytes when none was recorded */
		fprintf(fp, "// build_id: 0x%s\n// %s\n\n", bid ? bid : "0000000000000000000000000000000000000000",
			hwp_symbolizer__module_name(s, module));
	}
	if (fflush(fp) || ferror(fp))
		err = hwp__set_error(EIO, "writing the profile: %s", strerror(errno ? errno : EIO));
out:
	hwp__code_file_close(x.file);
	free(x.ranges.v);
	free(x.addrs.v);
	free(x.branches.v);
	return err;
}

/* A binary not at hand: a program unless its name says a library (or
   the kernel, the vdso). */
static bool name_is_program(const struct hwp_symbolizer *s, int module)
{
	const char *name = hwp_symbolizer__module_name(s, module);
	const char *base = name && strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

	return base && *base && *name != '[' && !strstr(base, ".so") && strncmp(base, "ld-", 3);
}

int hwp_range_profile__default_module(struct hwp_branch_collector *c)
{
	struct hwp_symbolizer *s = hwp__branch_collector_symbolizer(c);
	const struct hwp_branch_table *t = hwp_branch_collector__ranges(c);
	const struct hwp_branch_row *r;
	size_t n;
	int best[2] = { -1, -1 }; /* the program with the most ranges, any module with the most */
	uint64_t most[2] = { 0, 0 }, total = 0;
	struct items per = { 0 }; /* a = module, count summed */

	if (t && !hwp_branch_table__size(t) && hwp__branch_collector_ip_samples(c))
		t = hwp__branch_collector_ip_samples(c); /* no branch stacks: the sampled modules */
	if (!t)
		return hwp__set_error(EINVAL, "range profile: the branch collector counted no ranges");
	r = hwp_branch_table__rows(t, &n);
	for (size_t i = 0; i < n; i++)
		if (push(&per, (uint64_t)r[i].key.from.module, 0, r[i].c.count))
			goto nomem;
	sort_merge(&per);
	for (size_t i = 0; i < per.nr; i++) {
		int m = (int)per.v[i].a;

		total += per.v[i].count;
		const char *path = hwp_symbolizer__module_file(s, m);
		struct hwp__code_file *f = path ? hwp__code_file_open(path) : NULL;
		bool program = f ? hwp__code_file_is_program(f) : !path && name_is_program(s, m);

		hwp__code_file_close(f);
		for (int k = 0; k < 2; k++)
			if ((k || program) && per.v[i].count > most[k]) {
				best[k] = m;
				most[k] = per.v[i].count;
			}
	}
	free(per.v);
	if (best[0] >= 0 && best[1] != best[0] && most[0] * 10 < most[1])
		/* e.g. a program whose time goes to a library it calls */
		hwp__log(HWP_LOG_WARN, "%s: only %.2g%% of the fall-through ranges ran in the program %s, %.3g%% in %s: "
			 "the profile is of the program; name the other binary to profile it",
			 hwp__branch_collector_name(c), 100.0 * (double)most[0] / (double)total,
			 hwp_symbolizer__module_name(s, best[0]), 100.0 * (double)most[1] / (double)total,
			 hwp_symbolizer__module_name(s, best[1]));
	if (best[0] >= 0)
		return best[0];
	if (best[1] >= 0) {
		hwp__log(HWP_LOG_WARN, "%s: no fall-through range in a program's own code: the profile is of %s, "
			 "the module with the most",
			 hwp__branch_collector_name(c), hwp_symbolizer__module_name(s, best[1]));
		return best[1];
	}
	return hwp__set_error(ENOENT, "%s: no fall-through range was counted",
			      hwp__branch_collector_name(c));
nomem:
	free(per.v);
	return -ENOMEM;
}

/* The table whose rows name the modules of the recording: the branches,
   else (no branch stacks) the sampled addresses. */
static const struct hwp_branch_table *module_rows_table(struct hwp_branch_collector *c)
{
	const struct hwp_branch_table *t = hwp_branch_collector__table(c);

	if (!hwp_branch_table__size(t) && hwp__branch_collector_ip_samples(c))
		return hwp__branch_collector_ip_samples(c);
	return t;
}

int hwp_range_profile__find_module(struct hwp_branch_collector *c, const char *name)
{
	struct hwp_symbolizer *s = hwp__branch_collector_symbolizer(c);
	const struct hwp_branch_row *r;
	size_t n;
	char seen[256] = "";

	r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);
	for (size_t i = 0; i < 2 * n; i++) {
		int m = i < n ? r[i].key.from.module : r[i - n].key.to.module;
		const char *path, *base, *bid;

		if (m < 0 || !(path = hwp_symbolizer__module_name(s, m)))
			continue;
		base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		bid = hwp_symbolizer__module_build_id(s, m);
		if (!strcmp(path, name) || !strcmp(base, name) || (bid && !strcmp(bid, name)))
			return m;
		if (!strstr(seen, base) && strlen(seen) + strlen(base) + 3 < sizeof(seen)) {
			if (*seen)
				strcat(seen, ", ");
			strcat(seen, base);
		}
	}
	return hwp__set_error(ENOENT, "%s: no module '%s' among those the branches ran in (%s)",
			      hwp__branch_collector_name(c), name, *seen ? seen : "none");
}

int hwp_range_profile__module_for_file(struct hwp_branch_collector *c, const char *path)
{
	struct hwp_symbolizer *s = hwp__branch_collector_symbolizer(c);
	const char *data = hwp__branch_collector_name(c);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	Elf *e = hwp__elf_open(path);
	uint8_t id[HWP_BUILD_ID_MAX];
	char hex[2 * HWP_BUILD_ID_MAX + 1];
	size_t idn = e ? hwp__elf_build_id(e, id) : 0;
	const struct hwp_branch_row *r;
	size_t n;
	int same_name = -1;

	if (e)
		elf_end(e);
	if (!e && access(path, R_OK))
		return hwp__set_error(ENOENT, "%s: cannot read it: %s", path, strerror(errno));
	if (!e)
		return hwp__set_error(ENOENT, "%s: not an ELF file", path);
	if (!idn)
		return hwp__set_error(ENOENT, "%s: no build-id note: cannot tell whether it is the binary recorded", path);
	hwp__build_id_hex(id, idn, hex);
	r = hwp_branch_table__rows(module_rows_table(c), &n);
	for (size_t i = 0; i < 2 * n; i++) {
		int m = i < n ? r[i].key.from.module : r[i - n].key.to.module;
		const char *bid, *name, *mb;

		if (m < 0 || !(name = hwp_symbolizer__module_name(s, m)))
			continue;
		bid = hwp_symbolizer__module_build_id(s, m);
		if (bid && !strcmp(bid, hex))
			return m;
		mb = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
		if (!strcmp(mb, base))
			same_name = m;
	}
	if (same_name >= 0 && !hwp_symbolizer__module_build_id(s, same_name)) {
		/* perf script text records no build-id: the name is all there is */
		hwp__log(HWP_LOG_WARN, "%s: the recording has no build-id for %s: taken to be this binary by its name",
			 path, hwp_symbolizer__module_name(s, same_name));
		return same_name;
	}
	if (same_name >= 0) {
		const char *bid = hwp_symbolizer__module_build_id(s, same_name);

		return hwp__set_error(ESTALE, "%s: build-id %s differs from the recorded %s's %s", path, hex,
				      hwp_symbolizer__module_name(s, same_name), bid ? bid : "(none recorded)");
	}
	return hwp__set_error(ENOENT, "%s: build-id %s: no branch in %s ran in this binary", path, hex, data);
}
