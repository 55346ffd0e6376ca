/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "util/pid_name.h"

bool hwp__pid_name(const char *s, const char *prefix, const char *suffix, int32_t *pid)
{
	size_t n = strlen(prefix);
	int64_t v = 0;

	if (strncmp(s, prefix, n))
		return false;
	s += n;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > INT32_MAX)
			return false;
	}
	if (strcmp(s, suffix))
		return false;
	if (pid)
		*pid = (int32_t)v;
	return true;
}
