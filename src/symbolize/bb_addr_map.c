/* SPDX-License-Identifier: MIT */
/* .llvm_bb_addr_map: clang's basic-block address map (see bb_addr_map.h). */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/bb_addr_map.h"
#include "symbolize/build_id_lookup.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/vec.h"

#define KNOWN_FEATURES 0x0fu /* entry count, frequencies, probabilities, ranges */
#define MULTI_RANGE 0x08u
#define KNOWN_META 0x1fu

struct rd {
	const uint8_t *p;
	size_t size, off;
	uint64_t file_off;
	const char *name;
};

static int bad(const struct rd *r, size_t at, const char *why)
{
	return hwp__set_error(EINVAL, "%s: .llvm_bb_addr_map at offset 0x%" PRIx64 ": %s", r->name,
			      r->file_off + at, why);
}

static int u8(struct rd *r, uint8_t *v, const char *what)
{
	if (r->off >= r->size)
		return hwp__set_error(EINVAL, "%s: .llvm_bb_addr_map at offset 0x%" PRIx64 ": cut short in the %s",
				      r->name, r->file_off + r->off, what);
	*v = r->p[r->off++];
	return 0;
}

static int u64(struct rd *r, uint64_t *v, const char *what)
{
	if (r->size - r->off < 8)
		return hwp__set_error(EINVAL, "%s: .llvm_bb_addr_map at offset 0x%" PRIx64 ": cut short in the %s",
				      r->name, r->file_off + r->off, what);
	*v = ld64(r->p + r->off);
	r->off += 8;
	return 0;
}

/* ULEB128: at most 10 bytes, the last holding one bit, as 64 bits hold. */
static int uleb(struct rd *r, uint64_t *v, const char *what)
{
	size_t at = r->off;
	uint64_t x = 0;

	for (unsigned shift = 0;; shift += 7) {
		uint8_t b;

		if (r->off >= r->size)
			return hwp__set_error(EINVAL, "%s: .llvm_bb_addr_map at offset 0x%" PRIx64 ": cut short in the %s",
					      r->name, r->file_off + at, what);
		b = r->p[r->off++];
		if (shift == 63 && b > 1)
			return bad(r, at, "a ULEB128 number over 64 bits");
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		if (shift == 63)
			return bad(r, at, "a ULEB128 number over 64 bits");
	}
	*v = x;
	return 0;
}

/* Blocks and their PGO data of one function entry at R->off. */
static int parse_func(struct rd *r, struct hwp__bb_addr_map *m)
{
	size_t at = r->off;
	uint8_t version = 0, features = 0;
	uint64_t n_ranges = 1;
	struct hwp__bb_func *f;
	int err;

	if ((err = u8(r, &version, "version")) || (err = u8(r, &features, "feature byte")))
		return err;
	if (version != 1 && version != 2) {
		char why[64];

		snprintf(why, sizeof(why), "version %u (hwprof reads 1 and 2)", version);
		return bad(r, at, why);
	}
	if (features & ~KNOWN_FEATURES) {
		char why[80];

		snprintf(why, sizeof(why), "feature bits 0x%x unknown", features & ~KNOWN_FEATURES);
		return bad(r, at + 1, why);
	}
	if (version < 2 && features) /* the PGO map and ranges need block IDs */
		return bad(r, at + 1, "features in a version 1 entry");
	if ((features & MULTI_RANGE) && (err = uleb(r, &n_ranges, "number of ranges")))
		return err;
	/* each range takes at least 9 bytes: no count may promise more */
	if (!n_ranges || n_ranges > (r->size - r->off) / 9)
		return bad(r, at + 2, n_ranges ? "more ranges than bytes left" : "no block range");
	if (!(f = HWP_VEC_PUSH(m->funcs, m->n_funcs, m->cap_funcs)))
		return hwp__set_error(ENOMEM, "%s: out of memory reading .llvm_bb_addr_map", r->name);
	*f = (struct hwp__bb_func){ .first = m->n_blocks, .n_ranges = (uint32_t)n_ranges, .version = version,
				    .features = features };
	for (uint64_t k = 0; k < n_ranges; k++) {
		uint64_t base = 0, n = 0, end;
		size_t nat;

		if ((err = u64(r, &base, "range's base address")))
			goto fail;
		if (!k)
			f->addr = base;
		nat = r->off;
		if ((err = uleb(r, &n, "number of blocks")))
			goto fail;
		/* a block takes at least 3 bytes (4 with its ID) */
		if (n > (r->size - r->off) / 3) {
			err = bad(r, nat, "more blocks than bytes left");
			goto fail;
		}
		if (HWP_VEC_RESERVE(m->blocks, m->cap_blocks, m->n_blocks + n)) {
			err = hwp__set_error(ENOMEM, "%s: out of memory reading .llvm_bb_addr_map", r->name);
			goto fail;
		}
		end = base;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t id = i, off, size, meta;
			size_t bat = r->off;

			if ((version >= 2 && (err = uleb(r, &id, "block ID"))) || (err = uleb(r, &off, "block offset")) ||
			    (err = uleb(r, &size, "block size")) || (err = uleb(r, &meta, "block metadata")))
				goto fail;
			if (id > UINT32_MAX) {
				err = bad(r, bat, "a block ID over 32 bits");
				goto fail;
			}
			if (meta & ~(uint64_t)KNOWN_META) {
				err = bad(r, bat, "unknown block metadata bits");
				goto fail;
			}
			if (off > UINT64_MAX - end || size > UINT64_MAX - end - off) {
				err = bad(r, bat, "a block past the end of the address space");
				goto fail;
			}
			m->blocks[m->n_blocks++] = (struct hwp__bb){ .addr = end + off, .size = size, .id = (uint32_t)id,
								   .meta = (uint32_t)meta, .range = (uint32_t)k };
			end += off + size;
		}
	}
	f->n = m->n_blocks - f->first;
	if (features & 1) {
		uint64_t count;

		if ((err = uleb(r, &count, "function entry count")))
			goto fail;
	}
	if (features & 6) {
		for (size_t i = 0; i < f->n; i++) {
			uint64_t v, n_succ;
			size_t sat;

			if ((features & 2) && (err = uleb(r, &v, "block frequency")))
				goto fail;
			if (!(features & 4))
				continue;
			sat = r->off;
			if ((err = uleb(r, &n_succ, "number of successors")))
				goto fail;
			if (n_succ > (r->size - r->off) / 2) {
				err = bad(r, sat, "more successors than bytes left");
				goto fail;
			}
			for (uint64_t s = 0; s < 2 * n_succ; s++)
				if ((err = uleb(r, &v, s & 1 ? "branch probability" : "successor ID")))
					goto fail;
		}
	}
	return 0;
fail: /* the entries before stay; this one goes */
	m->n_blocks = f->first;
	m->n_funcs--;
	return err;
}

int hwp__bb_addr_map_parse(const uint8_t *data, size_t size, uint64_t file_off, const char *name,
			   struct hwp__bb_addr_map *m)
{
	struct rd r = { .p = data, .size = size, .file_off = file_off, .name = name };
	int err;

	while (r.off < r.size)
		if ((err = parse_func(&r, m)))
			return err;
	return 0;
}

int hwp__bb_addr_map_read(const char *path, struct hwp__bb_addr_map *m)
{
	Elf *e = hwp__elf_open(path);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t raw_size;
	const uint8_t *raw;
	int err = 0, found = 0;

	if (!e)
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	if (!gelf_getehdr(e, &eh) || !(raw = (const uint8_t *)elf_rawfile(e, &raw_size))) {
		err = hwp__set_error(EINVAL, "%s: cannot read its ELF header", path);
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		err = hwp__set_error(ENOTSUP, "%s: not a 64-bit little-endian ELF file (the only basic-block "
					      "address maps hwprof reads)", path);
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == HWP_SHT_LLVM_BB_ADDR_MAP_V0) {
			err = hwp__set_error(ENOTSUP, "%s: .llvm_bb_addr_map at offset 0x%" PRIx64
					     ": the first format (before LLVM 16), which hwprof does not read",
					     path, (uint64_t)sh.sh_offset);
			goto out;
		}
		if (sh.sh_type != HWP_SHT_LLVM_BB_ADDR_MAP)
			continue;
		if (eh.e_type == ET_REL) {
			err = hwp__set_error(ENOTSUP, "%s: a relocatable object: its basic-block addresses are "
						      "known once linked; give the linked binary", path);
			goto out;
		}
		if (sh.sh_flags & SHF_COMPRESSED || sh.sh_offset > raw_size || sh.sh_size > raw_size - sh.sh_offset) {
			err = hwp__set_error(EINVAL, "%s: .llvm_bb_addr_map at offset 0x%" PRIx64 ": %s", path,
					     (uint64_t)sh.sh_offset,
					     sh.sh_flags & SHF_COMPRESSED ? "compressed, which hwprof does not read"
									  : "its size reaches past the end of the file");
			goto out;
		}
		found = 1;
		if ((err = hwp__bb_addr_map_parse(raw + sh.sh_offset, sh.sh_size, sh.sh_offset, path, m)))
			goto out;
	}
	if (!found)
		err = hwp__set_error(ENOENT, "%s: no .llvm_bb_addr_map section (build it with clang "
					     "-fbasic-block-address-map)", path);
out:
	elf_end(e);
	return err;
}

void hwp__bb_addr_map_free(struct hwp__bb_addr_map *m)
{
	free(m->funcs);
	free(m->blocks);
	*m = (struct hwp__bb_addr_map){ 0 };
}
