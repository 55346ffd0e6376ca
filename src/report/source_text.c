/* SPDX-License-Identifier: MIT */
/* The source files a code view quotes, read once each (source_text.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/source_text.h"
#include "util/vec.h"

/* PATH with STRIP leading components dropped and PREFIX put before it
   (perf annotate's --prefix-strip and --prefix). */
static void remap(const struct hwp__sources *ss, const char *path, char *out, size_t len)
{
	const char *p = path;

	for (unsigned i = 0; i < ss->strip && p; i++) {
		p = strchr(p + (*p == '/'), '/');
	}
	if (!p)
		p = strrchr(path, '/') ? strrchr(path, '/') : path;
	if (ss->prefix)
		snprintf(out, len, "%s%s%s", ss->prefix, *p == '/' || !*ss->prefix ? "" : "/", p);
	else
		snprintf(out, len, "%s", p);
}

const char *hwp__source_line(struct hwp__sources *ss, const char *file, unsigned line, size_t *len)
{
	struct hwp__source_file *f = NULL;

	for (size_t i = 0; i < ss->n && !f; i++)
		if (!strcmp(ss->v[i].path, file))
			f = &ss->v[i];
	if (!f) {
		char path[4096];
		FILE *fp;

		if (!(f = HWP_VEC_PUSH(ss->v, ss->n, ss->cap)))
			return NULL;
		memset(f, 0, sizeof(*f));
		if (!(f->path = strdup(file))) {
			ss->n--;
			return NULL;
		}
		remap(ss, file, path, sizeof(path));
		/* a source file, not a device or a huge file: at most 64 MiB */
		if ((fp = fopen(path, "rb"))) {
			size_t cap = 0, n;
			char buf[65536];

			while ((n = fread(buf, 1, sizeof(buf), fp)) > 0 && f->size + n <= (64u << 20)) {
				if (HWP_VEC_RESERVE(f->text, cap, f->size + n + 1) < 0)
					break;
				memcpy(f->text + f->size, buf, n);
				f->size += n;
			}
			fclose(fp);
			if (f->text) {
				size_t lcap = 0;

				f->text[f->size] = 0;
				for (char *p = f->text; p < f->text + f->size;) {
					const char **l = HWP_VEC_PUSH(f->lines, f->nlines, lcap);
					char *nl = memchr(p, '\n', (size_t)(f->text + f->size - p));

					if (!l)
						break;
					*l = p;
					p = nl ? nl + 1 : f->text + f->size;
				}
			}
		}
		ss->missing += !f->text;
	}
	if (!f->text || !line || line > f->nlines)
		return NULL;
	const char *p = f->lines[line - 1];
	const char *end = line < f->nlines ? f->lines[line] : f->text + f->size;
	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	*len = (size_t)(end - p);
	return p;
}

void hwp__sources_free(struct hwp__sources *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		free(ss->v[i].path);
		free(ss->v[i].text);
		free(ss->v[i].lines);
	}
	free(ss->v);
}
