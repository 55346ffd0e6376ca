/* SPDX-License-Identifier: MIT */
/*
 * BOLT fdata and pre-aggregated text from the collector's tables. The
 * fdata needs BOLT's view of the binary: its functions (symbol-table
 * functions, local names made unique as "name/N", PLT entries "sym@PLT")
 * and their basic blocks (leaders: the entry, direct branch targets inside
 * the function, jump-table targets and the instruction after a branch or
 * return, but for a jcc's in-function jmp).
 * A range [start, end] that stays in one function then crosses a block
 * boundary wherever the next instruction starts a block: that boundary is
 * a fall-through edge, from the block's last instruction.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "decode/code_cache.h"
#include "decode/insn_starts.h"
#include "export/profile_sum.h"
#include "hwprof/bolt_profile.h"
#include "hwprof/symbolize.h"
#include "symbolize/build_id_lookup.h"
#include "symbolize/elf_functions.h"
#include "util/error.h"
#include "util/vec.h"

struct func {
	uint64_t start, size; /* link-time address */
	char *name;           /* BOLT's: global as is, local "name/N" */
	uint8_t *leader;      /* per byte: LEADER, AFTER_CALL bits (decoded on first use) */
	char *numbered;       /* while naming */
	uint64_t sec_end;     /* while sizing a symbol without a size */
	bool decoded;
	bool local;
};

enum {
	LEADER = 1,     /* starts a basic block */
	AFTER_CALL = 2, /* an instruction right after a call */
};

struct edge {
	int32_t from_fn, to_fn; /* -1: unknown */
	uint64_t from_off, to_off, mispreds, count;
};

struct origin;

struct ctx {
	struct hwp__code_file *file;
	struct hwp__code_cache *cc;
	int module;
	struct func *fn;
	size_t n_fn, cap_fn;
	struct edge *e;
	size_t n_e, cap_e;
	Elf *elf;              /* the binary: symbols, PLT, jump tables */
	struct origin *origin; /* sorted by target */
	size_t n_origin;
	struct pa_line *pa;    /* pre-aggregated lines, when several collectors are summed */
	size_t n_pa, cap_pa;
	bool pa_sum;
};

/* A pre-aggregated line: 'B' FROM TO COUNT MISPREDS, 'F'/'f' START END COUNT. */
struct pa_line {
	char tag;
	uint64_t a, b, count, mispreds;
};

/* One line to FP, or kept to be summed with the other collectors' (X->pa_sum). */
static int pa_emit(struct ctx *x, FILE *fp, char tag, uint64_t a, uint64_t b, uint64_t count, uint64_t mispreds)
{
	struct pa_line *l;

	if (!x->pa_sum) {
		if (tag == 'B')
			fprintf(fp, "B %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n", a, b, count, mispreds);
		else
			fprintf(fp, "%c %" PRIx64 " %" PRIx64 " %" PRIu64 "\n", tag, a, b, count);
		return 0;
	}
	if (!(l = HWP_VEC_PUSH(x->pa, x->n_pa, x->cap_pa)))
		return hwp__set_error(ENOMEM, "out of memory writing a BOLT profile");
	*l = (struct pa_line){ tag, a, b, count, mispreds };
	return 0;
}

static int by_pa_key(const void *p, const void *q)
{
	const struct pa_line *a = p, *b = q;

	if (a->tag != b->tag)
		return a->tag == 'B' ? -1 : b->tag == 'B' ? 1 : a->tag < b->tag ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* The summed lines, each key once (branches first, then fall-throughs). */
static void write_pa_sum(FILE *fp, struct ctx *x)
{
	size_t n = 0;

	if (!x->n_pa)
		return;
	qsort(x->pa, x->n_pa, sizeof(*x->pa), by_pa_key);
	for (size_t i = 1; i < x->n_pa; i++) {
		if (!by_pa_key(&x->pa[n], &x->pa[i])) {
			x->pa[n].count += x->pa[i].count;
			x->pa[n].mispreds += x->pa[i].mispreds;
		} else {
			x->pa[++n] = x->pa[i];
		}
	}
	x->pa_sum = false;
	for (size_t i = 0; i <= n; i++)
		pa_emit(x, fp, x->pa[i].tag, x->pa[i].a, x->pa[i].b, x->pa[i].count, x->pa[i].mispreds);
}

static int by_start(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size; /* a sized alias first */
}

static int push_fn(struct ctx *x, uint64_t start, uint64_t size, const char *name)
{
	struct func *f = HWP_VEC_PUSH(x->fn, x->n_fn, x->cap_fn);

	if (!f || !(name = strdup(name)))
		return -ENOMEM;
	*f = (struct func){ .start = start, .size = size, .name = (char *)name };
	return 0;
}

/* The symbol name of the relocation at GOT slot SLOT (JUMP_SLOT in
   .rela.plt, GLOB_DAT in .rela.dyn), NULL when none. */
static const char *got_symbol(Elf *e, uint64_t slot)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh, dsh;
		Elf_Data *d, *dd;
		Elf_Scn *dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(d = elf_getdata(scn, NULL)) ||
		    !(dyn = elf_getscn(e, sh.sh_link)) || !gelf_getshdr(dyn, &dsh) || !(dd = elf_getdata(dyn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
			GElf_Rela r;
			GElf_Sym sym;

			if (gelf_getrela(d, (int)i, &r) && r.r_offset == slot && GELF_R_SYM(r.r_info) &&
			    gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
				return elf_strptr(e, dsh.sh_link, sym.st_name);
		}
	}
	return NULL;
}

/*
 * BOLT's PLT functions (x86-64): each entry of .plt, .plt.sec and .plt.got
 * whose indirect jump (ff 25, behind endbr64 and bnd) goes through a GOT
 * slot with a symbol's relocation is "SYM@PLT"; the start of .plt (the
 * resolver's entry) is the pseudo function "__BOLT_PSEUDO_.plt".
 */
static int read_plt(struct ctx *x, Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	int err;

	if (elf_getshdrstrndx(e, &shstr))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;
		uint64_t ent;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstr, sh.sh_name)) ||
		    (strcmp(name, ".plt") && strcmp(name, ".plt.sec") && strcmp(name, ".plt.got")) ||
		    sh.sh_type != SHT_PROGBITS || !(d = elf_getdata(scn, NULL)) || d->d_size < sh.sh_size)
			continue;
		ent = sh.sh_entsize ? sh.sh_entsize : 16;
		if (!strcmp(name, ".plt") && (err = push_fn(x, sh.sh_addr, ent, "P__BOLT_PSEUDO_.plt")))
			return err;
		for (uint64_t o = 0; o + ent <= sh.sh_size; o += ent) {
			const uint8_t *p = (const uint8_t *)d->d_buf + o;
			char buf[512];
			const char *sym;

			for (uint64_t i = 0; i + 6 <= ent; i++) {
				int32_t disp;

				if (p[i] != 0xff || p[i + 1] != 0x25)
					continue;
				memcpy(&disp, p + i + 2, 4);
				sym = got_symbol(e, sh.sh_addr + o + i + 6 + (uint64_t)(int64_t)disp);
				if (sym && *sym) {
					snprintf(buf, sizeof(buf), "P%s@PLT", sym);
					if ((err = push_fn(x, sh.sh_addr + o, ent, buf)))
						return err;
				}
				break;
			}
		}
	}
	return 0;
}

static int by_name_start(const void *a, const void *b)
{
	const struct func *x = *(const struct func *const *)a, *y = *(const struct func *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->start < y->start ? -1 : x->start > y->start;
}

struct fn_reader {
	struct ctx *x;
	Elf *e;
	const char *path;
};

static int add_function(void *ctx, const GElf_Sym *sym, const char *name)
{
	struct fn_reader *fr = ctx;
	struct func *f = HWP_VEC_PUSH(fr->x->fn, fr->x->n_fn, fr->x->cap_fn);

	if (!f)
		return hwp__set_error(ENOMEM, "%s: out of memory reading its symbols", fr->path);
	*f = (struct func){ .start = sym->st_value, .size = sym->st_size };
	if (!f->size) { /* crtstuff's, _init, _fini: to the next one, see below */
		Elf_Scn *in = elf_getscn(fr->e, sym->st_shndx);
		GElf_Shdr ish;

		if (in && gelf_getshdr(in, &ish) && sym->st_value >= ish.sh_addr &&
		    sym->st_value < ish.sh_addr + ish.sh_size)
			f->sec_end = ish.sh_addr + ish.sh_size;
	}
	/* 'L'ocal, 'G'lobal or 'P'LT until the names are made unique */
	if (!(f->name = malloc(strlen(name) + 2)))
		return hwp__set_error(ENOMEM, "%s: out of memory reading its symbols", fr->path);
	f->name[0] = GELF_ST_BIND(sym->st_info) == STB_LOCAL ? 'L' : 'G';
	strcpy(f->name + 1, name);
	return 0;
}

/* The functions of the symbol table, sorted; local names numbered per name
   in address order, as BOLT's name resolver does. */
static int read_functions(struct ctx *x, const char *path)
{
	Elf *e = x->elf = hwp__elf_open(path);
	struct func **order = NULL;
	unsigned id = 0;
	bool global_seen = false;
	int err = 0;

	if (!e)
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	struct fn_reader fr = { x, e, path };

	if ((err = hwp__elf_each_function(e, add_function, &fr)))
		goto out;
	global_seen = x->n_fn > 0;
	if (global_seen && (err = read_plt(x, e))) {
		err = hwp__set_error(ENOMEM, "%s: out of memory reading its PLT", path);
		goto out;
	}
	if (!global_seen) {
		err = hwp__set_error(ENOENT, "%s: no symbol table (BOLT needs one)", path);
		goto out;
	}
	qsort(x->fn, x->n_fn, sizeof(*x->fn), by_start);
	/* aliases (several symbols at one address): BOLT keeps one function */
	size_t n = 0;
	for (size_t i = 0; i < x->n_fn; i++) {
		if (n && x->fn[n - 1].start == x->fn[i].start) {
			free(x->fn[i].name);
			continue;
		}
		x->fn[n++] = x->fn[i];
	}
	x->n_fn = n;
	/* a symbol without a size reaches the next function or its section's
	   end, as BOLT sizes it */
	for (size_t i = 0; i < x->n_fn; i++) {
		struct func *f = &x->fn[i];

		if (f->size)
			continue;
		f->size = f->sec_end > f->start ? f->sec_end - f->start : 0;
		if (i + 1 < x->n_fn && x->fn[i + 1].start - f->start < f->size)
			f->size = x->fn[i + 1].start - f->start;
	}
	/* BOLT names a local "name/N", N counting the locals of that name in
	   address order (sorted by name, then address: a stable count) */
	if (!(order = malloc((x->n_fn ? x->n_fn : 1) * sizeof(*order)))) {
		err = hwp__set_error(ENOMEM, "%s: out of memory reading its symbols", path);
		goto out;
	}
	for (size_t i = 0; i < x->n_fn; i++)
		order[i] = &x->fn[i];
	qsort(order, x->n_fn, sizeof(*order), by_name_start);
	for (size_t i = 0; i < x->n_fn; i++) {
		struct func *f = order[i];
		char *nn;

		if (f->name[0] != 'L') /* 'G'lobal or 'P'LT: the name as is */
			continue;
		id = i && order[i - 1]->name[0] == 'L' && !strcmp(order[i - 1]->name, f->name) ? id + 1 : 1;
		if (!(nn = malloc(strlen(f->name) + 16))) {
			err = hwp__set_error(ENOMEM, "%s: out of memory reading its symbols", path);
			goto out;
		}
		sprintf(nn, "%s/%u", f->name + 1, id);
		f->local = true;
		f->numbered = nn; /* renamed after the pass: the count compares raw names */
	}
	for (size_t i = 0; i < x->n_fn; i++) {
		struct func *f = &x->fn[i];

		if (f->numbered) {
			free(f->name);
			f->name = f->numbered;
			f->numbered = NULL;
		} else {
			memmove(f->name, f->name + 1, strlen(f->name));
		}
	}
out:
	free(order);
	return err; /* x->elf stays open for the jump tables */
}

/* The function containing link-time address A, -1 when none. */
static int find_fn(const struct ctx *x, uint64_t a)
{
	size_t lo = 0, hi = x->n_fn;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->fn[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || a - x->fn[lo - 1].start >= x->fn[lo - 1].size)
		return -1;
	return (int)lo - 1;
}

static bool to_offset(const struct ctx *x, uint64_t vaddr, uint64_t *off)
{
	return hwp__code_file_vaddr_to_offset(x->file, vaddr, off) == 0;
}

static bool to_vaddr(const struct ctx *x, uint64_t off, uint64_t *vaddr)
{
	return hwp__code_file_offset_to_vaddr(x->file, off, vaddr) == 0;
}

/* The bytes at link-time address A with at least N of them, NULL when not
   in the file. */
static const uint8_t *bytes_at(const struct ctx *x, uint64_t a, size_t n)
{
	size_t nph, size;
	const uint8_t *image = (const uint8_t *)elf_rawfile(x->elf, &size);

	if (!image || elf_getphdrnum(x->elf, &nph))
		return NULL;
	for (size_t i = 0; i < nph; i++) { /* any loadable segment: tables are data */
		GElf_Phdr ph;

		if (!gelf_getphdr(x->elf, (int)i, &ph) || ph.p_type != PT_LOAD || a < ph.p_vaddr ||
		    a - ph.p_vaddr >= ph.p_filesz || ph.p_filesz - (a - ph.p_vaddr) < n ||
		    ph.p_offset + (a - ph.p_vaddr) + n > size)
			continue;
		return image + ph.p_offset + (a - ph.p_vaddr);
	}
	return NULL;
}

/* "lea disp32(%rip), %reg" at A (LEN bytes): its address, else 0; *REG:
   the register's number (0-15). */
static uint64_t rip_lea(const struct ctx *x, uint64_t a, unsigned len, unsigned *reg)
{
	const uint8_t *p = bytes_at(x, a, len);
	int32_t disp;

	if (!p || len != 7 || (p[0] & 0xf8) != 0x48 || p[1] != 0x8d || (p[2] & 0xc7) != 0x05)
		return 0;
	memcpy(&disp, p + 3, 4);
	*reg = ((p[0] & 4u) << 1) | ((p[2] >> 3) & 7u);
	return a + len + (uint64_t)(int64_t)disp;
}

/*
 * gcc's PIC dispatch ends "movslq (%B,%i,4),%r; add %B,%r; jmp *%r": the
 * table's base register B, from the add at PREV (PLEN bytes) and the
 * "jmp *%r" at A (LEN bytes); -1 when the code is not of that shape. The
 * last lea before the jump may load something else (a message on a path
 * joining there), so the table is the lea into B.
 */
static int table_base_reg(const struct ctx *x, uint64_t prev, unsigned plen, uint64_t a, unsigned len)
{
	const uint8_t *j = bytes_at(x, a, len), *p = plen ? bytes_at(x, prev, plen) : NULL;
	unsigned i = 0, jr, r, m;

	if (!j || !p)
		return -1;
	if (i < len && j[i] == 0x3e) /* notrack */
		i++;
	jr = i < len && (j[i] & 0xf0) == 0x40 ? (j[i++] & 1u) << 3 : 0;
	if (i + 2 != len || j[i] != 0xff || (j[i + 1] & 0xf8) != 0xe0) /* ff /4, a register */
		return -1;
	jr |= j[i + 1] & 7u;
	/* add r64,r/m64 (03 /r) or add r/m64,r64 (01 /r), both registers */
	if (plen != 3 || (p[0] & 0xf8) != 0x48 || (p[1] != 0x01 && p[1] != 0x03) || (p[2] & 0xc0) != 0xc0)
		return -1;
	r = ((p[0] & 4u) << 1) | ((p[2] >> 3) & 7u);
	m = ((p[0] & 1u) << 3) | (p[2] & 7u);
	if (p[1] == 0x01 && m == jr) /* add %r,%jr: r/m is the destination */
		return (int)r;
	if (p[1] == 0x03 && r == jr)
		return (int)m;
	return -1;
}

/*
 * The case labels of the jump table behind the indirect jump at A (BOLT
 * analyses jump tables and starts a block at each target): "jmp
 * *T(,%reg,8)" reads absolute entries at T; otherwise the table is the
 * last rip-relative lea's address LEA with 32-bit entries relative to it
 * (gcc's PIC tables). Entries are read while they land in F, and a PIC
 * table ends where the function's next table begins (LIMIT): gcc puts a
 * function's tables one after the other.
 */
static void mark_jump_table(const struct ctx *x, struct func *f, uint64_t a, unsigned len, uint64_t lea,
			    uint64_t limit)
{
	const uint8_t *p = bytes_at(x, a, len);
	unsigned i = 0;

	if (!p)
		return;
	while (i < len && (p[i] == 0x3e || (p[i] & 0xf0) == 0x40)) /* notrack, REX */
		i++;
	if (i + 7 <= len && p[i] == 0xff && p[i + 1] == 0x24 && (p[i + 2] & 7) == 5) {
		int32_t disp;

		memcpy(&disp, p + i + 3, 4);
		for (uint64_t t = (uint64_t)(int64_t)disp, k = 0; k < 4096; k++) {
			const uint8_t *e = bytes_at(x, t + 8 * k, 8);
			uint64_t v;

			if (!e)
				return;
			memcpy(&v, e, 8);
			if (v < f->start || v >= f->start + f->size)
				return;
			f->leader[v - f->start] |= LEADER;
		}
		return;
	}
	for (uint64_t k = 0; lea && k < 4096 && lea + 4 * k < limit; k++) {
		const uint8_t *e = bytes_at(x, lea + 4 * k, 4);
		int32_t v;
		uint64_t t;

		if (!e)
			return;
		memcpy(&v, e, 4);
		t = lea + (uint64_t)(int64_t)v;
		if (t < f->start || t >= f->start + f->size)
			return;
		f->leader[t - f->start] |= LEADER;
	}
}

/* Decodes function F once and marks its block leaders. */
static int decode_fn(struct ctx *x, struct func *f)
{
	uint64_t off, a;
	uint64_t lea = 0; /* the last rip-relative lea's address: a PIC jump table */
	uint64_t lea_in[16] = { 0 }, prev = 0; /* the last lea into each register; the last insn */
	unsigned prev_len = 0, reg;
	struct jt {
		uint64_t at, lea;
		unsigned len;
	} jt[64]; /* the indirect jumps, read once every table's start is known */
	size_t n_jt = 0;
	bool after_branch = true, after_cond = false, after_call = false;

	if (f->decoded)
		return f->leader ? 0 : -ENOENT;
	f->decoded = true;
	if (!to_offset(x, f->start, &off) || !(f->leader = calloc(f->size, 1)))
		return -ENOENT;
	for (a = f->start; a < f->start + f->size;) {
		struct hwp__insn in;
		uint64_t t;

		if (hwp__code_cache_insn(x->cc, x->module, off + (a - f->start), &in) || !in.len)
			break;
		bool inside = (in.cls == HWP_INSN_COND || in.cls == HWP_INSN_JUMP) && in.has_target &&
			      to_vaddr(x, in.target, &t) && t >= f->start && t < f->start + f->size;

		/* BOLT keeps "jcc; jmp" in one block (two terminators) when
		   the jmp stays in the function; a jmp elsewhere is a tail call */
		if (after_branch && !(after_cond && in.cls == HWP_INSN_JUMP && inside))
			f->leader[a - f->start] |= LEADER;
		if (after_call)
			f->leader[a - f->start] |= AFTER_CALL;
		after_call = in.cls == HWP_INSN_CALL || in.cls == HWP_INSN_IND_CALL;
		after_cond = in.cls == HWP_INSN_COND;
		after_branch = in.cls == HWP_INSN_COND || in.cls == HWP_INSN_JUMP || in.cls == HWP_INSN_IND_JUMP ||
			       in.cls == HWP_INSN_RET;
		if (inside)
			f->leader[t - f->start] |= LEADER;
		if (in.cls == HWP_INSN_IND_JUMP && n_jt < sizeof(jt) / sizeof(jt[0])) {
			int b = table_base_reg(x, prev, prev_len, a, in.len);

			jt[n_jt++] = (struct jt){ a, b >= 0 && lea_in[b] ? lea_in[b] : lea, in.len };
		} else if (in.cls == HWP_INSN_OTHER && (t = rip_lea(x, a, in.len, &reg))) {
			lea = lea_in[reg] = t;
		}
		prev = a;
		prev_len = in.len;
		a += in.len;
	}
	for (size_t i = 0; i < n_jt; i++) {
		uint64_t limit = UINT64_MAX;

		for (size_t j = 0; j < n_jt; j++)
			if (jt[j].lea > jt[i].lea && jt[j].lea < limit)
				limit = jt[j].lea;
		mark_jump_table(x, f, jt[i].at, jt[i].len, jt[i].lea, limit);
	}
	return 0;
}

static int add_edge(struct ctx *x, int from_fn, uint64_t from_off, int to_fn, uint64_t to_off, uint64_t mispreds,
		    uint64_t count)
{
	struct edge *e = HWP_VEC_PUSH(x->e, x->n_e, x->cap_e);

	if (!e)
		return hwp__set_error(ENOMEM, "out of memory writing a BOLT profile");
	*e = (struct edge){ from_fn, to_fn, from_fn < 0 ? 0 : from_off, to_fn < 0 ? 0 : to_off, mispreds, count };
	return 0;
}

/* Per branch target: how many taken branches reached it from inside its
   function and from outside (another function, module or nowhere). */
struct origin {
	uint64_t target, inside, outside;
};

static int by_target(const void *p, const void *q)
{
	const struct origin *a = p, *b = q;

	return a->target < b->target ? -1 : a->target > b->target;
}

/* The range table does not keep which branch began each range; perf2bolt
   asks whether its source lies in the range's function. So the ranges
   starting at S are split in proportion to the taken branches reaching S
   from outside its function and from inside: *OUT of COUNT began outside.
   (A block right after a call that a jump also reaches: the call's
   fall-through then counts about the call's returns, not every range
   starting there nor none.) */
static void origin_split(const struct ctx *x, uint64_t s, uint64_t count, uint64_t *out)
{
	struct origin key = { .target = s }, *o;

	o = bsearch(&key, x->origin, x->n_origin, sizeof(*x->origin), by_target);
	if (!o || !o->outside)
		*out = 0;
	else if (!o->inside)
		*out = count;
	else /* long double: count times outside may not fit 64 bits */
		*out = (uint64_t)((long double)count * o->outside / ((long double)o->outside + o->inside) + 0.5L);
}

static int gather_origins(struct ctx *x, struct hwp_branch_collector *c)
{
	size_t n, k = 0;
	const struct hwp_branch_row *r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);

	if (!(x->origin = calloc(n ? n : 1, sizeof(*x->origin))))
		return hwp__set_error(ENOMEM, "out of memory writing a BOLT profile");
	for (size_t i = 0; i < n; i++) {
		const struct hwp_branch_key *b = &r[i].key;
		uint64_t ta, fa;
		int tf;

		if (b->to.module != x->module || !to_vaddr(x, b->to.offset, &ta))
			continue;
		tf = find_fn(x, ta);
		x->origin[k].target = ta;
		if (tf >= 0 && b->from.module == x->module && to_vaddr(x, b->from.offset, &fa) && find_fn(x, fa) == tf)
			x->origin[k].inside = r[i].c.count;
		else
			x->origin[k].outside = r[i].c.count;
		k++;
	}
	qsort(x->origin, k, sizeof(*x->origin), by_target);
	x->n_origin = 0;
	for (size_t i = 0; i < k; i++) {
		if (x->n_origin && x->origin[x->n_origin - 1].target == x->origin[i].target) {
			x->origin[x->n_origin - 1].inside += x->origin[i].inside;
			x->origin[x->n_origin - 1].outside += x->origin[i].outside;
		} else {
			x->origin[x->n_origin++] = x->origin[i];
		}
	}
	return 0;
}

/*
 * The fall-through edges of the range [S, E] (link-time addresses), as
 * perf2bolt's trace walk finds them; false when the range leaves its
 * function or runs off a block that cannot fall through. FROM_RETURN:
 * the branch into the range came from outside the function (see
 * origin_split()); when the range then begins a block right after a call,
 * BOLT takes it for the call's return and also counts the call's
 * fall-through edge into that block.
 */
static int range_edges(struct ctx *x, uint64_t s, uint64_t e, uint64_t count, bool emit, bool from_return)
{
	int fi = find_fn(x, s);
	struct func *f;
	uint64_t fn_off, last = s, a;
	int err;

	if (fi < 0 || find_fn(x, e) != fi || s > e)
		return 0;
	f = &x->fn[fi];
	if (decode_fn(x, f) || !to_offset(x, f->start, &fn_off))
		return 0;
	if (from_return && f->leader[s - f->start] == (LEADER | AFTER_CALL) && s != f->start) {
		/* the block before ends with the call: start the walk there */
		for (a = s - 1; a > f->start && !(f->leader[a - f->start] & LEADER); a--)
			;
		s = a;
	}
	for (a = s; a <= e;) {
		struct hwp__insn in;

		if (hwp__code_cache_insn(x->cc, x->module, fn_off + (a - f->start), &in) || !in.len)
			return 0;
		/* the block's last instruction (nops included: BOLT keeps
		   their offsets) falls through to the leader */
		if (a != s && (f->leader[a - f->start] & LEADER) && emit &&
		    (err = add_edge(x, fi, last - f->start, fi, a - f->start, 0, count)))
			return err;
		last = a;
		a += in.len;
	}
	return 0;
}

static int by_edge(const void *p, const void *q)
{
	const struct edge *a = p, *b = q;

	if (a->from_fn != b->from_fn)
		return a->from_fn < b->from_fn ? -1 : 1;
	if (a->from_off != b->from_off)
		return a->from_off < b->from_off ? -1 : 1;
	if (a->to_fn != b->to_fn)
		return a->to_fn < b->to_fn ? -1 : 1;
	return a->to_off < b->to_off ? -1 : a->to_off > b->to_off;
}

static void write_loc(FILE *fp, const struct ctx *x, int fn, uint64_t off)
{
	if (fn < 0)
		fputs("0 [unknown] 0 ", fp);
	else
		fprintf(fp, "1 %s %" PRIx64 " ", x->fn[fn].name, off);
}

/* Taken branches with an end in MODULE, as perf2bolt counts them: a side
   outside every function is unknown, branches from returns are left out. */
static int gather_branches(struct ctx *x, struct hwp_branch_collector *c, FILE *pa)
{
	size_t n;
	const struct hwp_branch_row *r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);
	int err;

	for (size_t i = 0; i < n; i++) {
		const struct hwp_branch_key *k = &r[i].key;
		uint64_t fa = 0, ta = 0;
		bool fin = k->from.module == x->module && to_vaddr(x, k->from.offset, &fa);
		bool tin = k->to.module == x->module && to_vaddr(x, k->to.offset, &ta);
		struct hwp__insn in;
		int ff, tf;

		if (!fin && !tin)
			continue;
		if (pa) {
			if ((err = pa_emit(x, pa, 'B', fin ? fa : 0, tin ? ta : 0, r[i].c.count, r[i].c.mispred)))
				return err;
			continue;
		}
		ff = fin ? find_fn(x, fa) : -1;
		tf = tin ? find_fn(x, ta) : -1;
		if (ff < 0 && tf < 0)
			continue;
		if (ff >= 0 && !hwp__code_cache_insn(x->cc, x->module, k->from.offset, &in) && in.cls == HWP_INSN_RET)
			continue;
		if ((err = add_edge(x, ff, ff >= 0 ? fa - x->fn[ff].start : 0, tf, tf >= 0 ? ta - x->fn[tf].start : 0,
				    r[i].c.mispred, r[i].c.count)))
			return err;
	}
	return 0;
}

static int gather_ranges(struct ctx *x, struct hwp_branch_collector *c, FILE *pa)
{
	size_t n;
	const struct hwp_branch_row *r = hwp_branch_table__rows(hwp_branch_collector__ranges(c), &n);
	int err;

	for (size_t i = 0; i < n; i++) {
		uint64_t s, e, part[2]; /* began inside, outside the function */

		if (r[i].key.from.module != x->module || !to_vaddr(x, r[i].key.from.offset, &s) ||
		    !to_vaddr(x, r[i].key.to.offset, &e))
			continue;
		origin_split(x, s, r[i].c.count, &part[1]);
		part[0] = r[i].c.count - part[1];
		for (int k = 0; k < 2; k++) {
			if (!part[k])
				continue;
			if ((err = range_edges(x, s, e, part[k], !pa, k)))
				return err;
			if (pa && (err = pa_emit(x, pa, k ? 'f' : 'F', s, e, part[k], 0)))
				return err;
		}
	}
	return 0;
}

struct ip_count {
	int fn;
	uint64_t off, count;
};

static int by_fn_off(const void *p, const void *q)
{
	const struct ip_count *a = p, *b = q;

	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

/*
 * BOLT's fdata without LBR, as 'perf2bolt -nl' writes it: "no_lbr" and the
 * events sampled (spelled as perf script prints them, "cpu-clock:"), then
 * "1 FUNC OFF COUNT" per sampled address of a function; samples outside
 * every function are left out, as perf2bolt leaves them.
 */
static int write_no_lbr(struct ctx *x, struct hwp_branch_collector *c, FILE *fp)
{
	size_t n, nev, k = 0;
	const struct hwp_branch_row *r = hwp_branch_table__rows(hwp__branch_collector_ip_samples(c), &n);
	const struct hwp_evsel *const *ev = hwp__branch_collector_ip_events(c, &nev);
	struct ip_count *v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return hwp__set_error(ENOMEM, "out of memory writing a BOLT profile");
	for (size_t i = 0; i < n; i++) {
		uint64_t a;
		int fn;

		if (r[i].key.from.module != x->module || !r[i].c.count || !to_vaddr(x, r[i].key.from.offset, &a) ||
		    (fn = find_fn(x, a)) < 0)
			continue;
		v[k++] = (struct ip_count){ fn, a - x->fn[fn].start, r[i].c.count };
	}
	qsort(v, k, sizeof(*v), by_fn_off);
	fputs("no_lbr", fp);
	for (size_t i = 0; i < nev; i++)
		fprintf(fp, " %s:", ev[i]->name ? ev[i]->name : "unknown");
	fputc('\n', fp);
	for (size_t i = 0; i < k; i++)
		fprintf(fp, "1 %s %" PRIx64 " %" PRIu64 "\n", x->fn[v[i].fn].name, v[i].off, v[i].count);
	free(v);
	return 0;
}

static void write_fdata(FILE *fp, struct ctx *x)
{
	size_t n = 0;

	if (!x->n_e)
		return;
	qsort(x->e, x->n_e, sizeof(*x->e), by_edge);
	for (size_t i = 1; i < x->n_e; i++) { /* rows split by flags, fall-throughs on taken edges */
		struct edge *p = &x->e[n], *q = &x->e[i];

		if (p->from_fn == q->from_fn && p->from_off == q->from_off && p->to_fn == q->to_fn &&
		    p->to_off == q->to_off) {
			p->count += q->count;
			p->mispreds += q->mispreds;
		} else {
			x->e[++n] = *q;
		}
	}
	x->n_e = n + 1;
	for (size_t i = 0; i < x->n_e; i++) {
		write_loc(fp, x, x->e[i].from_fn, x->e[i].from_off);
		write_loc(fp, x, x->e[i].to_fn, x->e[i].to_off);
		fprintf(fp, "%" PRIu64 " %" PRIu64 "\n", x->e[i].mispreds, x->e[i].count);
	}
}

/*
 * The profile of each collector of CS[0..N) (one symbolizer), summed: the
 * split of a range's count into began-inside and began-outside (see
 * origin_split()) is made per collector, as each one's own profile makes
 * it, so the sum is the sum of their profiles (what merge-fdata makes of
 * them), whatever the order or the grouping of the collectors.
 */
static int write_sum(struct hwp_branch_collector *const *cs, size_t n, int module, enum hwp_bolt_format f, FILE *fp)
{
	struct hwp_branch_collector *c = cs[0];
	struct hwp_symbolizer *s = hwp__branch_collector_symbolizer(c);
	struct ctx x = { .module = module, .pa_sum = n > 1 };
	const char *path;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		if (f == HWP_BOLT_FORMAT_NO_LBR ? !hwp__branch_collector_ip_samples(cs[i]) : !hwp_branch_collector__ranges(cs[i]))
			return hwp__set_error(EINVAL, "BOLT profile: the branch collector counted no %s",
					      f == HWP_BOLT_FORMAT_NO_LBR ? "sample addresses" : "ranges");
	if (!s || !(path = hwp_symbolizer__module_file(s, module)))
		return -ENOENT; /* the symbolizer said why */
	if (!(x.cc = hwp__branch_collector_code_cache(c)))
		return hwp__set_error(ENOTSUP, "BOLT profile: no instruction decoder");
	if (!(x.file = hwp__code_file_open(path)))
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	if ((err = read_functions(&x, path)))
		goto out;
	if (f == HWP_BOLT_FORMAT_NO_LBR) {
		err = n == 1 ? write_no_lbr(&x, c, fp) : hwp__set_error(EINVAL, "BOLT profile: no sum of IP-sample profiles");
		goto flush;
	}
	for (size_t i = 0; i < n && !err; i++) {
		FILE *pa = f == HWP_BOLT_FORMAT_PREAGG ? fp : NULL;

		free(x.origin);
		x.origin = NULL;
		x.n_origin = 0;
		if (!(x.cc = hwp__branch_collector_code_cache(cs[i])))
			err = hwp__set_error(ENOTSUP, "BOLT profile: no instruction decoder");
		else if (!(err = gather_origins(&x, cs[i])) && !(err = gather_branches(&x, cs[i], pa)))
			err = gather_ranges(&x, cs[i], pa);
	}
	if (err)
		goto out;
	if (f == HWP_BOLT_FORMAT_FDATA)
		write_fdata(fp, &x);
	else if (x.pa_sum)
		write_pa_sum(fp, &x);
flush:
	if (!err && (fflush(fp) || ferror(fp)))
		err = hwp__set_error(EIO, "writing the profile: %s", strerror(errno ? errno : EIO));
out:
	for (size_t i = 0; i < x.n_fn; i++) {
		free(x.fn[i].name);
		free(x.fn[i].numbered);
		free(x.fn[i].leader);
	}
	free(x.fn);
	free(x.e);
	free(x.origin);
	free(x.pa);
	if (x.elf)
		elf_end(x.elf);
	hwp__code_file_close(x.file);
	return err;
}

int hwp_bolt_profile__write(struct hwp_branch_collector *c, int module, enum hwp_bolt_format f, FILE *fp)
{
	return write_sum(&c, 1, module, f, fp);
}

int hwp__bolt_profile_write_sum(struct hwp_branch_collector *const *cs, size_t n, int module, enum hwp_bolt_format f,
				FILE *fp)
{
	if (!n)
		return hwp__set_error(EINVAL, "BOLT profile: no collector");
	return write_sum(cs, n, module, f, fp);
}
