/* SPDX-License-Identifier: MIT */
/*
 * Pseudo probes (clang -fpseudo-probe-for-profiling), the anchors of
 * CSSPGO's profiles: .pseudo_probe_desc names each function (GUID, CFG
 * hash, name) and .pseudo_probe places each probe of each function at an
 * address, inside a tree of inline sites. Read from the bytes alone, with
 * every length and count checked against what is left.
 */
#ifndef HWPROF_EXPORT_PSEUDO_PROBE_H
#define HWPROF_EXPORT_PSEUDO_PROBE_H

#include <stddef.h>
#include <stdint.h>

enum hwp__probe_type { HWP__PROBE_BLOCK = 0, HWP__PROBE_INDIRECT_CALL = 1, HWP__PROBE_DIRECT_CALL = 2 };

/* attribute bits */
#define HWP__PROBE_ATTR_SENTINEL 0x2
#define HWP__PROBE_ATTR_DISCRIMINATOR 0x4

struct hwp__probe_desc {
	uint64_t guid, hash;
	const char *name; /* name_len bytes, not NUL-terminated */
	uint32_t name_len;
};

/* One function in an inline tree: a top-level function (parent
   UINT32_MAX) or one inlined at probe SITE of its parent. */
struct hwp__probe_node {
	uint64_t guid;
	uint32_t parent, site;
};

struct hwp__probe {
	uint64_t addr; /* link-time address */
	uint32_t node, index, discriminator;
	uint8_t type, attr;
};

struct hwp__pseudo_probes {
	struct hwp__probe_desc *descs; /* sorted by guid */
	size_t ndescs;
	struct hwp__probe_node *nodes; /* parents before children */
	size_t nnodes;
	struct hwp__probe *probes; /* by address; at one address in section order */
	size_t nprobes;
	uint8_t *owned; /* the descriptors' bytes when loaded from a file */
};

/* A function's start: its name's GUID (hwp__md5_guid) and address. */
struct hwp__probe_start {
	uint64_t guid, addr;
};

/*
 * Decodes DESC (.pseudo_probe_desc, NDESC bytes) and PROBE (.pseudo_probe).
 * STARTS (sorted by GUID, NSTARTS of them; may be NULL) place each
 * top-level function's first probe, which LLVM 17 and later encode as a
 * delta from the function's start. Names point into DESC, which must
 * outlive the result. NAME names the
 * input in errors (one line: file, section, offset, cause). 0 or <0
 * (hwp_errmsg()); *OUT is NULL on error.
 */
int hwp__pseudo_probes_parse(const uint8_t *desc, size_t ndesc, const uint8_t *probe, size_t nprobe,
			     const struct hwp__probe_start *starts, size_t nstarts, const char *name,
			     struct hwp__pseudo_probes **out);
/* Both sections of the ELF file PATH, its function symbols as the starts; -ENOENT (with a message) when it has none. */
int hwp__pseudo_probes_load(const char *path, struct hwp__pseudo_probes **out);
void hwp__pseudo_probes_free(struct hwp__pseudo_probes *p);
/* The top-level function's node of the inline tree NODE is in. */
uint32_t hwp__pseudo_probes_top(const struct hwp__pseudo_probes *p, uint32_t node);
/* The descriptor of GUID, or NULL. */
const struct hwp__probe_desc *hwp__pseudo_probes_desc(const struct hwp__pseudo_probes *p, uint64_t guid);

#endif
