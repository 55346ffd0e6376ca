/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

#include "decode/insn_starts.h"

struct hwp__code_file {
	int fd;
	Elf *elf;
	const uint8_t *image;
	size_t size;
	unsigned machine;
};

struct hwp__code_file *hwp__code_file_open(const char *path)
{
	struct hwp__code_file *f = calloc(1, sizeof(*f));
	GElf_Ehdr eh;

	if (!f)
		return NULL;
	elf_version(EV_CURRENT);
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd >= 0)
		f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || !gelf_getehdr(f->elf, &eh) || !(f->image = (const uint8_t *)elf_rawfile(f->elf, &f->size))) {
		int e = errno ? errno : EINVAL;

		hwp__code_file_close(f);
		errno = e;
		return NULL;
	}
	f->machine = eh.e_machine;
	return f;
}

void hwp__code_file_close(struct hwp__code_file *f)
{
	if (!f)
		return;
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

/* The file's bytes of [VADDR, VADDR + SIZE), or NULL when no executable
   segment holds them all. */
static const uint8_t *code_bytes(const struct hwp__code_file *f, uint64_t vaddr, uint64_t size)
{
	size_t n;

	if (elf_getphdrnum(f->elf, &n))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr < ph.p_vaddr || vaddr + size > ph.p_vaddr + ph.p_filesz ||
		    ph.p_offset + ph.p_filesz > f->size)
			continue;
		return f->image + ph.p_offset + (vaddr - ph.p_vaddr);
	}
	return NULL;
}

int hwp__code_file_insn_starts(struct hwp__code_file *f, uint64_t vaddr, uint64_t size, uint8_t *bits)
{
	const uint8_t *code = code_bytes(f, vaddr, size);

	if (!code)
		return -ERANGE;
	if (f->machine == EM_AARCH64) {
		for (uint64_t i = 0; i < size; i += 4)
			bits[i / 8] |= (uint8_t)(1u << (i % 8));
		return 0;
	}
#ifdef HAVE_CAPSTONE
	csh cs;
	cs_insn *insn;

	if (f->machine != EM_X86_64 || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	insn = cs_malloc(cs);
	if (!insn) {
		cs_close(&cs);
		return -ENOMEM;
	}
	for (uint64_t at = 0; at < size;) {
		const uint8_t *p = code + at;
		size_t left = size - at;
		uint64_t addr = vaddr + at;

		bits[at / 8] |= (uint8_t)(1u << (at % 8));
		at += cs_disasm_iter(cs, &p, &left, &addr, insn) ? insn->size : 1;
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return 0;
#else
	return -ENOTSUP;
#endif
}
