/* SPDX-License-Identifier: MIT */
/*
 * simpleperf's file feature (FEAT_FILE2, id 132): for each binary of the
 * recording, the lowest executable virtual address and its file offset,
 * which its 'inject' uses to turn addresses into the binary's own when the
 * binary itself is not at hand. Each entry is a u32 size and a protobuf
 * FileFeature message (record_file.proto): path = 1 (string), min_vaddr = 3
 * (varint), elf_file = 6 (message: file_offset_of_min_vaddr = 1). Fields
 * other than these are skipped by their wire type.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "format/reader_internal.h"
#include "util/error.h"

struct pb {
	const uint8_t *p, *end;
};

static bool varint(struct pb *b, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64 && b->p < b->end; shift += 7) {
		uint8_t c = *b->p++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
	}
	return false; /* cut short, or longer than 10 bytes */
}

/* The next field: its number, wire type and (length-delimited) bytes or
   (varint) value. false at a malformed field. */
static bool field(struct pb *b, uint64_t *num, unsigned *wire, uint64_t *val, struct pb *sub)
{
	uint64_t key;

	if (!varint(b, &key))
		return false;
	*num = key >> 3;
	*wire = key & 7;
	switch (*wire) {
	case 0:
		return varint(b, val);
	case 1:
	case 5: {
		size_t n = *wire == 1 ? 8 : 4;

		if ((size_t)(b->end - b->p) < n)
			return false;
		*val = 0;
		for (size_t i = n; i-- > 0;)
			*val = *val << 8 | b->p[i];
		b->p += n;
		return true;
	}
	case 2:
		if (!varint(b, val) || *val > (uint64_t)(b->end - b->p))
			return false;
		sub->p = b->p;
		sub->end = b->p + *val;
		b->p += *val;
		return true;
	default:
		return false; /* groups are not in this message */
	}
}

static bool file_feature(struct hwp_reader *r, struct pb *b, struct hwp_file_vaddr *out)
{
	uint64_t num, val;
	unsigned wire;
	struct pb sub;

	memset(out, 0, sizeof(*out));
	while (b->p < b->end) {
		if (!field(b, &num, &wire, &val, &sub))
			return false;
		if (num == 1 && wire == 2) {
			if (!(out->path = hwp__arena_strndup(&r->arena, (const char *)sub.p, (size_t)val)))
				return false;
		} else if (num == 3 && wire == 0) {
			out->min_vaddr = val;
		} else if (num == 6 && wire == 2) {
			while (sub.p < sub.end) {
				struct pb s2;
				uint64_t n2, v2;
				unsigned w2;

				if (!field(&sub, &n2, &w2, &v2, &s2))
					return false;
				if (n2 == 1 && w2 == 0) {
					out->file_offset = v2;
					out->has_file_offset = true;
				}
			}
		}
	}
	return out->path != NULL;
}

int hwp__parse_simpleperf_files(struct hwp_reader *r, const uint8_t *p, uint64_t len, uint64_t file_off)
{
	struct hwp_header_info *h = &r->hdr;
	const uint8_t *end = p + len;
	size_t n = 0, at = 0;

	/* two passes: count, then fill an arena array */
	for (const uint8_t *q = p; q < end; n++) {
		uint32_t sz;

		if ((size_t)(end - q) < 4)
			goto bad;
		memcpy(&sz, q, 4);
		if (sz > (size_t)(end - q) - 4)
			goto bad;
		q += 4 + sz;
	}
	if (!n)
		return 0;
	struct hwp_file_vaddr *v = hwp__arena_alloc(&r->arena, n * sizeof(*v));
	if (!v)
		return hwp__set_error(ENOMEM, "%s: out of memory reading simpleperf's file feature", r->name);
	for (const uint8_t *q = p; q < end;) {
		uint32_t sz;

		memcpy(&sz, q, 4);
		struct pb b = { q + 4, q + 4 + sz };
		if (!file_feature(r, &b, &v[at]))
			goto bad_at;
		at++;
		q += 4 + sz;
		continue;
bad_at: /* only 'ranges' and 'pgo' without the binary read it: not fatal */
		hwp__log(HWP_LOG_WARN, "%s: simpleperf file feature at offset 0x%llx: entry %zu at offset 0x%llx is "
			 "malformed: the feature is ignored", r->name, (unsigned long long)file_off, at,
			 (unsigned long long)(file_off + (uint64_t)(q - p)));
		return 0;
	}
	h->file_vaddrs = v;
	h->nr_file_vaddrs = at;
	return 0;
bad:
	hwp__log(HWP_LOG_WARN, "%s: simpleperf file feature at offset 0x%llx (%llu bytes): an entry's size runs past "
		 "its end: the feature is ignored", r->name, (unsigned long long)file_off, (unsigned long long)len);
	return 0;
}
