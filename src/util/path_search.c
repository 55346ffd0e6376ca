/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/path_search.h"

/* The system's default search path when $PATH is unset (as execvp). */
static const char *default_path(char *buf, size_t len)
{
	size_t n = confstr(_CS_PATH, buf, len);

	return n > 0 && n <= len ? buf : "/usr/bin:/bin";
}

char *hwp__path_search(const char *name, const char *search_path)
{
	char dflt[256];
	const char *p;
	int err = ENOENT;

	if (!name || !*name) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(name, '/')) {
		char *copy = strdup(name);

		if (!copy)
			errno = ENOMEM;
		return copy;
	}
	p = search_path ? search_path : getenv("PATH");
	if (!p)
		p = default_path(dflt, sizeof(dflt));
	for (;;) {
		size_t n = strcspn(p, ":");
		struct stat st;
		char *cand;

		/* an empty entry (leading, trailing or doubled ':') is "." */
		if (asprintf(&cand, "%.*s/%s", n ? (int)n : 1, n ? p : ".", name) < 0) {
			errno = ENOMEM;
			return NULL;
		}
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(cand, X_OK) == 0)
				return cand;
			err = EACCES;
		}
		free(cand);
		if (!p[n])
			break;
		p += n + 1;
	}
	errno = err;
	return NULL;
}
