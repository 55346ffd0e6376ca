/* SPDX-License-Identifier: MIT */
/*
 * hwp_timing__find(): the timed blocks that contain an address, a symbol
 * (+ offset) or a source line. Lines are matched per instruction (decoded
 * with the collector's instruction cache); without the binary, a block's
 * first and last instructions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "analysis/timing_internal.h"
#include "decode/code_cache.h"
#include "hwprof/timing.h"
#include "util/error.h"

/* What hwp_timing__find() looks for. */
struct where {
	enum { W_ADDR, W_SYM, W_LINE } kind;
	uint64_t addr;        /* W_ADDR */
	char sym[256];        /* W_SYM */
	bool has_off;
	uint64_t off;
	char file[512];       /* W_LINE */
	unsigned line;
};

static int parse_where(const char *w, struct where *out)
{
	char *end;
	const char *colon = strrchr(w, ':'), *plus = strrchr(w, '+');

	memset(out, 0, sizeof(*out));
	if (!*w)
		return hwp__set_error(EINVAL, "an empty code location");
	if (w[0] >= '0' && w[0] <= '9') {
		errno = 0;
		out->addr = strtoull(w, &end, 0);
		if (!*end && !errno) {
			out->kind = W_ADDR;
			return 0;
		}
		if (!colon) /* a source file may start with a digit; nothing else does */
			return hwp__set_error(EINVAL, "'%s' is not an address (0x4005d0), symbol (main+0x10) "
					      "or source line (file.c:42)", w);
	}
	if (colon && colon[1] && colon > w) {
		errno = 0;
		unsigned long l = strtoul(colon + 1, &end, 10);

		if (!*end && !errno && l > 0 && l <= UINT32_MAX && colon[1] != '-' && colon[1] != '+') {
			if ((size_t)(colon - w) >= sizeof(out->file))
				return hwp__set_error(EINVAL, "'%s': the file name is too long", w);
			memcpy(out->file, w, (size_t)(colon - w));
			out->line = (unsigned)l;
			out->kind = W_LINE;
			return 0;
		}
	}
	size_t len = strlen(w);
	/* SYM+OFF; a name ending in '+' (operator+) is a name */
	if (plus && plus > w && plus[1]) {
		errno = 0;
		out->off = strtoull(plus + 1, &end, 0);
		if (*end || errno || plus[1] == '-' || plus[1] == '+')
			return hwp__set_error(EINVAL, "'%s': the offset after '+' is not a number", w);
		out->has_off = true;
		len = (size_t)(plus - w);
	}
	if (len >= sizeof(out->sym))
		return hwp__set_error(EINVAL, "'%s': the symbol name is too long", w);
	memcpy(out->sym, w, len);
	out->kind = W_SYM;
	return 0;
}

static bool same_sym(const struct hwp_symbol_info *si, const char *name)
{
	return si->symbol && (!strcmp(si->symbol, name) || (si->symbol_raw && !strcmp(si->symbol_raw, name)) ||
			      (si->symbol_full && !strcmp(si->symbol_full, name)));
}

static bool file_matches(const char *file, const char *want)
{
	size_t fl = strlen(file), wl = strlen(want);

	return fl >= wl && !strcmp(file + fl - wl, want) && (fl == wl || file[fl - wl - 1] == '/');
}

struct line_walk {
	struct hwp_symbolizer *sym;
	int module;
	const struct where *w;
	bool hit;
};

static int insn_on_line(void *ctx, const struct hwp__insn *in)
{
	struct line_walk *lw = ctx;
	struct hwp_symbol_info si;

	if (hwp_symbolizer__lookup(lw->sym, lw->module, in->offset, &si) == 0 && si.file &&
	    si.line == lw->w->line && file_matches(si.file, lw->w->file)) {
		lw->hit = true;
		return 1;
	}
	return 0;
}

static bool block_has(struct hwp_timing *t, const struct hwp_timing_block *b, const struct where *w)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(hwp__timing_session(t));
	uint64_t len = b->end.offset - b->start.offset;
	struct hwp_symbol_info a, z;

	switch (w->kind) {
	case W_ADDR: {
		uint64_t v;

		if (w->addr >= b->start.addr && w->addr - b->start.addr <= len)
			return true;
		return hwp_symbolizer__module_vaddr(sym, b->start.module, b->start.offset, &v) == 0 &&
		       w->addr >= v && w->addr - v <= len;
	}
	case W_SYM:
		if (hwp_symbolizer__lookup(sym, b->start.module, b->start.offset, &a) < 0 || !same_sym(&a, w->sym))
			return false;
		if (!w->has_off)
			return true;
		return w->off >= a.sym_offset && w->off - a.sym_offset <= len;
	case W_LINE: {
		struct hwp__code_cache *cc = hwp__branch_collector_code_cache(hwp__timing_collector(t));
		struct line_walk lw = { sym, b->start.module, w, false };

		if (cc && hwp__code_cache_range(cc, b->start.module, b->start.offset, b->end.offset, insn_on_line,
						&lw) >= 0)
			return lw.hit;
		if (lw.hit)
			return true;
		/* not decoded: its first and last instructions only */
		return (hwp_symbolizer__lookup(sym, b->start.module, b->start.offset, &a) == 0 && a.file &&
			a.line == w->line && file_matches(a.file, w->file)) ||
		       (hwp_symbolizer__lookup(sym, b->end.module, b->end.offset, &z) == 0 && z.file &&
			z.line == w->line && file_matches(z.file, w->file));
	}
	}
	return false;
}

int hwp_timing__find(struct hwp_timing *t, const char *where, size_t *idx, size_t max)
{
	struct where w;
	int err = parse_where(where, &w), found = 0;
	size_t n;
	const struct hwp_timing_block *b = hwp_timing__blocks(t, &n);

	if (err < 0)
		return err;
	for (size_t i = 0; i < n; i++)
		if (block_has(t, &b[i], &w)) {
			if ((size_t)found < max)
				idx[found] = i;
			if (found < INT32_MAX)
				found++;
		}
	return found;
}
