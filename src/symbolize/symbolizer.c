/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer: modules (by build-id, else path), loaded on first use;
 * a cache of every resolved (module, offset); the list of what is missing.
 * The work is done by build_id_lookup.c (finding files), elf_module.c
 * (ELF/DWARF), kallsyms.c (kernel) and demangle.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/symbolize.h"
#include "decode/insn_starts.h"
#include "symbolize/build_id_lookup.h"
#include "symbolize/demangle.h"
#include "symbolize/elf_module.h"
#include "symbolize/jit_module.h"
#include "symbolize/jit_sources.h"
#include "symbolize/kallsyms.h"
#include "symbolize/kmod_file.h"
#include "symbolize/kmod_image.h"
#include "hwprof/maps.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/opts.h"
#include "util/vec.h"
#include "symbolize/maps_internal.h"
#include "symbolize/symbolizer_internal.h"
#include "util/error.h"

#define KERNEL_NAME "[kernel.kallsyms]"

enum module_state { M_NEW, M_OK, M_FAILED };

struct module {
	char *path;
	const char *short_name;
	char *key;
	uint8_t bid[HWP_BUILD_ID_MAX];
	uint8_t bid_size;
	char bid_hex[2 * HWP_BUILD_ID_MAX + 1];
	char file_bid_hex[2 * HWP_BUILD_ID_MAX + 1]; /* the found file's own */
	bool kernel; /* the kernel or one of its modules: symbols from kallsyms */
	bool kmod;   /* a kernel module ("[name]" as perf shows it, in kname) */
	char *kname;
	uint64_t kbase;              /* a kernel module's load address (its first MMAP's start) */
	bool kbase_set;              /* (the first one kept, 0 too: as a parallel pass keeps it) */
	struct hwp__kmod_file *ko;   /* its .ko's symbols, when found (else kallsyms') */
	bool pseudo; /* anonymous memory, [vdso], ...: never reported missing */
	enum module_state state;
	int err;
	enum hwp_missing_kind kind; /* FAILED, or OK without DWARF */
	bool no_debug;
	char *reason;
	struct hwp_elf_module *elf;
	struct hwp__code_file *code; /* hwp__symbolizer_code_file()'s */
	bool code_tried;
	/* JIT-compiled code (jit_module.c): a perf map's symbols, or a
	   jitdump's code load (perf inject's "jitted-PID-N.so") */
	const struct hwp__perf_map *pmap;
	const struct hwp__jit_code *jit;
	unsigned jit_mach; /* the dump's ELF machine */
};

struct cache_ent {
	uint64_t off;
	int32_t module;
	struct hwp_symbol_info info;
};

struct dem_ent {
	const char *raw;  /* a symbol table's string: keyed by address */
	const char *name; /* HWP_DEMANGLE_NAME, what perf prints */
	const char *full; /* HWP_DEMANGLE_FULL */
};

struct hwp_symbolizer {
	struct hwp_symbolizer_opts o;
	char *symfs;
	char *kallsyms_path;
	char **dirs;
	size_t ndirs;

	struct module *mods;
	size_t nmods, capmods;
	struct hwp_hashmap mod_map; /* on module key */
	int kernel_id;
	uint8_t kbid[HWP_BUILD_ID_MAX];
	uint8_t kbid_size;
	struct hwp_kallsyms *ksyms;

	/* every resolved (module, offset), and every demangled name */
	struct cache_ent *cache;
	size_t cache_n, cache_cap;
	struct hwp_hashmap cache_map;
	struct dem_ent *dem;
	size_t dem_n, dem_cap;
	struct hwp_hashmap dem_map;

	struct hwp_arena arena;
	struct hwp_src_result src;
	struct hwp_symbolizer_stats st;
	struct hwp__jit_sources *jit; /* perf maps and jitdumps; made on first need */
};

static struct module *loaded(struct hwp_symbolizer *s, int module, int *err);

/* ---- small helpers ---- */

static char *arena_strdup(struct hwp_arena *a, const char *s)
{
	return hwp__arena_strndup(a, s, strlen(s));
}

static bool is_pseudo_name(const char *p)
{
	return p[0] == '[' || hwp__map_name_is_identity(p, 0) || !strncmp(p, "/memfd:", 7) ||
	       !strcmp(p, "//anon") || !strncmp(p, "[anon", 5);
}

/* ---- construction ---- */

static int add_dir(struct hwp_symbolizer *s, const char *a, const char *b)
{
	char **v = realloc(s->dirs, (s->ndirs + 1) * sizeof(*v));
	char *d;

	if (!v)
		return -ENOMEM;
	s->dirs = v;
	if (asprintf(&d, "%s%s", a, b ? b : "") < 0)
		return -ENOMEM;
	s->dirs[s->ndirs++] = d;
	return 0;
}

static int setup_dirs(struct hwp_symbolizer *s)
{
	int err = 0;

	if (s->o.debug_dirs) {
		const char *p = s->o.debug_dirs;

		while (*p && !err) {
			size_t n = strcspn(p, ":");

			if (n) {
				char *d = strndup(p, n);

				if (!d)
					return -ENOMEM;
				err = add_dir(s, d, NULL);
				free(d);
			}
			p += n;
			if (*p == ':')
				p++;
		}
		return err;
	}
	const char *cache = getenv("PERF_BUILDID_DIR");
	const char *home = getenv("HOME");

	if (cache && *cache)
		err = add_dir(s, cache, NULL);
	else if (home && *home)
		err = add_dir(s, home, "/.debug");
	if (!err)
		err = add_dir(s, s->symfs ? s->symfs : "", "/usr/lib/debug");
	return err;
}

struct hwp_symbolizer *hwp_symbolizer__new(const struct hwp_symbolizer_opts *opts)
{
	struct hwp_symbolizer *s = calloc(1, sizeof(*s));

	if (!s) {
		hwp__set_error(ENOMEM, "out of memory making the symbolizer");
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &s->o, struct hwp_symbolizer_opts)) {
		free(s);
		errno = EINVAL;
		return NULL;
	}
	s->kernel_id = -1;
	if ((s->o.symfs && s->o.symfs[0] && !(s->symfs = strdup(s->o.symfs))) ||
	    (s->o.kallsyms && !(s->kallsyms_path = strdup(s->o.kallsyms))) || setup_dirs(s)) {
		hwp_symbolizer__delete(s);
		hwp__set_error(ENOMEM, "out of memory making the symbolizer (symfs, kallsyms and debug directories)");
		return NULL;
	}
	/* the caller's strings need not outlive this call */
	s->o.symfs = s->symfs;
	s->o.kallsyms = s->kallsyms_path;
	s->o.debug_dirs = NULL;
	return s;
}

void hwp_symbolizer__delete(struct hwp_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmods; i++) {
		free(s->mods[i].path);
		free(s->mods[i].key);
		free(s->mods[i].reason);
		free(s->mods[i].kname);
		hwp__kmod_file_delete(s->mods[i].ko);
		hwp__elf_module_delete(s->mods[i].elf);
		hwp__code_file_close(s->mods[i].code);
	}
	for (size_t i = 0; i < s->ndirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
	free(s->mods);
	hwp__hashmap_free(&s->mod_map);
	free(s->cache);
	hwp__hashmap_free(&s->cache_map);
	free(s->dem);
	hwp__hashmap_free(&s->dem_map);
	free(s->symfs);
	free(s->kallsyms_path);
	free(s->src.frames);
	hwp__jit_sources_put(s->jit);
	hwp__kallsyms_delete(s->ksyms);
	hwp__arena_free(&s->arena);
	free(s);
}

/* ---- module registry ---- */

static int module_oom(const char *path)
{
	return hwp__set_error(ENOMEM, "symbolizer: out of memory registering %s", path);
}

/* The key a module is registered under (*KEY, malloc'd; *CANON: the build
   id's canonical size, 0 without one); the id of the module registered
   under it, -ENOENT when none is, or -ENOMEM. */
static int find_key(const struct hwp_symbolizer *s, const char *path, const uint8_t *bid, uint8_t bid_size,
		    bool kernel, char **key, size_t *canon)
{
	char hex[2 * HWP_BUILD_ID_MAX + 1];
	uint32_t i;

	*key = NULL;
	*canon = 0;
	if (bid && bid_size) {
		if (bid_size > HWP_BUILD_ID_MAX)
			bid_size = HWP_BUILD_ID_MAX;
		*canon = hwp__build_id_canonical_size(bid, bid_size);
	}
	if (*canon) {
		hwp__build_id_hex(bid, *canon, hex);
		if (asprintf(key, "b:%s", hex) < 0)
			return module_oom(path);
	} else if (asprintf(key, "%s:%s", kernel ? "k" : "p", path) < 0) {
		return module_oom(path);
	}
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&s->mod_map, hwp__hash_str(*key));

	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(s->mods[i].key, *key))
			return (int)i;
	return -ENOENT;
}

void hwp__symbolizer_find_ctx(const struct hwp_symbolizer *s, struct hwp_find_ctx *ctx)
{
	ctx->symfs = s->symfs;
	ctx->debug_dirs = (const char *const *)s->dirs;
	ctx->n_debug_dirs = s->ndirs;
}

int hwp__symbolizer_module_find(const struct hwp_symbolizer *s, const char *path, const uint8_t *build_id,
				uint8_t build_id_size, bool kmod, char **key)
{
	size_t canon;
	int id;

	*key = NULL;
	if (!s || !path || !*path)
		return -EINVAL;
	if (!strcmp(path, KERNEL_NAME))
		return s->kernel_id >= 0 ? s->kernel_id : -EINVAL;
	id = find_key(s, path, build_id, build_id_size, kmod, key, &canon);
	if (id != -ENOENT) {
		free(*key);
		*key = NULL;
	}
	return id;
}

/* perf's name for the kernel module at PATH: "[name]", the file's name
   without ".ko" and its compression suffix, '-' as '_' (kmod_path__parse). */
static char *kmod_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *n;

	base = base ? base + 1 : path;
	if (base[0] == '[')
		return strdup(base);
	size_t len = strcspn(base, ".");
	if (asprintf(&n, "[%.*s]", (int)len, base) < 0)
		return NULL;
	for (char *c = n; *c; c++)
		if (*c == '-')
			*c = '_';
	return n;
}

static int find_or_add(struct hwp_symbolizer *s, const char *path, const uint8_t *bid,
		       uint8_t bid_size, bool kernel)
{
	char *key;
	size_t canon;
	struct module *m;
	int id = find_key(s, path, bid, bid_size, kernel, &key, &canon);

	if (bid_size > HWP_BUILD_ID_MAX)
		bid_size = HWP_BUILD_ID_MAX;
	if (id != -ENOENT) {
		free(key);
		return id;
	}
	uint64_t h = hwp__hash_str(key);
	if (s->nmods == INT32_MAX) {
		free(key);
		return hwp__set_error(EOVERFLOW, "symbolizer: cannot register %s: %zu modules already", path,
				      s->nmods);
	}
	m = HWP_VEC_PUSH(s->mods, s->nmods, s->capmods);
	if (!m || !(m->path = strdup(path)) || hwp__hashmap_add(&s->mod_map, h, s->nmods - 1)) {
		if (m) {
			free(m->path);
			s->nmods--;
		}
		free(key);
		return module_oom(path);
	}
	m->key = key;
	if (canon) {
		memcpy(m->bid, bid, bid_size);
		m->bid_size = bid_size;
		hwp__build_id_hex(bid, canon, m->bid_hex);
	}
	m->kernel = kernel;
	/* a missing perf map is no missing binary: perf says nothing of it either */
	m->pseudo = !kernel && (is_pseudo_name(path) || hwp__perf_map_path(path, NULL));
	m->kmod = kernel && strcmp(path, KERNEL_NAME);
	char jit_name[64];
	if (m->kmod && !(m->kname = kmod_name(path))) {
		m->kmod = false;
		m->short_name = KERNEL_NAME; /* (out of memory: named as the kernel) */
	} else if (m->kmod) {
		m->short_name = m->kname;
	} else if (kernel) {
		m->short_name = KERNEL_NAME;
	} else if (hwp__perf_map_short_name(path, jit_name, sizeof(jit_name))) {
		m->short_name = arena_strdup(&s->arena, jit_name);
		if (!m->short_name)
			m->short_name = m->path;
	} else {
		const char *slash = strrchr(m->path, '/');

		m->short_name = slash && slash[1] && m->path[0] != '[' ? slash + 1 : m->path;
	}
	s->st.modules++;
	return (int)(s->nmods - 1);
}

int hwp_symbolizer__module(struct hwp_symbolizer *s, const char *path, const uint8_t *build_id,
			   uint8_t build_id_size)
{
	if (!s)
		return hwp__set_error(EINVAL, "symbolizer: none given for module %s", path ? path : "(null)");
	if (!path || !*path)
		return hwp__set_error(EINVAL, "symbolizer: module without a path");
	if (!strcmp(path, KERNEL_NAME))
		return hwp_symbolizer__kernel_module(s);
	return find_or_add(s, path, build_id, build_id_size, false);
}

int hwp__symbolizer_kernel_module_file(struct hwp_symbolizer *s, const char *path, const uint8_t *build_id,
					uint8_t build_id_size, uint64_t base)
{
	if (!s || !path || !*path)
		return hwp__set_error(EINVAL, "symbolizer: a kernel module without a path");
	if (!strcmp(path, KERNEL_NAME))
		return hwp_symbolizer__kernel_module(s);
	int id = find_or_add(s, path, build_id, build_id_size, true);

	if (id >= 0 && s->mods[id].kmod && !s->mods[id].kbase_set) {
		s->mods[id].kbase = base;
		s->mods[id].kbase_set = true;
	}
	return id;
}

int hwp_symbolizer__kernel_module(struct hwp_symbolizer *s)
{
	int id;

	if (!s)
		return hwp__set_error(EINVAL, "symbolizer: none given for the kernel module");
	if (s->kernel_id >= 0)
		return s->kernel_id;
	id = find_or_add(s, KERNEL_NAME, NULL, 0, true);
	if (id >= 0)
		s->kernel_id = id;
	return id;
}

int hwp_symbolizer__set_kernel_build_id(struct hwp_symbolizer *s, const uint8_t *build_id,
					uint8_t build_id_size)
{
	int id = hwp_symbolizer__kernel_module(s);
	struct module *m;

	if (id < 0)
		return id;
	m = &s->mods[id];
	if (m->state != M_NEW)
		return hwp__set_error(EBUSY, "symbolizer: kernel build-id set after first lookup");
	if (build_id_size > HWP_BUILD_ID_MAX)
		build_id_size = HWP_BUILD_ID_MAX;
	if (!build_id || !hwp__build_id_canonical_size(build_id, build_id_size)) {
		m->bid_size = 0;
		m->bid_hex[0] = 0;
		return 0;
	}
	memcpy(m->bid, build_id, build_id_size);
	m->bid_size = build_id_size;
	hwp__build_id_hex(build_id, hwp__build_id_canonical_size(build_id, build_id_size),
			  m->bid_hex);
	return 0;
}

static struct module *get_module(const struct hwp_symbolizer *s, int module)
{
	if (!s || module < 0 || (size_t)module >= s->nmods)
		return NULL;
	return &s->mods[module];
}

/* The message for a module id get_module() does not know. */
static void no_module(const struct hwp_symbolizer *s, int module)
{
	if (!s)
		hwp__set_error(EINVAL, "symbolizer: none given (module id %d)", module);
	else
		hwp__set_error(EINVAL, "symbolizer: module id %d is not registered (%zu modules)", module,
			       s->nmods);
}

struct hwp__code_file *hwp__symbolizer_code_file(struct hwp_symbolizer *s, int id)
{
	if (!s || id < 0 || (size_t)id >= s->nmods)
		return NULL;
	struct module *m = &s->mods[id];
	if (!m->code_tried) {
		m->code = hwp__symbolizer_open_code(s, id);
		m = &s->mods[id]; /* (finding the file registers nothing, but stay safe) */
		m->code_tried = true;
	}
	return m->code;
}

struct hwp__code_file *hwp__symbolizer_open_code(struct hwp_symbolizer *s, int id)
{
	int err;
	struct module *m = loaded(s, id, &err);

	if (m && m->jit) {
		struct hwp__code_file *f = hwp__code_file_open_mem(m->jit->code, m->jit->code_size,
								   HWP_JIT_TEXT_OFFSET, m->jit_mach);
		if (!f)
			hwp__set_error(ENOMEM, "%s: out of memory copying %" PRIu64 " bytes of JIT code", m->path,
				       m->jit->code_size);
		return f;
	}
	const char *path = hwp_symbolizer__module_file(s, id);
	struct hwp__code_file *f = path ? hwp__code_file_open(path) : NULL;

	if (path && !f)
		hwp__set_error(errno ? errno : EINVAL, "%s: cannot read it as an ELF file", path);
	return f;
}

int hwp__symbolizer_module_identity(const struct hwp_symbolizer *s, int id, const char **path,
				    const uint8_t **bid, uint8_t *n, bool *kernel)
{
	if (!s || id < 0 || (size_t)id >= s->nmods)
		return -ENOENT;
	const struct module *m = &s->mods[id];
	*path = m->path;
	*bid = m->bid_size ? m->bid : NULL;
	*n = m->bid_size;
	*kernel = m->kernel;
	return 0;
}

const char *hwp_symbolizer__module_name(const struct hwp_symbolizer *s, int module)
{
	struct module *m = get_module(s, module);

	if (!m) {
		no_module(s, module);
		return NULL;
	}
	return m->path;
}

const char *hwp_symbolizer__module_short_name(const struct hwp_symbolizer *s, int module)
{
	struct module *m = get_module(s, module);

	if (!m) {
		no_module(s, module);
		return NULL;
	}
	return m->short_name;
}

/* The recorded build-id, else (once looked up) the found file's own: what
   a machine-readable report joins on. */
const char *hwp_symbolizer__module_build_id(const struct hwp_symbolizer *s, int module)
{
	struct module *m = get_module(s, module);

	if (!m) {
		no_module(s, module);
		return NULL;
	}
	if (m->bid_size)
		return m->bid_hex;
	return m->file_bid_hex[0] ? m->file_bid_hex : NULL;
}

/* ---- loading ---- */

static void fail(struct module *m, int err, enum hwp_missing_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void fail(struct module *m, int err, enum hwp_missing_kind kind, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hwp__log(HWP_LOG_INFO, "%s: no symbols: %s", m->path, buf);
	free(m->reason);
	m->reason = strdup(buf);
	m->state = M_FAILED;
	m->err = err;
	m->kind = kind;
}

static void load_kernel(struct hwp_symbolizer *s, struct module *m)
{
	char reason[384] = "";
	char path[4096];
	uint8_t running[HWP_BUILD_ID_MAX];
	size_t nrun;
	int err;

	if (s->o.no_kernel) {
		fail(m, -ENOTSUP, HWP_MISSING_KERNEL, "kernel symbols not requested");
		return;
	}
	/* perf's cache: DIR/[kernel.kallsyms]/<build-id>/kallsyms (also under the
	   zero-padded spelling an old recording's perf used) */
	char hexes[2][2 * HWP_BUILD_ID_MAX + 1];
	int nhex = 0;

	if (m->bid_size) {
		strcpy(hexes[nhex++], m->bid_hex);
		if (strlen(m->bid_hex) != 2u * m->bid_size)
			hwp__build_id_hex(m->bid, m->bid_size, hexes[nhex++]);
	}
	for (size_t d = 0; d < s->ndirs; d++) {
		for (int h = 0; h < nhex; h++) {
			snprintf(path, sizeof(path), "%s/" KERNEL_NAME "/%s/kallsyms", s->dirs[d],
				 hexes[h]);
			if (hwp__kallsyms_load(path, &s->ksyms, reason, sizeof(reason)) == 0)
				goto ok;
			snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/kallsyms", s->dirs[d],
				 hexes[h], hexes[h] + 2);
			if (hwp__kallsyms_load(path, &s->ksyms, reason, sizeof(reason)) == 0)
				goto ok;
		}
	}
	if (s->o.kallsyms) {
		snprintf(path, sizeof(path), "%s", s->o.kallsyms);
		err = hwp__kallsyms_load(s->o.kallsyms, &s->ksyms, reason, sizeof(reason));
	} else {
		nrun = hwp__kallsyms_running_build_id(running);
		if (m->bid_size && nrun && !hwp__build_id_equal(running, nrun, m->bid, m->bid_size)) {
			char hex[2 * HWP_BUILD_ID_MAX + 1];

			hwp__build_id_hex(running, nrun, hex);
			fail(m, -ESTALE, HWP_MISSING_STALE,
			     "recorded on another kernel (build-id %s, running %s): copy that "
			     "machine's /proc/kallsyms to ~/.debug/" KERNEL_NAME "/%s/kallsyms",
			     m->bid_hex, hex, m->bid_hex);
			return;
		}
		snprintf(path, sizeof(path), "/proc/kallsyms");
		err = hwp__kallsyms_load(path, &s->ksyms, reason, sizeof(reason));
	}
	if (err) {
		fail(m, err, HWP_MISSING_KERNEL, "%s", reason);
		return;
	}
ok:
	hwp__log(HWP_LOG_INFO, KERNEL_NAME ": symbols from %s", path);
	m->state = M_OK;
	s->st.modules_loaded++;
}

/* A compressed module's file: its recorded path (under --symfs), else its
   name in --symfs. True when its symbols were read. */
static bool load_compressed_ko(struct hwp_symbolizer *s, struct module *m)
{
	const char *base = strrchr(m->path, '/');
	char file[2][4096], reason[512] = "";
	int n = 0, err = -ENOENT;

	snprintf(file[n++], sizeof(file[0]), "%s%s", s->symfs ? s->symfs : "", m->path);
	if (s->symfs && base)
		snprintf(file[n++], sizeof(file[0]), "%s%s", s->symfs, base);
	int i = 0;

	for (; i < n && err == -ENOENT; i++)
		err = hwp__kmod_file_open_compressed(file[i], m->bid_size ? m->bid : NULL, m->bid_size, m->kbase,
						     &m->ko, reason, sizeof(reason));
	if (err) {
		hwp__log(HWP_LOG_INFO, "%s: no usable .ko (%s): symbols from kallsyms", m->path, reason);
		return false;
	}
	hwp__log(HWP_LOG_INFO, "%s: symbols from %s, decompressed (%zu in .text, loaded at 0x%" PRIx64 ")",
		 m->path, file[i - 1], hwp__kmod_file_count(m->ko), m->kbase);
	return true;
}

/* The module's own .ko (under --symfs, in a build-id cache), as perf reads
   it when it finds one: true when its symbols were read. A compressed or
   stale file, or one without symbols, is said (-v) and not used. */
static bool load_ko(struct hwp_symbolizer *s, struct module *m)
{
	struct hwp_find_ctx ctx;
	struct hwp_module_files f;
	char reason[384];

	if (!m->kbase || s->o.no_kernel)
		return false;
	if (hwp__kmod_compressed(m->path))
		return load_compressed_ko(s, m);
	hwp__symbolizer_find_ctx(s, &ctx);
	if (hwp__module_files_find(&ctx, m->path, m->bid_size ? m->bid : NULL, m->bid_size, &f) < 0)
		return false;
	if (f.status != HWP_FIND_OK || !f.elf) {
		hwp__log(HWP_LOG_INFO, "%s: no usable .ko (%s): symbols from kallsyms", m->path,
			 f.status == HWP_FIND_OK ? "a debug file alone" : f.reason);
		hwp__module_files_release(&f);
		return false;
	}
	struct Elf *e = f.elf;
	char *file = f.elf_path;
	int err;

	f.elf = NULL;
	f.elf_path = NULL;
	hwp__module_files_release(&f);
	err = hwp__kmod_file_new(e, NULL, m->kbase, &m->ko, reason, sizeof(reason));
	if (err)
		hwp__log(HWP_LOG_INFO, "%s: %s: %s: symbols from kallsyms", m->path, file, reason);
	else
		hwp__log(HWP_LOG_INFO, "%s: symbols from %s (%zu in .text, loaded at 0x%" PRIx64 ")", m->path,
			 file, hwp__kmod_file_count(m->ko), m->kbase);
	free(file);
	return !err;
}

uint64_t hwp__symbolizer_perf_address(struct hwp_symbolizer *s, int id, uint64_t offset)
{
	int err;

	if (!s || id < 0 || (size_t)id >= s->nmods)
		return offset;
	/* (loaded first: whether its .ko was read moves perf's map) */
	const struct module *m = loaded(s, id, &err);
	if (!m)
		m = &s->mods[id];

	if (!m->kmod || !m->kbase || offset < m->kbase)
		return offset;
	return offset - m->kbase + (m->ko ? hwp__kmod_file_text_offset(m->ko) : 0);
}

/* A kernel module's symbols: its .ko's when found, else kallsyms' (tagged
   with its name), as perf splits them when it has no .ko: loaded with the
   kernel's. */
static void load_kmod(struct hwp_symbolizer *s, struct module *m)
{
	if (load_ko(s, m)) {
		m->state = M_OK;
		s->st.modules_loaded++;
		return;
	}
	size_t idx = (size_t)(m - s->mods);
	int err, kid = hwp_symbolizer__kernel_module(s);
	bool ok = kid >= 0 && loaded(s, kid, &err);

	m = &s->mods[idx]; /* (registering the kernel may have moved the modules) */
	if (kid < 0) {
		fail(m, kid, HWP_MISSING_KERNEL, "no kernel module");
	} else if (!ok) {
		const struct module *k = &s->mods[kid];

		fail(m, k->err, HWP_MISSING_KERNEL, "%s", k->reason ? k->reason : "no kernel symbols");
	} else {
		m->state = M_OK;
	}
}

/* The shared perf maps and jitdumps (the session's), or this symbolizer's own. */
static struct hwp__jit_sources *jit_sources(struct hwp_symbolizer *s)
{
	if (!s->jit)
		s->jit = hwp__jit_sources_new(s->symfs);
	return s->jit;
}

void hwp__symbolizer_set_jit_sources(struct hwp_symbolizer *s, struct hwp__jit_sources *js)
{
	hwp__jit_sources_put(s->jit);
	s->jit = hwp__jit_sources_get(js);
}

/* JIT-compiled code: a perf map, or a code load of a jitdump read by this
   symbolizer's sources. False when M is neither (an ELF file then). */
static bool load_jit(struct hwp_symbolizer *s, struct module *m)
{
	const struct hwp__jitdump *d = NULL;
	const char *why;

	if (hwp__perf_map_path(m->path, NULL)) {
		if (!(m->pmap = hwp__jit_sources_perf_map(jit_sources(s), m->path, &why))) {
			fail(m, -ENOENT, HWP_MISSING_BINARY, "%s", why);
			return true;
		}
	} else if ((m->jit = hwp__jit_sources_code(s->jit, m->path, &d))) {
		m->jit_mach = d->elf_mach;
		m->pseudo = true; /* thousands of them, none with DWARF: never "missing" */
	} else {
		return false;
	}
	m->state = M_OK;
	s->st.modules_loaded++;
	return true;
}

static void load_module(struct hwp_symbolizer *s, struct module *m)
{
	struct hwp_find_ctx ctx = { .symfs = s->symfs,
				    .debug_dirs = (const char *const *)s->dirs,
				    .n_debug_dirs = s->ndirs };
	struct hwp_module_files f;
	char reason[384];
	int err;

	if (m->kmod) {
		load_kmod(s, m);
		return;
	}
	if (m->kernel) {
		load_kernel(s, m);
		return;
	}
	if (load_jit(s, m))
		return;
	if (m->pseudo && !m->bid_size) {
		fail(m, -ENOENT, HWP_MISSING_BINARY, "not a file");
		return;
	}
	err = hwp__module_files_find(&ctx, m->path, m->bid_size ? m->bid : NULL, m->bid_size, &f);
	if (err) {
		fail(m, err, HWP_MISSING_BINARY, "%s", strerror(-err));
		return;
	}
	switch (f.status) {
	case HWP_FIND_OK:
		break;
	case HWP_FIND_STALE:
		fail(m, -ESTALE, HWP_MISSING_STALE, "%s", f.reason);
		return;
	case HWP_FIND_UNSUPPORTED:
		fail(m, -ENOTSUP, HWP_MISSING_UNSUPPORTED, "%s", f.reason);
		return;
	default:
		fail(m, -ENOENT, HWP_MISSING_BINARY, "%s", f.reason);
		return;
	}
	hwp__build_id_hex(f.build_id, f.build_id_size, m->file_bid_hex);
	hwp__log(HWP_LOG_INFO, "%s: symbols from %s%s%s", m->path, f.elf_path ? f.elf_path : f.debug_path,
		 f.debug_path && f.elf_path ? ", debug info from " : "",
		 f.debug_path && f.elf_path ? f.debug_path : "");
	err = hwp__elf_module_new(&f, &ctx,
				  (s->o.all_plt ? HWP_ELF_ALL_PLT : 0) | (s->o.no_demangle ? 0 : HWP_ELF_DEMANGLE),
				  &m->elf, reason, sizeof(reason));
	hwp__module_files_release(&f);
	if (err) {
		fail(m, err, err == -ENOTSUP ? HWP_MISSING_UNSUPPORTED : HWP_MISSING_BINARY, "%s",
		     reason);
		return;
	}
	m->state = M_OK;
	s->st.modules_loaded++;
	if (!hwp__elf_module_has_dwarf(m->elf)) {
		m->no_debug = true;
		m->kind = HWP_MISSING_DEBUG_INFO;
		free(m->reason);
		m->reason = strdup(hwp__elf_module_has_symtab(m->elf)
					   ? "no debug info"
					   : "no debug info, and stripped (exported symbols only)");
	}
}

static struct module *loaded(struct hwp_symbolizer *s, int module, int *err)
{
	struct module *m = get_module(s, module);

	if (!m) {
		no_module(s, module);
		*err = -EINVAL;
		return NULL;
	}
	if (m->state == M_NEW)
		load_module(s, m);
	if (m->state == M_FAILED) {
		int e = m->err < 0 ? -m->err : EIO;

		*err = hwp__set_error(e, "%s: %s", m->path, m->reason ? m->reason : strerror(e));
		return NULL;
	}
	return m;
}

struct hwp_elf_module *hwp__symbolizer_elf(struct hwp_symbolizer *s, int id)
{
	int err;
	struct module *m = loaded(s, id, &err);

	return m && !m->kernel && !m->pmap && !m->jit ? m->elf : NULL;
}

const char *hwp_symbolizer__module_file(struct hwp_symbolizer *s, int module)
{
	int err;
	struct module *m = loaded(s, module, &err);

	if (!m)
		return NULL;
	if (m->kernel) {
		hwp__set_error(ENOENT, "%s: the kernel has no ELF file here (its symbols come from kallsyms)",
			       m->path);
		return NULL;
	}
	if (m->pmap || m->jit) {
		hwp__set_error(ENOENT, "%s: JIT-compiled code, no file (%s)", m->path,
			       m->jit ? "its bytes come from the jitdump" : "a perf map has only names");
		return NULL;
	}
	return hwp__elf_module_path(m->elf);
}

int hwp_symbolizer__module_vaddr(struct hwp_symbolizer *s, int module, uint64_t offset,
				 uint64_t *vaddr)
{
	int err;
	struct module *m = loaded(s, module, &err);

	*vaddr = offset;
	if (!m)
		return err;
	if (m->kernel || m->pmap || m->jit)
		return 0; /* absolute addresses, or perf inject's image (file offset = address) */
	if (!hwp__elf_module_offset_to_vaddr(m->elf, offset, vaddr))
		return hwp__set_error(ERANGE, "%s: file offset 0x%" PRIx64 " is outside every loadable segment",
				      m->path, offset);
	return 0;
}

/* ---- demangling, once per distinct name ---- */

/* RAW demangled in FORM, copied into the arena; RAW when it does not demangle. */
static const char *demangle_copy(struct hwp_symbolizer *s, const char *raw, enum hwp_demangle_form form)
{
	char *d = hwp__demangle(raw, form);
	const char *res = d ? arena_strdup(&s->arena, d) : NULL;

	free(d);
	return res ? res : raw;
}

/* perf's name of RAW (*NAME) and its full signature (*FULL); both RAW when
   it is not mangled or demangling is off. Cached by RAW's address: it is a
   symbol table's or a DWARF string, which lives as long as its module. */
static void demangled(struct hwp_symbolizer *s, const char *raw, const char **name, const char **full)
{
	uint32_t i;

	*name = *full = raw;
	if (!raw || s->o.no_demangle || !hwp__demangle_is_mangled(raw))
		return;
	uint64_t h = hwp__hash64((uintptr_t)raw);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&s->dem_map, h);

	while (hwp__hashmap_next(&p, &i)) {
		if (s->dem[i].raw == raw) {
			*name = s->dem[i].name;
			*full = s->dem[i].full;
			return;
		}
	}
	*name = demangle_copy(s, raw, HWP_DEMANGLE_NAME);
	*full = demangle_copy(s, raw, HWP_DEMANGLE_FULL);
	struct dem_ent *e = HWP_VEC_PUSH(s->dem, s->dem_n, s->dem_cap);

	if (e && hwp__hashmap_add(&s->dem_map, h, s->dem_n - 1) == 0) {
		e->raw = raw;
		e->name = *name;
		e->full = *full;
	} else if (e) {
		s->dem_n--; /* not cached: demangled again next time */
	}
}

/* ---- the cache ---- */

static uint64_t cache_hash(int32_t module, uint64_t off)
{
	return hwp__hash_combine((uint32_t)module, off);
}

static struct cache_ent *cache_find(struct hwp_symbolizer *s, int32_t module, uint64_t off)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&s->cache_map, cache_hash(module, off));
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (s->cache[i].module == module && s->cache[i].off == off)
			return &s->cache[i];
	return NULL;
}

static int cache_insert(struct hwp_symbolizer *s, int32_t module, uint64_t off,
			const struct hwp_symbol_info *info)
{
	struct cache_ent *e = HWP_VEC_PUSH(s->cache, s->cache_n, s->cache_cap);

	if (!e)
		return -ENOMEM;
	if (hwp__hashmap_add(&s->cache_map, cache_hash(module, off), s->cache_n - 1)) {
		s->cache_n--;
		return -ENOMEM;
	}
	e->module = module;
	e->off = off;
	e->info = *info;
	return 0;
}

/* ---- lookup ---- */

/* KERNEL: perf leaves kernel (and kernel module) names as they are
   (symbol_conf.demangle_kernel is off by default), Rust ones included. */
static void fill_symbol(struct hwp_symbolizer *s, struct hwp_sym *sym, uint64_t addr, bool kernel,
			struct hwp_symbol_info *out)
{
	if (!sym)
		return;
	if (kernel)
		sym->demangled = sym->demangled_full = sym->name;
	else if (!sym->demangled)
		demangled(s, sym->name, &sym->demangled, &sym->demangled_full);
	out->symbol = sym->demangled;
	out->symbol_full = sym->demangled_full;
	out->symbol_raw = sym->name;
	out->sym_start = sym->start;
	out->sym_size = sym->end - sym->start;
	out->sym_offset = addr - sym->start;
}

static int resolve_elf(struct hwp_symbolizer *s, struct module *m, uint64_t offset,
		       struct hwp_symbol_info *out)
{
	struct hwp_src_result *r = &s->src;
	int ret;

	hwp__elf_module_offset_to_vaddr(m->elf, offset, &out->vaddr);
	fill_symbol(s, hwp__elf_module_find_symbol(m->elf, out->vaddr), out->vaddr, false, out);
	ret = hwp__elf_module_source(m->elf, out->vaddr, !s->o.no_inline, r);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return 0;
	out->file = r->file;
	out->line = r->line;
	if (r->n) {
		struct hwp_inline_frame *v = hwp__arena_alloc(&s->arena, r->n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < r->n; i++) {
			v[i].function = v[i].function_full = r->frames[i].function;
			if (r->frames[i].linkage)
				demangled(s, r->frames[i].function, &v[i].function, &v[i].function_full);
			v[i].file = r->frames[i].file;
			v[i].line = r->frames[i].line;
		}
		out->inlines = v;
		out->n_inline = r->n;
	}
	return 0;
}

/* The kallsyms symbol at OFFSET (an address) of M, the kernel or one of
   its modules: a module's are those kallsyms tags with its name, as perf
   splits kallsyms into its modules' maps. */
static struct hwp_sym *kernel_sym(struct hwp_symbolizer *s, const struct module *m, uint64_t offset)
{
	if (m->ko)
		return hwp__kmod_file_find(m->ko, offset);
	struct hwp_sym *sym = hwp__kallsyms_find(s->ksyms, offset);

	if (sym && m->kmod) {
		const char *mod = hwp__kallsyms_module_of(s->ksyms, sym);
		size_t n = strlen(m->kname) - 2; /* "[name]" */

		if (!mod || strlen(mod) != n || strncmp(mod, m->kname + 1, n))
			return NULL;
	}
	return sym;
}

int hwp_symbolizer__lookup(struct hwp_symbolizer *s, int module, uint64_t offset,
			   struct hwp_symbol_info *out)
{
	struct module *m;
	struct cache_ent *e;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!s)
		return hwp__set_error(EINVAL, "symbolizer: none given (module id %d, offset 0x%" PRIx64 ")",
				      module, offset);
	s->st.lookups++;
	m = loaded(s, module, &err);
	if (!m)
		return err;
	e = cache_find(s, module, offset);
	if (e) {
		s->st.cache_hits++;
		*out = e->info;
		return 0;
	}
	if (m->kernel) {
		out->vaddr = offset;
		fill_symbol(s, kernel_sym(s, m, offset), offset, true, out);
	} else if (m->pmap) {
		hwp__jit_module_perf_map_lookup(m->pmap, offset, out);
	} else if (m->jit) {
		hwp__jit_module_code_lookup(m->jit, offset, out);
		if (out->symbol_raw)
			demangled(s, out->symbol_raw, &out->symbol, &out->symbol_full);
	} else if ((err = resolve_elf(s, m, offset, out))) {
		memset(out, 0, sizeof(*out));
		return hwp__set_error(-err, "%s: symbolizing 0x%" PRIx64 ": %s", m->path, offset,
				      strerror(-err));
	}
	if ((err = cache_insert(s, module, offset, out)))
		return hwp__set_error(-err, "symbolizer: out of memory caching %s+0x%" PRIx64, m->path, offset);
	s->st.resolved++;
	return 0;
}

/* ---- what is missing ---- */

static bool reportable(const struct hwp_symbolizer *s, const struct module *m)
{
	if (m->pseudo || m->state == M_NEW || m->kmod)
		return false;
	if (m->state == M_FAILED)
		return !(m->kernel && s->o.no_kernel);
	return m->no_debug && !m->kernel;
}

size_t hwp_symbolizer__missing_modules(const struct hwp_symbolizer *s,
				       struct hwp_missing_module *out, size_t max)
{
	size_t n = 0;

	if (!s)
		return 0;
	for (size_t i = 0; i < s->nmods; i++) {
		const struct module *m = &s->mods[i];

		if (!reportable(s, m))
			continue;
		if (n < max)
			out[n] = (struct hwp_missing_module){
				.module = (int)i,
				.name = m->path,
				.build_id = m->bid_size ? m->bid_hex : NULL,
				.kind = m->kind,
				.reason = m->reason ? m->reason : "",
			};
		n++;
	}
	return n;
}

size_t hwp_symbolizer__missing(const struct hwp_symbolizer *s, const char **names, size_t max,
			       bool *no_debug_info_only)
{
	size_t n = 0;
	bool only = true;

	if (!s)
		return 0;
	for (size_t i = 0; i < s->nmods; i++) {
		const struct module *m = &s->mods[i];

		if (!reportable(s, m))
			continue;
		if (n < max)
			names[n] = m->path;
		if (m->kind != HWP_MISSING_DEBUG_INFO)
			only = false;
		n++;
	}
	if (no_debug_info_only)
		*no_debug_info_only = n && only;
	return n;
}

struct strbuf {
	char *buf;
	size_t size, len;
};

static void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->len < b->size ? b->buf + b->len : NULL,
		      b->len < b->size ? b->size - b->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
}

#define WARN_LIST_MAX 4

/* "a (why), b (why) and 3 more" for the modules of one kind. */
static size_t list_kind(const struct hwp_symbolizer *s, struct strbuf *b, bool no_debug,
			bool with_reason)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nmods; i++) {
		const struct module *m = &s->mods[i];

		if (!reportable(s, m) || m->kernel || m->no_debug != no_debug)
			continue;
		if (n < WARN_LIST_MAX) {
			sb_printf(b, "%s%s", n ? ", " : "", m->path);
			if (with_reason && m->reason)
				sb_printf(b, " (%s)", m->reason);
		}
		n++;
	}
	if (n > WARN_LIST_MAX)
		sb_printf(b, " and %zu more", n - WARN_LIST_MAX);
	return n;
}

static size_t count_kind(const struct hwp_symbolizer *s, bool no_debug)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nmods; i++)
		if (reportable(s, &s->mods[i]) && !s->mods[i].kernel &&
		    s->mods[i].no_debug == no_debug)
			n++;
	return n;
}

/* LINES: also modules that lack only debug info (no source lines). */
static size_t missing_warning(const struct hwp_symbolizer *s, char *buf, size_t size, bool lines)
{
	struct strbuf b = { buf, size, 0 };
	const struct module *example = NULL, *kernel = NULL, *dbg_example = NULL;
	size_t nbin, ndbg;

	if (size)
		buf[0] = 0;
	if (!s)
		return 0;
	nbin = count_kind(s, false);
	ndbg = lines ? count_kind(s, true) : 0;
	for (size_t i = 0; i < s->nmods; i++) {
		const struct module *m = &s->mods[i];

		if (!reportable(s, m))
			continue;
		if (m->kernel)
			kernel = m;
		else if (!m->no_debug && !example && m->bid_size)
			example = m;
		else if (m->no_debug && !dbg_example && m->file_bid_hex[0])
			dbg_example = m;
	}
	if (!nbin && !ndbg && !kernel)
		return 0;
	if (nbin) {
		sb_printf(&b, "no symbols for %zu module%s: ", nbin, nbin > 1 ? "s" : "");
		list_kind(s, &b, false, true);
	}
	if (ndbg) {
		sb_printf(&b, "%sno source lines (no debug info) for ", nbin ? "; " : "");
		list_kind(s, &b, true, false);
	}
	if (kernel)
		sb_printf(&b, "%s" KERNEL_NAME ": %s", nbin || ndbg ? "; " : "", kernel->reason);
	if (nbin) {
		sb_printf(&b, ". Supply binaries under a symfs root (a directory holding them at "
			      "their recorded paths) or in perf's build-id cache: perf buildid-cache -a FILE");
		if (example)
			sb_printf(&b, " (or copy FILE to ~/.debug/.build-id/%.2s/%s)",
				  example->bid_hex, example->bid_hex + 2);
		else
			sb_printf(&b, " (or copy FILE to ~/.debug/.build-id/xx/rest)");
	}
	if (ndbg && dbg_example)
		sb_printf(&b, "%s debug info: install the -dbgsym/-dbg package, or put the debug "
			      "file at /usr/lib/debug/.build-id/xx/rest.debug (for %s: "
			      "/usr/lib/debug/.build-id/%.2s/%s.debug)",
			  nbin ? ";" : ". Supply", dbg_example->short_name, dbg_example->file_bid_hex,
			  dbg_example->file_bid_hex + 2);
	else if (ndbg)
		sb_printf(&b, "%s debug info: install the -dbgsym/-dbg package, or put the debug "
			      "file at /usr/lib/debug/.build-id/xx/rest.debug (xx/rest: the "
			      "build-id) or next to the binary (.gnu_debuglink)",
			  nbin ? ";" : ". Supply");
	return b.len;
}

size_t hwp_symbolizer__missing_warning(const struct hwp_symbolizer *s, char *buf, size_t size)
{
	return missing_warning(s, buf, size, true);
}

size_t hwp_symbolizer__missing_symbols_warning(const struct hwp_symbolizer *s, char *buf, size_t size)
{
	return missing_warning(s, buf, size, false);
}

int hwp_symbolizer__stats(const struct hwp_symbolizer *s, struct hwp_symbolizer_stats *out)
{
	struct hwp_symbolizer_stats st;
	int rc;

	if ((rc = HWP_RESULT_BEGIN(out, &st, struct hwp_symbolizer_stats)) < 0)
		return rc;
	if (s)
		st = s->st;
	else
		memset(&st, 0, sizeof(st));
	hwp__result_end(out, &st, sizeof(st));
	return 0;
}
