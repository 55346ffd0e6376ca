/* SPDX-License-Identifier: MIT */
/* /proc/kallsyms parsing. See kallsyms.h. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/kallsyms.h"
#include "util/arena.h"

struct hwp_kallsyms {
	struct hwp_symtab tab;
	struct hwp_arena arena; /* names: "name\0module\0" (module empty for the kernel) */
};

static int kptr_restrict(void)
{
	FILE *f = fopen("/proc/sys/kernel/kptr_restrict", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* One line: "ffffffff81000000 T _text" or "ffffffffc0a00000 t fn\t[mod]". */
static int parse_line(struct hwp_kallsyms *k, char *line, bool *nonzero)
{
	char *p = line, *e, *name, *mod = NULL;
	uint64_t addr;
	char type;
	size_t nlen, mlen = 0;
	uint8_t bind, flags = 0;
	char *copy;

	errno = 0;
	addr = strtoull(p, &e, 16);
	if (e == p || errno || !isspace((unsigned char)*e))
		return 0;
	p = e;
	while (*p == ' ' || *p == '\t')
		p++;
	type = *p++;
	if (!type || !isspace((unsigned char)*p))
		return 0;
	switch (toupper((unsigned char)type)) {
	case 'T':
	case 'W':
	case 'D':
	case 'B':
		break;
	default:
		return 0;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	name = p;
	nlen = strcspn(name, " \t\r\n");
	if (!nlen)
		return 0;
	p = name + nlen;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		mod = p + 1;
		mlen = strcspn(mod, "]\r\n");
		flags |= HWP_SYMF_KMOD;
	}
	if (addr)
		*nonzero = true;
	bind = (type == 'w' || type == 'W' || type == 'v' || type == 'V')
		       ? HWP_SYM_WEAK
		       : isupper((unsigned char)type) ? HWP_SYM_GLOBAL : HWP_SYM_LOCAL;
	copy = hwp__arena_alloc(&k->arena, nlen + mlen + 2);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, nlen);
	if (mlen)
		memcpy(copy + nlen + 1, mod, mlen);
	return hwp__symtab_add(&k->tab, addr, 0, copy, bind, flags);
}

int hwp__kallsyms_load(const char *path, struct hwp_kallsyms **out, char *reason,
		       size_t reason_size)
{
	struct hwp_kallsyms *k;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	bool nonzero = false;
	int err = 0;

	*out = NULL;
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		snprintf(reason, reason_size, "cannot read %s: %s%s", path, strerror(errno),
			 errno == EACCES ? " (run as root)" : "");
		return err == -EPERM ? -EACCES : err;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		fclose(f);
		snprintf(reason, reason_size, "out of memory");
		return -ENOMEM;
	}
	while (getline(&line, &cap, f) > 0) {
		err = parse_line(k, line, &nonzero);
		if (err)
			break;
	}
	free(line);
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (!err && !k->tab.n)
		err = -ENODATA;
	if (!err && !nonzero)
		err = -EACCES;
	if (!err)
		err = hwp__symtab_finish(&k->tab, HWP_SYMTAB_KALLSYMS);
	if (err) {
		int kr = kptr_restrict();

		if (err == -EACCES && kr >= 0 && !strcmp(path, "/proc/kallsyms"))
			snprintf(reason, reason_size,
				 "%s hides kernel addresses (kernel.kptr_restrict=%d): run as root "
				 "(CAP_SYSLOG), or set kernel.kptr_restrict=0 and "
				 "kernel.perf_event_paranoid<=1",
				 path, kr);
		else if (err == -EACCES)
			snprintf(reason, reason_size,
				 "%s has only zero addresses (saved under kptr_restrict)", path);
		else if (err == -ENODATA)
			snprintf(reason, reason_size, "%s has no symbols", path);
		else
			snprintf(reason, reason_size, "cannot read %s: %s", path, strerror(-err));
		hwp__kallsyms_delete(k);
		return err;
	}
	*out = k;
	return 0;
}

struct hwp_sym *hwp__kallsyms_find(const struct hwp_kallsyms *k, uint64_t addr)
{
	return hwp__symtab_find(&k->tab, addr);
}

const char *hwp__kallsyms_module_of(const struct hwp_kallsyms *k, const struct hwp_sym *sym)
{
	(void)k;
	if (!(sym->flags & HWP_SYMF_KMOD))
		return NULL;
	return sym->name + strlen(sym->name) + 1;
}

size_t hwp__kallsyms_count(const struct hwp_kallsyms *k)
{
	return k->tab.n;
}

void hwp__kallsyms_delete(struct hwp_kallsyms *k)
{
	if (!k)
		return;
	hwp__symtab_free(&k->tab);
	hwp__arena_free(&k->arena);
	free(k);
}

size_t hwp__kallsyms_running_build_id(uint8_t *out)
{
	unsigned char buf[4096];
	size_t n, pos = 0;
	FILE *f = fopen("/sys/kernel/notes", "rb");

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (pos + 12 <= n) { /* Elf_Nhdr: namesz, descsz, type; name, desc 4-aligned */
		uint32_t namesz, descsz, type;
		size_t name_off = pos + 12, desc_off;

		memcpy(&namesz, buf + pos, 4);
		memcpy(&descsz, buf + pos + 4, 4);
		memcpy(&type, buf + pos + 8, 4);
		desc_off = name_off + ((namesz + 3u) & ~3u);
		if (namesz > n || descsz > n || desc_off + descsz > n)
			break;
		if (type == 3 && namesz == 4 && !memcmp(buf + name_off, "GNU", 4) && descsz &&
		    descsz <= 20) {
			memcpy(out, buf + desc_off, descsz);
			return descsz;
		}
		pos = desc_off + ((descsz + 3u) & ~3u);
	}
	return 0;
}
