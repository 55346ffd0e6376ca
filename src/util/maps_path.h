/* SPDX-License-Identifier: MIT */
/* The path of a /proc/PID/maps line, as the kernel named the file. */
#ifndef HWPROF_UTIL_MAPS_PATH_H
#define HWPROF_UTIL_MAPS_PATH_H

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/*
 * /proc/PID/maps writes a newline of a path as "\012" and escapes nothing
 * else, so "\012" may also be those four characters of the name. PATH (a
 * NUL-terminated maps path) is unescaped in place when the file so named
 * is the one mapped (device MAJ:MIN, inode INO), kept as it is otherwise.
 */
static inline void hwp__maps_path_unescape(char *path, unsigned maj, unsigned min, unsigned long long ino)
{
	char plain[4096];
	size_t w = 0;
	struct stat st;

	if (!strstr(path, "\\012"))
		return;
	for (const char *r = path; *r && w + 1 < sizeof(plain); r++) {
		if (!strncmp(r, "\\012", 4)) {
			plain[w++] = '\n';
			r += 3;
		} else {
			plain[w++] = *r;
		}
	}
	plain[w] = 0;
	if (!stat(plain, &st) && st.st_ino == ino && major(st.st_dev) == maj && minor(st.st_dev) == min)
		memcpy(path, plain, w + 1);
}

#endif
