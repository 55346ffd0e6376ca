/* SPDX-License-Identifier: MIT */
/* The perf maps and jitdumps a session's symbolizers share. See jit_sources.h. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/jit_sources.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* A file asked for: what was read, or why nothing could be. */
struct source {
	char *path; /* as the recording names it */
	struct hwp__perf_map *map;
	struct hwp__jitdump *dump;
	char *why;  /* NULL when read */
	int err;
};

/* A code load by its perf inject name. */
struct code_name {
	char *name;
	const struct hwp__jit_code *code;
	const struct hwp__jitdump *dump;
};

struct hwp__jit_sources {
	pthread_mutex_t mu;
	unsigned refs;
	char *symfs;
	struct source *src;
	size_t nsrc, capsrc;
	struct hwp_hashmap src_map; /* on path */
	struct code_name *codes;
	size_t ncodes, capcodes;
	struct hwp_hashmap code_map; /* on name */
};

struct hwp__jit_sources *hwp__jit_sources_new(const char *symfs)
{
	struct hwp__jit_sources *js = calloc(1, sizeof(*js));

	if (!js || (symfs && *symfs && !(js->symfs = strdup(symfs)))) {
		free(js);
		hwp__set_error(ENOMEM, "out of memory making the JIT symbol sources");
		return NULL;
	}
	pthread_mutex_init(&js->mu, NULL);
	js->refs = 1;
	return js;
}

struct hwp__jit_sources *hwp__jit_sources_get(struct hwp__jit_sources *js)
{
	if (js) {
		pthread_mutex_lock(&js->mu);
		js->refs++;
		pthread_mutex_unlock(&js->mu);
	}
	return js;
}

void hwp__jit_sources_put(struct hwp__jit_sources *js)
{
	if (!js)
		return;
	pthread_mutex_lock(&js->mu);
	unsigned left = --js->refs;
	pthread_mutex_unlock(&js->mu);
	if (left)
		return;
	for (size_t i = 0; i < js->nsrc; i++) {
		free(js->src[i].path);
		hwp__perf_map_delete(js->src[i].map);
		hwp__jitdump_delete(js->src[i].dump);
		free(js->src[i].why);
	}
	for (size_t i = 0; i < js->ncodes; i++)
		free(js->codes[i].name);
	free(js->src);
	free(js->codes);
	hwp__hashmap_free(&js->src_map);
	hwp__hashmap_free(&js->code_map);
	pthread_mutex_destroy(&js->mu);
	free(js->symfs);
	free(js);
}

/* The source of PATH, looked up or added (NULL: out of memory). With the lock. */
static struct source *source(struct hwp__jit_sources *js, const char *path, bool *fresh)
{
	uint64_t h = hwp__hash_str(path);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&js->src_map, h);
	uint32_t i;

	*fresh = false;
	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(js->src[i].path, path))
			return &js->src[i];
	struct source *s = HWP_VEC_PUSH(js->src, js->nsrc, js->capsrc);
	if (!s)
		return NULL;
	if (!(s->path = strdup(path)) || hwp__hashmap_add(&js->src_map, h, (uint32_t)(js->nsrc - 1)) < 0) {
		free(s->path);
		js->nsrc--;
		return NULL;
	}
	*fresh = true;
	return s;
}

static void set_why(struct source *s, int err, const char *msg)
{
	s->err = err;
	free(s->why);
	s->why = strdup(msg);
}

/* SYMFS/PATH when it exists (with a symfs), else PATH: into BUF. */
static const char *where(const struct hwp__jit_sources *js, const char *path, char *buf, size_t size)
{
	if (js->symfs && snprintf(buf, size, "%s%s%s", js->symfs, path[0] == '/' ? "" : "/", path) < (int)size &&
	    access(buf, R_OK) == 0)
		return buf;
	return path;
}

const struct hwp__perf_map *hwp__jit_sources_perf_map(struct hwp__jit_sources *js, const char *path,
						      const char **why)
{
	char buf[4096];
	bool fresh;
	const struct hwp__perf_map *res = NULL;

	if (why)
		*why = "out of memory";
	if (!js)
		return NULL;
	pthread_mutex_lock(&js->mu);
	struct source *s = source(js, path, &fresh);
	if (s && fresh) {
		const char *file = where(js, path, buf, sizeof(buf));
		int err = hwp__perf_map_read(file, &s->map);

		if (err < 0) {
			set_why(s, err, hwp_errmsg());
			hwp__log(HWP_LOG_INFO, "%s", hwp_errmsg());
		} else {
			if (s->map->bad)
				hwp__log(HWP_LOG_WARN,
					 "%s: %zu of %zu lines skipped (line %zu: %s); the other %zu symbols are used",
					 file, s->map->bad, s->map->lines, s->map->first_bad_line,
					 s->map->first_bad_why, s->map->symbols);
			hwp__log(HWP_LOG_INFO, "%s: %zu JIT symbols from %s", path, s->map->symbols, file);
		}
	}
	if (s) {
		res = s->map;
		if (!res && why)
			*why = s->why ? s->why : "out of memory";
	}
	pthread_mutex_unlock(&js->mu);
	return res;
}

bool hwp__jit_sources_code_name(const char *filename, const struct hwp__jit_code *c, char *buf, size_t size)
{
	const char *slash = strrchr(filename, '/');
	int dirlen = slash ? (int)(slash - filename) : 1;
	int n = snprintf(buf, size, "%.*s/jitted-%" PRId32 "-%" PRIu64 ".so", dirlen, slash ? filename : ".",
			 (int32_t)c->pid, c->code_index);

	return n > 0 && (size_t)n < size;
}

/* Makes DUMP's loads known by name (the last load of a name wins). With the lock. */
static int name_codes(struct hwp__jit_sources *js, const char *filename, const struct hwp__jitdump *d)
{
	char buf[4096];

	for (size_t k = 0; k < d->n_codes; k++) {
		const struct hwp__jit_code *c = &d->codes[k];

		if (c->move || !hwp__jit_sources_code_name(filename, c, buf, sizeof(buf)))
			continue;
		uint64_t h = hwp__hash_str(buf);
		struct hwp_hashmap_probe p = hwp__hashmap_probe(&js->code_map, h);
		uint32_t i;
		bool found = false;

		while (!found && hwp__hashmap_next(&p, &i))
			if (!strcmp(js->codes[i].name, buf)) {
				js->codes[i].code = c;
				js->codes[i].dump = d;
				found = true;
			}
		if (found)
			continue;
		struct code_name *cn = HWP_VEC_PUSH(js->codes, js->ncodes, js->capcodes);
		if (!cn)
			return -ENOMEM;
		if (!(cn->name = strdup(buf)) || hwp__hashmap_add(&js->code_map, h, (uint32_t)(js->ncodes - 1)) < 0) {
			free(cn->name);
			js->ncodes--;
			return -ENOMEM;
		}
		cn->code = c;
		cn->dump = d;
	}
	return 0;
}

const struct hwp__jitdump *hwp__jit_sources_dump(struct hwp__jit_sources *js, const char *filename)
{
	char buf[4096];
	bool fresh;
	const struct hwp__jitdump *res = NULL;

	if (!js) {
		hwp__set_error(EINVAL, "%s: no JIT sources to read it into", filename);
		return NULL;
	}
	pthread_mutex_lock(&js->mu);
	struct source *s = source(js, filename, &fresh);
	if (!s) {
		pthread_mutex_unlock(&js->mu);
		hwp__set_error(ENOMEM, "%s: out of memory", filename);
		return NULL;
	}
	if (fresh) {
		const char *file = where(js, filename, buf, sizeof(buf));
		int err = hwp__jitdump_open(file, &s->dump);

		if (err < 0) {
			set_why(s, err, hwp_errmsg());
		} else if ((err = name_codes(js, filename, s->dump)) < 0) {
			hwp__jitdump_delete(s->dump);
			s->dump = NULL;
			set_why(s, err, "out of memory naming its code loads");
		} else {
			const struct hwp__jitdump *d = s->dump;

			if (d->problems)
				hwp__log(HWP_LOG_WARN, "%s: offset 0x%" PRIx64 ": %s; %zu code load%s read, %zu bad record%s left out",
					 file, d->problem_offset, d->problem, d->n_loads, d->n_loads == 1 ? "" : "s",
					 d->problems, d->problems > 1 ? "s" : "");
			hwp__log(HWP_LOG_INFO, "%s: %zu code loads, %zu moves, %zu with source lines%s", file,
				 d->n_loads, d->n_moves, d->n_debug, d->swapped ? " (other byte order)" : "");
		}
	}
	res = s->dump;
	if (!res)
		hwp__set_error(s->err < 0 ? -s->err : EIO, "%s", s->why ? s->why : "out of memory");
	pthread_mutex_unlock(&js->mu);
	return res;
}

const struct hwp__jit_code *hwp__jit_sources_code(struct hwp__jit_sources *js, const char *path,
						  const struct hwp__jitdump **dump)
{
	const struct hwp__jit_code *res = NULL;
	const char *base = strrchr(path, '/');

	if (!js || strncmp(base ? base + 1 : path, "jitted-", 7))
		return NULL;
	pthread_mutex_lock(&js->mu);
	uint64_t h = hwp__hash_str(path);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&js->code_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(js->codes[i].name, path)) {
			res = js->codes[i].code;
			if (dump)
				*dump = js->codes[i].dump;
			break;
		}
	pthread_mutex_unlock(&js->mu);
	return res;
}
