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
	/* a line longer than what was read: the kernel would read more (or
	   refuse); not guessed at here */
	if (!(nl = memchr(line, '\n', len)))
		return -1;
	*nl = 0;
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
