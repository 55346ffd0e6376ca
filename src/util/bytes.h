/* SPDX-License-Identifier: MIT */
/* Unaligned little-endian loads and stores: file data is never cast to structs. */
#ifndef HWPROF_UTIL_BYTES_H
#define HWPROF_UTIL_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t ld16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static inline void st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline void st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void st16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

#endif
