/* Unit tests for splitting an emulated module's host mapping into the
   per-segment mappings the loader made (src/capture/emu_module.c): what the
   MMAP2 records of an emulated recording say. Hand-made program headers,
   then this test's own executable. */
#include <stdint.h>
#include <string.h>

#include "capture/emu_internal.h"
#include "testlib.h"

#define PF_X 1u
#define PF_W 2u
#define PF_R 4u

static void add_load(struct hwp__emu_module *m, uint64_t off, uint64_t vaddr, uint64_t filesz,
		     uint32_t flags)
{
	m->load[m->nload].off = off;
	m->load[m->nload].vaddr = vaddr;
	m->load[m->nload].filesz = filesz;
	m->load[m->nload].flags = flags;
	m->nload++;
}

/* Debian's libc.so.6: R, R E, R, RW. */
static void libc_like(struct hwp__emu_module *m)
{
	memset(m, 0, sizeof(*m));
	add_load(m, 0, 0, 0x25388, PF_R);
	add_load(m, 0x26000, 0x26000, 0x1550fc, PF_R | PF_X);
	add_load(m, 0x17c000, 0x17c000, 0x52c31, PF_R);
	add_load(m, 0x1cf8d0, 0x1d08d0, 0x4f98, PF_R | PF_W);
}

/* QEMU's merged host mapping from offset 0: only the executable segment,
   at its own offset, with the kernel's page rounding. */
static void test_merged_mapping(void)
{
	struct hwp__emu_module m;
	struct hwp__emu_seg s[16];

	libc_like(&m);
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x4002875000, 0x1cf000, 0, s), 1);
	CHECK_EQ_U64(s[0].start, 0x4002875000 + 0x26000);
	CHECK_EQ_U64(s[0].len, 0x156000);
	CHECK_EQ_U64(s[0].pgoff, 0x26000);
	CHECK_EQ_U64(s[0].prot, 1 | 4);
}

/* The host mapping is the executable segment alone (not merged): the same. */
static void test_separate_mapping(void)
{
	struct hwp__emu_module m;
	struct hwp__emu_seg s[16];

	libc_like(&m);
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x400289b000, 0x156000, 0x26000, s), 1);
	CHECK_EQ_U64(s[0].start, 0x400289b000);
	CHECK_EQ_U64(s[0].pgoff, 0x26000);
	/* a mapping of the data segment only holds no code: nothing to split */
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x4002a44000, 0x5000, 0x1cf000, s), 0);
}

/* Unaligned p_vaddr/p_offset, a segment across a page end, RWX, two
   executable segments of which the host mapping holds the second, and a
   zero-size one that maps nothing. */
static void test_rounding_and_several(void)
{
	struct hwp__emu_module m;
	struct hwp__emu_seg s[16];

	memset(&m, 0, sizeof(m));
	add_load(&m, 0x1234, 0x401234, 0x100, PF_R | PF_X);
	add_load(&m, 0x3ff0, 0x405ff0, 0x20, PF_R | PF_W | PF_X);
	add_load(&m, 0x5000, 0x407000, 0, PF_R | PF_X);
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x405000, 0x2000, 0x3000, s), 2);
	CHECK_EQ_U64(s[0].start, 0x401000);
	CHECK_EQ_U64(s[0].len, 0x1000);
	CHECK_EQ_U64(s[0].pgoff, 0x1000);
	CHECK_EQ_U64(s[1].start, 0x405000);
	CHECK_EQ_U64(s[1].len, 0x2000);
	CHECK_EQ_U64(s[1].pgoff, 0x3000);
	CHECK_EQ_U64(s[1].prot, 7);
}

/* Headers the loader could not have mapped so: left to the caller, which
   keeps the host mapping. */
static void test_refused(void)
{
	struct hwp__emu_module m;
	struct hwp__emu_seg s[16];

	memset(&m, 0, sizeof(m));
	add_load(&m, 0x1100, 0x1200, 0x100, PF_R | PF_X); /* offset and address disagree */
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x400000, 0x2000, 0, s), 0);

	memset(&m, 0, sizeof(m));
	add_load(&m, 0x1000, UINT64_MAX - 0xfff, 0x2000, PF_R | PF_X); /* wraps */
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x400000, 0x2000, 0x1000, s), 0);

	memset(&m, 0, sizeof(m));
	add_load(&m, UINT64_MAX - 0xfff, 0x1000, 0x2000, PF_R | PF_X); /* file offset wraps */
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x400000, 0x2000, 0x1000, s), 0);

	libc_like(&m);
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x4002875000, 0, 0, s), 0); /* empty */
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x4002875000, 0x2000, UINT64_MAX - 0xfff, s), 0);
	/* the segment would start below address 0 */
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x1000, 0x1000, 0x30000, s), 0);

	memset(&m, 0, sizeof(m)); /* not an ELF: no segments at all */
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x400000, 0x1000, 0, s), 0);
}

/* This test's own executable, read from its file. */
static void test_read_self(void)
{
	struct hwp__emu_module m;
	struct hwp__emu_seg s[16];
	unsigned nx = 0;

	memset(&m, 0, sizeof(m));
	m.path = (char *)"/proc/self/exe";
	hwp__emu_module_read(&m);
	CHECK(m.nload > 0);
	CHECK(m.bid_size > 0);
	for (unsigned i = 0; i < m.nload; i++)
		nx += (m.load[i].flags & PF_X) != 0;
	CHECK(nx > 0);
	/* mapped whole from offset 0 at 0x10000 (as QEMU's host mapping) */
	CHECK_EQ_U64(hwp__emu_module_segments(&m, 0x10000, 0x10000000, 0, s), nx);
	for (unsigned i = 0; i < nx; i++) {
		CHECK(s[i].prot & 4);
		CHECK((s[i].start | s[i].len | s[i].pgoff) % 4096 == 0);
		CHECK_EQ_U64(s[i].start - 0x10000, s[i].pgoff); /* this linker: p_vaddr == p_offset */
	}
}

int main(void)
{
	RUN(test_merged_mapping);
	RUN(test_separate_mapping);
	RUN(test_rounding_and_several);
	RUN(test_refused);
	RUN(test_read_self);
	TL_EXIT();
}
