/* SPDX-License-Identifier: MIT */
/*
 * ELF facts of the modules emulated code ran from: the build-id for MMAP2 and
 * the BUILD_ID feature, and the PT_LOAD segments that turn a file offset back
 * into a link-time address for the exact counts and split a host mapping
 * into the per-segment mappings the loader made.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/emu_internal.h"
#include "util/bytes.h"

/* The first NT_GNU_BUILD_ID note of the PT_NOTE segment at [OFF, END). */
static void read_build_id(struct hwp__emu_module *m, const uint8_t *p, uint64_t off, uint64_t end)
{
	/* a note: namesz, descsz, type, name, desc (each 4-aligned) */
	for (uint64_t q = off; q + 12 <= end;) {
		uint64_t nsz = ld32(p + q), dsz = ld32(p + q + 4);
		uint32_t nt = ld32(p + q + 8);
		uint64_t name = q + 12, desc = name + ((nsz + 3) & ~3ull);

		if (desc + dsz > end)
			return;
		if (nt == 3 && nsz == 4 && !memcmp(p + name, "GNU", 4) && dsz && dsz <= 20) {
			memcpy(m->build_id, p + desc, dsz);
			m->bid_size = (uint8_t)dsz;
			return;
		}
		q = desc + ((dsz + 3) & ~3ull);
	}
}

void hwp__emu_module_read(struct hwp__emu_module *m)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *p;
	uint64_t phoff, size;
	unsigned phentsize, phnum;

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_size < 64) {
		close(fd);
		return;
	}
	size = (uint64_t)st.st_size;
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	if (memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1) /* ELF64, little-endian */
		goto out;
	phoff = ld64(p + 32);
	phentsize = ld16(p + 54);
	phnum = ld16(p + 56);
	if (phentsize < 56 || phoff > size || (uint64_t)phnum * phentsize > size - phoff)
		goto out;
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = p + phoff + (uint64_t)i * phentsize;
		uint32_t type = ld32(ph), flags = ld32(ph + 4);
		uint64_t off = ld64(ph + 8), vaddr = ld64(ph + 16), filesz = ld64(ph + 32);

		if (type == 1 && m->nload < 16) { /* PT_LOAD */
			m->load[m->nload].off = off;
			m->load[m->nload].vaddr = vaddr;
			m->load[m->nload].filesz = filesz;
			m->load[m->nload].flags = flags;
			m->nload++;
		} else if (type == 4 && !m->bid_size && off <= size && filesz <= size - off) {
			read_build_id(m, p, off, off + filesz); /* PT_NOTE */
		}
	}
out:
	munmap(p, size);
}

int64_t hwp__emu_module_vaddr(const struct hwp__emu_module *m, uint64_t off)
{
	for (unsigned i = 0; i < m->nload; i++)
		if (off >= m->load[i].off && off < m->load[i].off + m->load[i].filesz)
			return (int64_t)(off - m->load[i].off + m->load[i].vaddr);
	return -1;
}

/* x86-64 pages (the only guest): the unit of the loader's mmap calls. */
#define PAGE 4096ull
#define PAGE_DOWN(x) ((x) & ~(PAGE - 1))

/* Segment I of M as the loader maps it at BIAS (added to p_vaddr): the
   kernel (binfmt_elf's elf_map) and ld.so both map from the page holding
   p_vaddr to the page end after p_vaddr + p_filesz, at file offset p_offset
   rounded down; false when the header cannot be mapped so. */
static bool seg_at(const struct hwp__emu_module *m, unsigned i, uint64_t bias,
		   struct hwp__emu_seg *s)
{
	uint64_t off = m->load[i].off, va = m->load[i].vaddr, sz = m->load[i].filesz;
	uint32_t f = m->load[i].flags;

	/* mmap needs p_vaddr and p_offset equal modulo the page size */
	if (!sz || (va - off) % PAGE || off + sz < off || va + sz < va || va + sz > UINT64_MAX - PAGE)
		return false;
	s->start = bias + PAGE_DOWN(va);
	s->len = PAGE_DOWN(va + sz + PAGE - 1) - PAGE_DOWN(va);
	s->pgoff = PAGE_DOWN(off);
	s->prot = (f & 4 ? 1u : 0) | (f & 2 ? 2u : 0) | (f & 1 ? 4u : 0);
	return s->start + s->len > s->start;
}

/* The load bias of M's mapping at START (file offset PGOFF, LEN bytes), from
   an executable segment whose file pages the mapping holds: there, file
   offset O sits at START + O - PGOFF. False when there is none. */
static bool module_bias(const struct hwp__emu_module *m, uint64_t start, uint64_t len, uint64_t pgoff,
			uint64_t *bias)
{
	if (!len || pgoff + len < pgoff)
		return false;
	for (unsigned i = 0; i < m->nload; i++) {
		struct hwp__emu_seg s;

		if (!(m->load[i].flags & 1) || !seg_at(m, i, 0, &s))
			continue;
		if (s.pgoff + s.len <= pgoff || s.pgoff >= pgoff + len || s.pgoff + s.len < s.pgoff)
			continue;
		if (s.pgoff < pgoff && start < pgoff - s.pgoff)
			continue; /* would start below address 0 */
		*bias = start + s.pgoff - pgoff - s.start;
		return true;
	}
	return false;
}

unsigned hwp__emu_module_segments(const struct hwp__emu_module *m, uint64_t start, uint64_t len,
				  uint64_t pgoff, struct hwp__emu_seg *segs)
{
	uint64_t bias = 0;
	unsigned n = 0;

	if (!module_bias(m, start, len, pgoff, &bias))
		return 0;
	/* Only executable segments: perf records (attr.mmap without mmap_data)
	   only PROT_EXEC mappings, and readers such as llvm-profgen take every
	   MMAP2 of a binary for one of its executable segments. */
	for (unsigned i = 0; i < m->nload; i++)
		if ((m->load[i].flags & 1) && seg_at(m, i, bias, &segs[n]))
			n++;
	return n;
}

unsigned hwp__emu_module_data_segments(const struct hwp__emu_module *m, uint64_t start, uint64_t len,
				       uint64_t pgoff, struct hwp__emu_seg *segs)
{
	uint64_t bias = 0;
	unsigned n = 0;

	if (!module_bias(m, start, len, pgoff, &bias))
		return 0;
	/* writable, not executable: .data (the file-backed part) */
	for (unsigned i = 0; i < m->nload; i++)
		if ((m->load[i].flags & 3) == 2 && seg_at(m, i, bias, &segs[n]))
			n++;
	return n;
}
