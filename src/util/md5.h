/* SPDX-License-Identifier: MIT */
/* MD5 (RFC 1321): LLVM names functions by the first 8 bytes of their name's
   MD5 digest, read little-endian (a "GUID"). */
#ifndef HWPROF_UTIL_MD5_H
#define HWPROF_UTIL_MD5_H

#include <stddef.h>
#include <stdint.h>

void hwp__md5(const void *data, size_t len, uint8_t digest[16]);
/* LLVM's Function::getGUID() of a name: the digest's low 8 bytes. */
uint64_t hwp__md5_guid(const char *name, size_t len);

#endif
