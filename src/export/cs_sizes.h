/* SPDX-License-Identifier: MIT */
/*
 * The code size of each inline context of the profiled functions, as
 * llvm-profgen 19's BinarySizeContextTracker measures it for its
 * pre-inliner: every instruction of the functions' DWARF ranges adds its
 * length to the context its DWARF inline frames give (function names,
 * call sites as probe indices decoded from the discriminators), kept in a
 * trie keyed leaf first. A lookup follows a context from its leaf outwards
 * and takes the size of the longest match; with none, the first child (in
 * call-site hash order) down from where the match stopped. An inline
 * context of a profiled function whose pseudo probes remain is known even
 * with no instruction of its own (its size 0: an inlinee whose body all
 * became its own inlinee's), so a lookup stops there and does not take the
 * function's size out of line.
 */
#ifndef HWPROF_EXPORT_CS_SIZES_H
#define HWPROF_EXPORT_CS_SIZES_H

#include <stddef.h>
#include <stdint.h>

struct hwp__cs_binary;
struct hwp__dwarf_frames;
struct hwp__cs_sizes;
struct hwp__pseudo_probes;

/* LLVM's call-site hash of a frame: the name's MD5 + 33 x the site (disc << 32 | off). */
uint64_t hwp__cs_site_hash(uint64_t name_md5, uint32_t off, uint32_t disc);

/* The length of NAME without a ".llvm.N" or ".part.N" suffix (llvm-profgen's getCanonicalFnName()). */
size_t hwp__cs_canonical_len(const char *name);

/* The sizes of the functions NAMES[0..N) (their DWARF names; GUIDS[i],
   sorted, the GUID of NAMES[i]); PP, their pseudo probes (NULL: none). 0
   or <0 (hwp_errmsg()). */
int hwp__cs_sizes_build(const struct hwp__cs_binary *bin, struct hwp__dwarf_frames *df,
			const struct hwp__pseudo_probes *pp, char *const *names, const uint64_t *guids, size_t n,
			struct hwp__cs_sizes **out);
void hwp__cs_sizes_free(struct hwp__cs_sizes *s);

/* The size of the context whose frames' call-site hashes are PATH[0..N),
   leaf first (the leaf at site 0, each caller at the site where its callee
   is called). */
uint32_t hwp__cs_sizes_for(const struct hwp__cs_sizes *s, const uint64_t *path, size_t n);

#endif
