/* SPDX-License-Identifier: MIT */
#include "util/shebang.h"

#include <stdio.h>
#include <string.h>

int hwp__shebang(const unsigned char *buf, size_t n, char *interp, size_t icap, char *arg,
		 size_t acap)
{
	char line[256];
	char *nl, *p, *e;
	size_t len;

	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	len = n - 2 < sizeof(line) - 1 ? n - 2 : sizeof(line) - 1;
	memcpy(line, buf + 2, len);
	line[len] = 0;
	/* no end of line: a file shorter than the 256 bytes read ends it (the
	   kernel runs "#!/bin/sh" alone too); a longer line is not guessed at */
	if ((nl = memchr(line, '\n', len)))
		*nl = 0;
	else if (n < 256)
		nl = line + len;
	else
		return -1;
	for (e = nl; e > line && (e[-1] == ' ' || e[-1] == '\t'); e--)
		e[-1] = 0;
	for (p = line; *p == ' ' || *p == '\t'; p++)
		;
	if (!*p)
		return -1;
	e = p + strcspn(p, " \t");
	if (*e)
		*e++ = 0;
	while (*e == ' ' || *e == '\t')
		e++;
	if ((size_t)snprintf(interp, icap, "%s", p) >= icap ||
	    (size_t)snprintf(arg, acap, "%s", e) >= acap)
		return -1;
	return 1;
}
