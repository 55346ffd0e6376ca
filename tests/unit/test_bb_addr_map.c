/* SPDX-License-Identifier: MIT */
/*
 * The .llvm_bb_addr_map reader (src/symbolize/bb_addr_map.c) on binaries
 * clang-19 builds here from tests/fixtures/ with -fbasic-block-address-map:
 * every function's address, every block's ID, offset, size and flags
 * against llvm-readobj-19 --bb-addr-map (LLVM's own reader, an independent
 * oracle), with one range per function and with a range per block
 * (-fbasic-block-sections=all); then the section cut at every length and
 * with bytes changed: whole entries or one error line naming the file and
 * an offset inside the section, never a crash; a binary without the
 * section and a relocatable object refused in one line.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdint.h>

#include "symbolize/bb_addr_map.h"
#include "symbolize/build_id_lookup.h"
#include "testlib.h"
#include "util/error.h"

static char dir[] = "/tmp/hwprof-bbmap-XXXXXX";
static int have_tools = -1;

static void rm_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
		/* left behind: nothing else to do */
	}
}

static bool tools(void)
{
	if (have_tools < 0) {
		have_tools = !system("command -v clang-19 >/dev/null && command -v llvm-readobj-19 >/dev/null");
		if (have_tools && !mkdtemp(dir))
			have_tools = 0;
		if (have_tools)
			atexit(rm_dir);
	}
	return have_tools;
}

/* Builds fixture SRC with clang-19 -O2 FLAGS into dir/OUT; its path or NULL. */
static const char *build(const char *src, const char *flags, const char *out)
{
	static char path[4][256];
	static int k;
	char cmd[1024];
	char *p = path[k++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", dir, out);
	snprintf(cmd, sizeof(cmd), "clang-19 -O2 -w %s -o %s tests/fixtures/%s 2>/dev/null", flags, p, src);
	return system(cmd) ? NULL : p;
}

/* What llvm-readobj-19 --bb-addr-map prints, read back. */
struct oracle_bb {
	uint64_t base, off, size;
	uint32_t id, meta, range;
};
struct oracle_fn {
	uint64_t at;
	size_t first, n;
};
static struct oracle_bb obb[1 << 16];
static struct oracle_fn ofn[1 << 12];
static size_t n_obb, n_ofn;

static int read_oracle(const char *bin)
{
	char cmd[512], line[512];
	FILE *p;
	uint64_t base = 0;
	uint32_t range = 0;
	struct oracle_bb *b = NULL;

	n_obb = n_ofn = 0;
	snprintf(cmd, sizeof(cmd), "llvm-readobj-19 --bb-addr-map %s", bin);
	if (!(p = popen(cmd, "r")))
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *s = line, yes[8];
		unsigned long long v;

		while (*s == ' ')
			s++;
		if (sscanf(s, "At: 0x%llx", &v) == 1 && n_ofn < sizeof(ofn) / sizeof(ofn[0])) {
			ofn[n_ofn++] = (struct oracle_fn){ v, n_obb, 0 };
			range = UINT32_MAX;
		} else if (sscanf(s, "Base Address: 0x%llx", &v) == 1) {
			base = v;
			range++;
		} else if (sscanf(s, "ID: %llu", &v) == 1 && n_obb < sizeof(obb) / sizeof(obb[0]) && n_ofn) {
			b = &obb[n_obb++];
			*b = (struct oracle_bb){ .base = base, .id = (uint32_t)v, .range = range };
			ofn[n_ofn - 1].n++;
		} else if (b && sscanf(s, "Offset: 0x%llx", &v) == 1) {
			b->off = v;
		} else if (b && sscanf(s, "Size: 0x%llx", &v) == 1) {
			b->size = v;
		} else if (b) {
			static const char *const flag[] = { "HasReturn", "HasTailCall", "IsEHPad", "CanFallThrough",
							    "HasIndirectBranch" };

			for (unsigned i = 0; i < 5; i++) {
				size_t l = strlen(flag[i]);

				if (!strncmp(s, flag[i], l) && s[l] == ':' && sscanf(s + l + 1, " %7s", yes) == 1 &&
				    !strcmp(yes, "Yes"))
					b->meta |= 1u << i;
			}
		}
	}
	return pclose(p) ? -1 : 0;
}

/* M equals the oracle, function by function and block by block. */
static void check_against_oracle(const struct hwp__bb_addr_map *m, bool want_ranges)
{
	bool multi = false;

	CHECK(n_ofn > 2);
	CHECK_EQ_U64(m->n_funcs, n_ofn);
	CHECK_EQ_U64(m->n_blocks, n_obb);
	for (size_t f = 0; f < m->n_funcs && f < n_ofn; f++) {
		const struct hwp__bb_func *hf = &m->funcs[f];

		CHECK_EQ_U64(hf->addr, ofn[f].at);
		CHECK_EQ_U64(hf->n, ofn[f].n);
		multi |= hf->n_ranges > 1;
		for (size_t i = 0; i < hf->n && i < ofn[f].n; i++) {
			const struct hwp__bb *b = &m->blocks[hf->first + i];
			const struct oracle_bb *o = &obb[ofn[f].first + i];

			CHECK_EQ_U64(b->id, o->id);
			CHECK_EQ_U64(b->addr, o->base + o->off);
			CHECK_EQ_U64(b->size, o->size);
			CHECK_EQ_U64(b->meta, o->meta);
			CHECK_EQ_U64(b->range, o->range);
		}
	}
	CHECK(multi == want_ranges);
}

static void one_fixture(const char *src, const char *flags, bool ranges)
{
	struct hwp__bb_addr_map m = { 0 };
	const char *bin;

	if (!tools())
		SKIP("clang-19 or llvm-readobj-19 missing");
	if (!(bin = build(src, flags, "fx")))
		SKIP("clang-19 cannot build %s here", src);
	CHECK(read_oracle(bin) == 0);
	CHECK(hwp__bb_addr_map_read(bin, &m) == 0);
	check_against_oracle(&m, ranges);
	hwp__bb_addr_map_free(&m);
}

static void test_readobj_one_range(void)
{
	one_fixture("pgo_switch.c", "-fbasic-block-address-map", false);
}

static void test_readobj_advise(void)
{
	one_fixture("advise_patterns.c", "-fbasic-block-address-map", false);
}

static void test_readobj_ranges(void)
{
	one_fixture("pgo_switch.c", "-fbasic-block-address-map -fbasic-block-sections=all", true);
}

/* The section's bytes and file offset in BIN (malloc'd), NULL when none. */
static uint8_t *section_bytes(const char *bin, size_t *size, uint64_t *off)
{
	Elf *e = hwp__elf_open(bin);
	Elf_Scn *scn = NULL;
	uint8_t *out = NULL;
	size_t raw_size;
	const char *raw;

	if (!e)
		return NULL;
	raw = elf_rawfile(e, &raw_size);
	while (raw && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == HWP_SHT_LLVM_BB_ADDR_MAP &&
		    sh.sh_offset + sh.sh_size <= raw_size && (out = malloc(sh.sh_size + 1))) {
			memcpy(out, raw + sh.sh_offset, sh.sh_size);
			*size = sh.sh_size;
			*off = sh.sh_offset;
			break;
		}
	}
	elf_end(e);
	return out;
}

/* An error of the parse of LEN bytes: one line, "NAME: .llvm_bb_addr_map at
   offset 0xN: why" with N in the section's bytes. */
static bool good_error(uint64_t off, size_t len)
{
	const char *msg = hwp_errmsg();
	unsigned long long at;
	int n = 0;

	if (strchr(msg, '\n') || sscanf(msg, "sec.bin: .llvm_bb_addr_map at offset 0x%llx: %n", &at, &n) != 1 || !n ||
	    !msg[n])
		return false;
	return at >= off && at <= off + len;
}

static void test_truncated_and_corrupt(void)
{
	struct hwp__bb_addr_map full = { 0 };
	const char *bin;
	uint8_t *sec;
	size_t size = 0, ok = 0, bad = 0;
	uint64_t off = 0;
	unsigned seed = 1;

	if (!tools())
		SKIP("clang-19 or llvm-readobj-19 missing");
	if (!(bin = build("pgo_switch.c", "-fbasic-block-address-map -fbasic-block-sections=all", "cut")))
		SKIP("clang-19 cannot build pgo_switch.c here");
	CHECK((sec = section_bytes(bin, &size, &off)) != NULL);
	if (!sec)
		return;
	CHECK(hwp__bb_addr_map_parse(sec, size, off, "sec.bin", &full) == 0);
	for (size_t len = 0; len < size; len++) {
		struct hwp__bb_addr_map m = { 0 };
		uint8_t *cut = malloc(len + 1); /* exactly LEN bytes for ASan (+1: malloc(0)) */

		memcpy(cut, sec, len);
		if (hwp__bb_addr_map_parse(cut, len, off, "sec.bin", &m) == 0) {
			/* a cut between entries: the entries before it */
			ok++;
			CHECK(m.n_funcs < full.n_funcs);
			for (size_t i = 0; i < m.n_blocks; i++)
				CHECK(m.blocks[i].addr == full.blocks[i].addr && m.blocks[i].size == full.blocks[i].size &&
				      m.blocks[i].id == full.blocks[i].id && m.blocks[i].meta == full.blocks[i].meta);
		} else {
			bad++;
			if (!good_error(off, len)) {
				fprintf(stderr, "length %zu: %s\n", len, hwp_errmsg());
				CHECK(0);
			}
			/* the entries before the bad one are kept */
			CHECK(m.n_funcs < full.n_funcs);
		}
		hwp__bb_addr_map_free(&m);
		free(cut);
	}
	CHECK(ok == full.n_funcs); /* one cut per entry's start */
	CHECK(bad == size - ok);
	/* bytes changed at random: entries or one good error line */
	for (int round = 0; round < 20000; round++) {
		struct hwp__bb_addr_map m = { 0 };
		uint8_t *c = malloc(size);

		memcpy(c, sec, size);
		for (int k = 0; k < 1 + round % 4; k++)
			c[rand_r(&seed) % size] = (uint8_t)rand_r(&seed);
		if (hwp__bb_addr_map_parse(c, size, off, "sec.bin", &m) < 0 && !good_error(off, size)) {
			fprintf(stderr, "round %d: %s\n", round, hwp_errmsg());
			CHECK(0);
		}
		for (size_t i = 0; i < m.n_funcs; i++)
			CHECK(m.funcs[i].first + m.funcs[i].n <= m.n_blocks);
		hwp__bb_addr_map_free(&m);
		free(c);
	}
	/* a version hwprof does not read, named */
	sec[0] = 3;
	struct hwp__bb_addr_map m = { 0 };
	CHECK(hwp__bb_addr_map_parse(sec, size, off, "sec.bin", &m) < 0 && good_error(off, size) &&
	      strstr(hwp_errmsg(), "version 3"));
	hwp__bb_addr_map_free(&m);
	hwp__bb_addr_map_free(&full);
	free(sec);
}

static void test_refused(void)
{
	struct hwp__bb_addr_map m = { 0 };
	const char *bin, *obj;

	if (!tools())
		SKIP("clang-19 or llvm-readobj-19 missing");
	if (!(bin = build("pgo_switch.c", "", "plain")) ||
	    !(obj = build("pgo_switch.c", "-c -fbasic-block-address-map", "obj.o")))
		SKIP("clang-19 cannot build pgo_switch.c here");
	CHECK(hwp__bb_addr_map_read(bin, &m) == -ENOENT);
	CHECK(strstr(hwp_errmsg(), bin) && strstr(hwp_errmsg(), "-fbasic-block-address-map") &&
	      !strchr(hwp_errmsg(), '\n'));
	CHECK(hwp__bb_addr_map_read(obj, &m) == -ENOTSUP);
	CHECK(strstr(hwp_errmsg(), obj) && strstr(hwp_errmsg(), "relocatable"));
	CHECK(hwp__bb_addr_map_read("tests/fixtures/pgo_switch.c", &m) == -ENOENT);
	CHECK(m.n_funcs == 0 && m.n_blocks == 0);
	hwp__bb_addr_map_free(&m);
}

int main(void)
{
	RUN(test_readobj_one_range);
	RUN(test_readobj_advise);
	RUN(test_readobj_ranges);
	RUN(test_truncated_and_corrupt);
	RUN(test_refused);
	TL_EXIT();
}
