/* SPDX-License-Identifier: MIT */
/* Demangling through libiberty's cplus_demangle(), as perf 6.1 does. See demangle.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

#include "symbolize/demangle.h"

bool hwp__demangle_is_mangled(const char *name)
{
	return name && name[0] == '_' &&
	       (name[1] == 'Z' || name[1] == 'R' || !strncmp(name, "_GLOBAL_", 8));
}

#ifdef HAVE_LIBIBERTY
/* perf 6.1's demangle_sym(): DMGL_PARAMS | DMGL_ANSI with -v, else none. */
static int flags_of(enum hwp_demangle_form form)
{
	return form == HWP_DEMANGLE_FULL ? DMGL_PARAMS | DMGL_ANSI : DMGL_NO_OPTS;
}

/* BASE (LEN bytes of NAME) demangled, then SUFFIX appended. */
static char *demangle_with_suffix(const char *name, size_t len, const char *suffix, int flags)
{
	char *base = strndup(name, len), *d, *out = NULL;

	if (!base)
		return NULL;
	d = cplus_demangle(base, flags);
	free(base);
	if (d && asprintf(&out, "%s%s", d, suffix) < 0)
		out = NULL;
	free(d);
	return out;
}

char *hwp__demangle(const char *name, enum hwp_demangle_form form)
{
	const char *at;
	size_t len;

	if (!hwp__demangle_is_mangled(name))
		return NULL;
	len = strlen(name);
	/* a PLT entry: perf demangles its target and appends "@plt" */
	if (len > 4 && !strcmp(name + len - 4, "@plt"))
		return demangle_with_suffix(name, len - 4, "@plt", flags_of(form));
	/* "_ZN..@@GLIBCXX_3.4": without parameters the demangler stops after the
	   name and drops the suffix (perf's name); with them it would refuse the
	   whole string, so the full form demangles up to '@' and keeps the rest */
	at = strchr(name, '@');
	if (at && form == HWP_DEMANGLE_FULL)
		return demangle_with_suffix(name, (size_t)(at - name), at, flags_of(form));
	return cplus_demangle(name, flags_of(form));
}
#else
/* Built without libiberty (mk/config.mk said so): names stay as the binary
   has them. No other demangler gives perf's names. */
char *hwp__demangle(const char *name, enum hwp_demangle_form form)
{
	(void)name, (void)form;
	return NULL;
}
#endif
