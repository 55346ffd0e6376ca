/* SPDX-License-Identifier: MIT */
/* The one $PATH search of hwprof (the recorder and the emulation driver). */
#ifndef HWPROF_UTIL_PATH_SEARCH_H
#define HWPROF_UTIL_PATH_SEARCH_H

/*
 * NAME looked up as execvp() does: a NAME with a '/' is not searched and
 * comes back as it is (whether it exists is for the caller to find out);
 * otherwise each entry of PATH (SEARCH_PATH, or $PATH when NULL; when $PATH
 * is unset, confstr(_CS_PATH)) is tried in order, an empty entry meaning the
 * current directory (POSIX), and the first regular file with execute
 * permission wins. Returns a malloc'd path, or NULL with errno: ENOENT (not
 * found), EACCES (only non-executable files of that name), ENOMEM.
 * Sets no error message: the caller knows how to name what was missing.
 */
char *hwp__path_search(const char *name, const char *search_path);

#endif
