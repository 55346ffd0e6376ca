/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "util/error.h"
#include "util/opts.h"

int hwp__opts_load(const void *opts, size_t known_size, void *out, const char *what)
{
	memset(out, 0, known_size);
	if (opts) {
		size_t sz;
		memcpy(&sz, opts, sizeof(sz));
		if (sz < sizeof(size_t))
			return hwp__set_error(EINVAL, "%s: option struct size %zu is invalid (set .sz = sizeof(the struct))",
					      what, sz);
		const unsigned char *p = opts;
		for (size_t i = known_size; i < sz; i++)
			if (p[i])
				return hwp__set_error(EINVAL, "%s: option struct has %zu bytes, this library knows %zu, and byte %zu is set (an option this version does not have)",
						      what, sz, known_size, i);
		memcpy(out, opts, sz < known_size ? sz : known_size);
	}
	memcpy(out, &known_size, sizeof(known_size));
	return 0;
}

int hwp__result_begin(const void *out, void *res, size_t known_size, const char *what)
{
	size_t sz;

	memset(res, 0, known_size);
	if (!out)
		return hwp__set_error(EINVAL, "%s: no result struct to fill", what);
	memcpy(&sz, out, sizeof(sz));
	if (sz < sizeof(size_t))
		return hwp__set_error(EINVAL, "%s: result struct size %zu is invalid (set .sz = sizeof(the struct))",
				      what, sz);
	memcpy(res, out, sz < known_size ? sz : known_size);
	return 0;
}

void hwp__result_end(void *out, const void *res, size_t known_size)
{
	size_t sz;

	memcpy(&sz, out, sizeof(sz));
	memcpy((char *)out + sizeof(sz), (const char *)res + sizeof(sz), (sz < known_size ? sz : known_size) - sizeof(sz));
	if (sz > known_size)
		memset((char *)out + known_size, 0, sz - known_size);
}
