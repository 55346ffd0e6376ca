/* SPDX-License-Identifier: MIT */
/* Build-id / path / debuglink lookup of a module's files. See build_id_lookup.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/build_id_lookup.h"

void hwp__build_id_hex(const uint8_t *id, size_t size, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < size; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * size] = 0;
}

size_t hwp__build_id_canonical_size(const uint8_t *id, size_t size)
{
	size_t t = size;

	while (t && !id[t - 1])
		t--;
	if (!t)
		return 0;
	if (size - t < 4)
		return size;
	return t <= 8 ? 8 : t <= 16 ? 16 : size;
}

bool hwp__build_id_equal(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn;

	if (!an || !bn || memcmp(a, b, n))
		return false;
	for (size_t i = n; i < an; i++)
		if (a[i])
			return false;
	for (size_t i = n; i < bn; i++)
		if (b[i])
			return false;
	return true;
}

void hwp__module_files_release(struct hwp_module_files *f);

#ifdef HAVE_LIBDW

#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "symbolize/elf_sections.h"

/* ---- single files ---- */

Elf *hwp__elf_open(const char *path)
{
	struct stat st;
	Elf *e;
	int fd;

	/* the first libelf call of a process may be this one (nothing decoded yet) */
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* callers may come before any symbolizer made libelf ready */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return NULL;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		e = NULL;
	}
	/* Everything is mapped (or read) now: the descriptor is not needed. */
	if (e && elf_cntl(e, ELF_C_FDREAD) != 0) {
		elf_end(e);
		e = NULL;
	}
	close(fd);
	return e;
}

size_t hwp__elf_build_id(Elf *e, uint8_t *out)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(e, &p);

	if (n <= 0)
		return 0;
	if (n > HWP_BUILD_ID_MAX)
		n = HWP_BUILD_ID_MAX;
	memcpy(out, p, (size_t)n);
	return (size_t)n;
}

static bool has_section_data(Elf *e, const char *name)
{
	GElf_Shdr sh;

	return hwp__elf_section_named(e, name, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size;
}

static bool elf_has_dwarf(Elf *e)
{
	return has_section_data(e, ".debug_info") || has_section_data(e, ".zdebug_info");
}

/* A file made by objcopy --only-keep-debug: its code sections are NOBITS. */
static bool elf_is_debug_only(Elf *e)
{
	GElf_Shdr sh;
	size_t n, i;

	if (hwp__elf_section_named(e, ".text", &sh))
		return sh.sh_type == SHT_NOBITS;
	if (elf_getphdrnum(e, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    ph.p_filesz)
			return false;
	}
	return true;
}

static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	static uint32_t table[256];
	static int ready;

	if (!ready) { /* benign race: every thread computes the same table */
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		ready = 1;
	}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static bool crc_matches(Elf *e, uint32_t want)
{
	size_t size;
	char *raw = elf_rawfile(e, &size);

	return raw && crc32_update(0, (const unsigned char *)raw, size) == want;
}

/* ---- the search ---- */

struct search {
	const struct hwp_find_ctx *ctx;
	struct hwp_module_files *f;
	const char *path;             /* as recorded */
	uint8_t want[HWP_BUILD_ID_MAX]; /* recorded build-id */
	size_t want_size;
	char hex[2][2 * HWP_BUILD_ID_MAX + 1]; /* canonical and padded spelling */
	int nhex;
	char stale[256];  /* the first mismatching file */
	int tried;
};

static char *join(const char *a, const char *b)
{
	char *s;
	size_t al = strlen(a);

	while (al > 1 && a[al - 1] == '/')
		al--;
	while (*b == '/')
		b++;
	if (asprintf(&s, "%.*s/%s", (int)al, a, b) < 0)
		return NULL;
	return s;
}

static void note_stale(struct search *s, const char *cand, const uint8_t *id, size_t n)
{
	char hex[2 * HWP_BUILD_ID_MAX + 1];

	if (s->stale[0])
		return;
	if (n) {
		hwp__build_id_hex(id, n, hex);
		snprintf(s->stale, sizeof(s->stale), "%s has build-id %s", cand, hex);
	} else {
		snprintf(s->stale, sizeof(s->stale), "%s has no build-id", cand);
	}
}

/* The build-id the files must have: the recorded one, else the binary's. */
static const uint8_t *expected_id(const struct search *s, size_t *n)
{
	if (s->want_size) {
		*n = s->want_size;
		return s->want;
	}
	*n = s->f->build_id_size;
	return s->f->build_id;
}

static void take_debug(struct search *s, Elf *e, const char *cand)
{
	s->f->debug = e;
	s->f->debug_path = strdup(cand);
	if (!s->f->debug_path) {
		elf_end(e);
		s->f->debug = NULL;
	}
}

/* 1: CAND is the binary (taken), 0: not it. */
static int try_binary(struct search *s, const char *cand)
{
	struct hwp_module_files *f = s->f;
	uint8_t id[HWP_BUILD_ID_MAX];
	size_t n;
	Elf *e;

	s->tried++;
	e = hwp__elf_open(cand);
	if (!e)
		return 0;
	n = hwp__elf_build_id(e, id);
	if (s->want_size && !hwp__build_id_equal(id, n, s->want, s->want_size)) {
		note_stale(s, cand, id, n);
		elf_end(e);
		return 0;
	}
	if (elf_is_debug_only(e)) {
		/* A debug file where a binary was expected: good for DWARF and symbols. */
		if (!f->debug && elf_has_dwarf(e))
			take_debug(s, e, cand);
		else
			elf_end(e);
		return 0;
	}
	f->elf = e;
	f->elf_path = strdup(cand);
	if (!f->elf_path) {
		elf_end(e);
		f->elf = NULL;
		return 0;
	}
	memcpy(f->build_id, id, n);
	f->build_id_size = (uint8_t)n;
	f->elf_has_dwarf = elf_has_dwarf(e);
	return 1;
}

/* 1: CAND holds the DWARF (taken), 0: not it. CRC: debuglink's, or NULL. */
static int try_debug(struct search *s, const char *cand, const uint32_t *crc)
{
	uint8_t id[HWP_BUILD_ID_MAX];
	const uint8_t *want;
	size_t n, wn;
	Elf *e;

	if (s->f->elf_path && !strcmp(cand, s->f->elf_path))
		return 0;
	s->tried++;
	e = hwp__elf_open(cand);
	if (!e)
		return 0;
	n = hwp__elf_build_id(e, id);
	want = expected_id(s, &wn);
	if (wn && n ? !hwp__build_id_equal(id, n, want, wn)
		    : (crc ? !crc_matches(e, *crc) : (wn && !n))) {
		note_stale(s, cand, id, n);
		elf_end(e);
		return 0;
	}
	if (!elf_has_dwarf(e)) {
		elf_end(e);
		return 0;
	}
	take_debug(s, e, cand);
	return 1;
}

static int try_joined(struct search *s, const char *a, const char *b, bool binary,
		      const uint32_t *crc, int *found)
{
	char *p = join(a, b);

	if (!p)
		return -ENOMEM;
	*found = binary ? try_binary(s, p) : try_debug(s, p, crc);
	free(p);
	return 0;
}

#define TRY(a, b, binary, crc)                                             \
	do {                                                               \
		int err_ = try_joined(s, (a), (b), (binary), (crc), &found); \
		if (err_)                                                  \
			return err_;                                       \
		if (found)                                                 \
			return 0;                                          \
	} while (0)

static int find_binary(struct search *s)
{
	const struct hwp_find_ctx *ctx = s->ctx;
	char rel[128];
	int found = 0;

	for (size_t d = 0; d < ctx->n_debug_dirs; d++) {
		const char *dir = ctx->debug_dirs[d];

		for (int h = 0; h < s->nhex; h++) {
			const char *hex = s->hex[h];

			snprintf(rel, sizeof(rel), ".build-id/%.2s/%s", hex, hex + 2);
			TRY(dir, rel, true, NULL);
			snprintf(rel, sizeof(rel), ".build-id/%.2s/%s/elf", hex, hex + 2);
			TRY(dir, rel, true, NULL);
			snprintf(rel, sizeof(rel), ".build-id/%.2s/%s/vdso", hex, hex + 2);
			TRY(dir, rel, true, NULL);
			if (s->path[0] == '/' || s->path[0] == '[') {
				char *p;

				/* perf keeps the vDSO as [vdso]/<build-id>/vdso */
				if (asprintf(&p, "%s/%s/%s", s->path, hex,
					     s->path[0] == '[' ? "vdso" : "elf") < 0)
					return -ENOMEM;
				int err = try_joined(s, dir, p, true, NULL, &found);

				free(p);
				if (err)
					return err;
				if (found)
					return 0;
			}
		}
	}
	if (s->path[0] == '[') /* [vdso] and friends: only in the cache */
		return 0;
	if (ctx->symfs && ctx->symfs[0]) {
		const char *base = strrchr(s->path, '/');

		TRY(ctx->symfs, s->path, true, NULL);
		/* A flat --symfs directory: only when the build-id can vouch for it. */
		if (s->want_size && base && base != s->path)
			TRY(ctx->symfs, base + 1, true, NULL);
	} else {
		found = try_binary(s, s->path);
	}
	return 0;
}

static int dir_of(const char *path, char **out)
{
	const char *slash = strrchr(path, '/');

	*out = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	return *out ? 0 : -ENOMEM;
}

static int find_debug(struct search *s)
{
	const struct hwp_find_ctx *ctx = s->ctx;
	struct hwp_module_files *f = s->f;
	char rel[128];
	char hex[2][2 * HWP_BUILD_ID_MAX + 1];
	int nhex = s->nhex, found = 0, err;
	GElf_Word crc = 0;
	const char *link = NULL;

	memcpy(hex, s->hex, sizeof(hex));
	if (!s->want_size && f->build_id_size) { /* the binary's own build-id */
		hwp__build_id_hex(f->build_id, f->build_id_size, hex[0]);
		nhex = 1;
	}
	for (size_t d = 0; d < ctx->n_debug_dirs; d++) {
		for (int h = 0; h < nhex; h++) {
			snprintf(rel, sizeof(rel), ".build-id/%.2s/%s.debug", hex[h], hex[h] + 2);
			TRY(ctx->debug_dirs[d], rel, false, NULL);
			snprintf(rel, sizeof(rel), ".build-id/%.2s/%s/debug", hex[h], hex[h] + 2);
			TRY(ctx->debug_dirs[d], rel, false, NULL);
		}
	}
	if (f->elf)
		link = dwelf_elf_gnu_debuglink(f->elf, &crc);
	if (link && *link && !strchr(link, '/')) {
		char *bindir, *origdir, *p;

		if ((err = dir_of(f->elf_path, &bindir)))
			return err;
		if ((err = dir_of(s->path, &origdir))) {
			free(bindir);
			return err;
		}
		err = try_joined(s, bindir, link, false, &crc, &found);
		if (!err && !found && asprintf(&p, ".debug/%s", link) >= 0) {
			err = try_joined(s, bindir, p, false, &crc, &found);
			free(p);
		}
		for (size_t d = 0; !err && !found && d < ctx->n_debug_dirs; d++) {
			if (asprintf(&p, "%s/%s", origdir, link) < 0) {
				err = -ENOMEM;
				break;
			}
			err = try_joined(s, ctx->debug_dirs[d], p, false, &crc, &found);
			free(p);
		}
		free(bindir);
		free(origdir);
		if (err || found)
			return err;
	}
	if (s->path[0] != '/')
		return 0;
	for (size_t d = 0; d < ctx->n_debug_dirs; d++) {
		char *p;

		for (int h = 0; h < nhex; h++) {
			if (asprintf(&p, "%s/%s/debug", s->path, hex[h]) < 0)
				return -ENOMEM;
			err = try_joined(s, ctx->debug_dirs[d], p, false, NULL, &found);
			free(p);
			if (err || found)
				return err;
		}
		if (asprintf(&p, "%s.debug", s->path) < 0)
			return -ENOMEM;
		err = try_joined(s, ctx->debug_dirs[d], p, false, NULL, &found);
		free(p);
		if (err || found)
			return err;
		/* DIR/PATH: but not the binary itself when DIR is "/" */
		TRY(ctx->debug_dirs[d], s->path, false, NULL);
	}
	return 0;
}

int hwp__module_files_find(const struct hwp_find_ctx *ctx, const char *path,
			   const uint8_t *build_id, uint8_t build_id_size,
			   struct hwp_module_files *f)
{
	struct search s = { .ctx = ctx, .f = f, .path = path };
	char want_hex[2 * HWP_BUILD_ID_MAX + 1] = "";
	int err;

	memset(f, 0, sizeof(*f));
	if (elf_version(EV_CURRENT) == EV_NONE) {
		f->status = HWP_FIND_UNSUPPORTED;
		snprintf(f->reason, sizeof(f->reason), "libelf: %s", elf_errmsg(-1));
		return 0;
	}
	if (build_id && build_id_size) {
		size_t c;

		s.want_size = build_id_size > HWP_BUILD_ID_MAX ? HWP_BUILD_ID_MAX : build_id_size;
		memcpy(s.want, build_id, s.want_size);
		c = hwp__build_id_canonical_size(s.want, s.want_size);
		if (c) {
			hwp__build_id_hex(s.want, c, s.hex[0]);
			s.nhex = 1;
			if (c != s.want_size) /* perf's cache of an old, padded recording */
				hwp__build_id_hex(s.want, s.want_size, s.hex[s.nhex++]);
			strcpy(want_hex, s.hex[0]);
		} else {
			s.want_size = 0; /* all zero: no build-id */
		}
	}
	err = find_binary(&s);
	if (!err && (!f->elf || !f->elf_has_dwarf) && !f->debug)
		err = find_debug(&s);
	if (err) {
		hwp__module_files_release(f);
		return err;
	}
	if (f->elf || f->debug) {
		f->status = HWP_FIND_OK;
		f->debug_only = !f->elf;
		if (f->debug_only) {
			f->build_id_size = (uint8_t)hwp__elf_build_id(f->debug, f->build_id);
		}
		return 0;
	}
	if (s.stale[0]) {
		f->status = HWP_FIND_STALE;
		snprintf(f->reason, sizeof(f->reason), "%s, recorded %s", s.stale,
			 s.want_size ? want_hex : "none");
	} else {
		f->status = HWP_FIND_NOT_FOUND;
		if (s.want_size)
			snprintf(f->reason, sizeof(f->reason), "no file with build-id %s", want_hex);
		else
			snprintf(f->reason, sizeof(f->reason), "not found");
	}
	return 0;
}

void hwp__module_files_release(struct hwp_module_files *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->debug)
		elf_end(f->debug);
	free(f->elf_path);
	free(f->debug_path);
	f->elf = f->debug = NULL;
	f->elf_path = f->debug_path = NULL;
}

#else /* !HAVE_LIBDW */

int hwp__module_files_find(const struct hwp_find_ctx *ctx, const char *path,
			   const uint8_t *build_id, uint8_t build_id_size,
			   struct hwp_module_files *f)
{
	(void)ctx;
	(void)path;
	(void)build_id;
	(void)build_id_size;
	memset(f, 0, sizeof(*f));
	f->status = HWP_FIND_UNSUPPORTED;
	snprintf(f->reason, sizeof(f->reason),
		 "built without elfutils (install libelf-dev and libdw-dev, then rebuild)");
	return 0;
}

void hwp__module_files_release(struct hwp_module_files *f)
{
	memset(f, 0, sizeof(*f));
}

struct Elf *hwp__elf_open(const char *path)
{
	(void)path;
	return NULL;
}

size_t hwp__elf_build_id(struct Elf *e, uint8_t *out)
{
	(void)e;
	(void)out;
	return 0;
}

#endif
