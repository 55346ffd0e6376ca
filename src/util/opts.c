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
