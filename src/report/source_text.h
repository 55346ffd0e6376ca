/* SPDX-License-Identifier: MIT */
/*
 * The source files a code view quotes (hwprof annotate's text view, the HTML
 * report's annotated code), each read once, found by the path the DWARF
 * line table names or, as perf annotate finds them, with leading
 * directories dropped and a prefix put before:
 *
 *     struct hwp__sources ss = { .prefix = "/src", .strip = 2 };
 *     const char *text = hwp__source_line(&ss, "/build/x/a.c", 42, &len);
 *     hwp__sources_free(&ss);
 */
#ifndef HWPROF_REPORT_SOURCE_TEXT_H
#define HWPROF_REPORT_SOURCE_TEXT_H

#include <stddef.h>

struct hwp__source_file {
	char *path;   /* as DWARF names it */
	char *text;   /* NULL: not found */
	size_t size;
	const char **lines;
	size_t nlines;
};

struct hwp__sources {
	struct hwp__source_file *v;
	size_t n, cap;
	const char *prefix;   /* the files are found under PREFIX (NULL: where DWARF says), */
	unsigned strip;       /* after dropping this many leading directories */
	size_t missing;       /* files that could not be read */
};

/* The text of line LINE of FILE (LEN bytes, no line end); NULL when the
   file cannot be read or has no such line. */
const char *hwp__source_line(struct hwp__sources *ss, const char *file, unsigned line, size_t *len);
void hwp__sources_free(struct hwp__sources *ss);

#endif
