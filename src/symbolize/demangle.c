/* SPDX-License-Identifier: MIT */
/* Demangling through the system's demanglers, found at run time. See demangle.h. */
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/demangle.h"

/* Resolved when the program links libstdc++ itself; NULL otherwise. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status)
	__attribute__((weak));

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
/* rustc-demangle-capi: 1 on success, 0 on failure. */
typedef int (*rustc_demangle_fn)(const char *, char *, size_t);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cxa_demangle_fn cxa;
static rustc_demangle_fn rustc;

static void resolve(void)
{
	void *h;

	cxa = __cxa_demangle;
	if (!cxa)
		cxa = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!cxa && (h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)))
		cxa = (cxa_demangle_fn)dlsym(h, "__cxa_demangle"); /* kept open */
	rustc = (rustc_demangle_fn)dlsym(RTLD_DEFAULT, "rustc_demangle");
	if (!rustc && (h = dlopen("librustc_demangle.so", RTLD_LAZY | RTLD_LOCAL)))
		rustc = (rustc_demangle_fn)dlsym(h, "rustc_demangle");
}

bool hwp_demangle__have_cxx(void)
{
	pthread_once(&once, resolve);
	return cxa != NULL;
}

bool hwp_demangle__have_rust_v0(void)
{
	pthread_once(&once, resolve);
	return rustc != NULL;
}

bool hwp_demangle__is_mangled(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

static bool is_hex_n(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* _ZN...17h<16 hex>E, optionally followed by a ".llvm.NNN" suffix (cut by the caller). */
static bool is_rust_legacy(const char *m, size_t len)
{
	return len > 24 && !strncmp(m, "_ZN", 3) && m[len - 1] == 'E' &&
	       !strncmp(m + len - 20, "17h", 3) && is_hex_n(m + len - 17, 16);
}

/* Decodes rustc's legacy escapes in place; drops the trailing ::h<hash>. */
static void rust_legacy_cleanup(char *s)
{
	static const struct {
		const char *esc;
		char c;
	} tab[] = { { "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
		    { "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' } };
	size_t len = strlen(s);
	char *w = s;

	if (len > 19 && !strncmp(s + len - 19, "::h", 3) && is_hex_n(s + len - 16, 16))
		s[len - 19] = 0;
	for (const char *r = s; *r;) {
		bool comp_start = w == s || (w >= s + 2 && w[-1] == ':' && w[-2] == ':');

		if (comp_start && r[0] == '_' && r[1] == '$') {
			r++;
			continue;
		}
		if (*r == '$') {
			bool done = false;

			for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
				size_t n = strlen(tab[i].esc);

				if (!strncmp(r, tab[i].esc, n)) {
					*w++ = tab[i].c;
					r += n;
					done = true;
					break;
				}
			}
			if (!done && r[1] == 'u') {
				const char *end = strchr(r + 2, '$');
				unsigned long c;
				char *e;

				if (end && end - (r + 2) <= 6 && end > r + 2) {
					c = strtoul(r + 2, &e, 16);
					if (e == end && c >= 0x20 && c < 0x7f) {
						*w++ = (char)c;
						r = end + 1;
						done = true;
					}
				}
			}
			if (!done)
				*w++ = *r++;
		} else if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
}

static char *demangle_rust_v0(const char *name)
{
	size_t cap = 256;

	if (!rustc)
		return NULL;
	for (int tries = 0; tries < 6; tries++, cap *= 4) {
		char *buf = malloc(cap);

		if (!buf)
			return NULL;
		memset(buf, 0, cap);
		if (rustc(name, buf, cap) && memchr(buf, 0, cap - 1))
			return buf;
		free(buf);
	}
	return NULL;
}

char *hwp_demangle(const char *name)
{
	const char *llvm;
	char *copy = NULL, *out;
	size_t len;
	int status = -1;

	if (!name || !hwp_demangle__is_mangled(name))
		return NULL;
	pthread_once(&once, resolve);
	if (name[1] == 'R')
		return demangle_rust_v0(name);
	if (!cxa)
		return NULL;
	len = strlen(name);
	/* Rust (and LTO'd C++) symbols can carry ".llvm.<digits>": not part of the name. */
	llvm = strstr(name, ".llvm.");
	if (llvm && is_rust_legacy(name, (size_t)(llvm - name))) {
		copy = strndup(name, (size_t)(llvm - name));
		if (!copy)
			return NULL;
		name = copy;
		len = strlen(name);
	}
	out = cxa(name, NULL, NULL, &status);
	if (status != 0 || !out) {
		free(out);
		free(copy);
		return NULL;
	}
	if (is_rust_legacy(name, len))
		rust_legacy_cleanup(out);
	free(copy);
	return out;
}
