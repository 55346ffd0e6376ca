/* SPDX-License-Identifier: MIT */
/*
 * Mappings the recording does not hold but the user vouches for: a binary's
 * loadable segments at a known load bias, consulted for user addresses no
 * recorded map covers. Text from 'perf script -F ip,brstack' carries no
 * mmap events at all, and a process attached to late may miss some.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "session/session_internal.h"
#include "symbolize/build_id_lookup.h"
#include "util/error.h"

int hwp_session__assume_mapped(struct hwp_session *s, const char *path, uint64_t load_bias)
{
	Elf *e = hwp__elf_open(path);
	size_t nph = 0;
	uint8_t id[HWP_BUILD_ID_MAX];
	size_t idn;

	if (!e)
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	idn = hwp__elf_build_id(e, id);
	if (elf_getphdrnum(e, &nph)) {
		elf_end(e);
		return hwp__set_error(EINVAL, "%s: no program headers", path);
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		struct hwp_map *m;
		char *name;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		m = realloc(s->assumed, (s->nassumed + 1) * sizeof(*m));
		if (m)
			s->assumed = m;
		if (!m || !(name = strdup(path))) {
			elf_end(e);
			return hwp__set_error(ENOMEM, "out of memory");
		}
		m = &s->assumed[s->nassumed++];
		*m = (struct hwp_map){ .start = ph.p_vaddr + load_bias, .end = ph.p_vaddr + load_bias + ph.p_filesz,
				       .pgoff = ph.p_offset, .filename = name, .prot = 4 /* PROT_EXEC */,
				       .build_id_size = (uint8_t)(idn > sizeof(m->build_id) ? sizeof(m->build_id) : idn) };
		memcpy(m->build_id, id, m->build_id_size);
	}
	elf_end(e);
	/* cached windows were filled without these maps */
	hwp__resolver_invalidate(&s->res);
	return 0;
}

const struct hwp_map *hwp__session_assumed_map(const struct hwp_session *s, uint64_t addr)
{
	for (size_t i = 0; i < s->nassumed; i++)
		if (addr >= s->assumed[i].start && addr < s->assumed[i].end)
			return &s->assumed[i];
	return NULL;
}

void hwp__session_assumed_free(struct hwp_session *s)
{
	for (size_t i = 0; i < s->nassumed; i++)
		free((char *)s->assumed[i].filename);
	free(s->assumed);
}
