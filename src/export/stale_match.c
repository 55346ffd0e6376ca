/* SPDX-License-Identifier: MIT */
/*
 * hwprof/stale.h: a recording of OLD carried over to NEW. Both binaries are
 * decoded per function (only the functions the counts touch, their
 * namesakes, and NEW's functions whose names OLD lacks): instructions
 * hashed by mnemonic (addresses and registers change between builds,
 * opcodes much less), basic blocks split at branch targets and after
 * branches, a function's structural CFG hash over its blocks' hashes and
 * successors. Once functions are paired, the hashes are anchored (a call's
 * callee named as in NEW) and blocks and instructions aligned. The rows
 * are then rewritten at NEW's offsets in a collector of their own.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "analysis/branch_collect_internal.h"
#include "decode/code_cache.h"
#include "decode/disasm.h"
#include "decode/insn_starts.h"
#include "hwprof/stale.h"
#include "hwprof/symbolize.h"
#include "symbolize/build_id_lookup.h"
#include "symbolize/elf_functions.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/vec.h"

struct insn {
	uint64_t off;  /* file offset */
	uint64_t hash; /* mnemonic */
	uint64_t ah;   /* anchored: the mnemonic and, for a call or tail call, its callee's name in NEW */
	uint64_t al;   /* loose and anchored: every conditional branch one, cmp and test one (compilers
			  flip conditions and pick either compare), for aligning instructions */
	uint8_t cls;   /* enum hwp__insn_class */
	int32_t target; /* in-function direct target's insn index, else -1 */
	int32_t callee; /* the function called or tail-called, -1 none */
	bool has_dt;
	uint64_t dt;    /* with has_dt: a direct branch's or call's target (file offset) */
};

struct block {
	uint32_t first, n; /* insns */
	uint64_t hash;
	int32_t line;      /* source line offset from the function's entry, with has_line (DWARF) */
	bool has_line;
	int32_t match;     /* the other side's block, -1 none */
};

struct func {
	char *name;
	uint64_t start, size, off; /* link-time address, bytes, file offset of start */
	struct insn *in;
	size_t n_in;
	struct block *bl;
	size_t n_bl;
	int32_t *map;      /* OLD: per insn, NEW's insn index or -1 */
	uint64_t cfg, scfg; /* anchored CFG hash; structural (mnemonics only) */
	int32_t match;     /* the other side's function, -1 none */
	enum hwp_stale_how how;
	bool decoded, touched, name_unique, name_elsewhere;
	uint64_t br, br_ok, ins, ins_ok; /* OLD: counts */
};

struct bin {
	const char *path;
	int module; /* in the private symbolizer */
	struct hwp__code_file *file;
	struct func *fn; /* by start */
	size_t n_fn, cap_fn;
	struct func **by_name;
};

struct ctx {
	struct hwp__code_cache *cc;
	struct hwp_symbolizer *priv; /* OLD's and NEW's modules: decoding, source lines */
	struct bin old, new;
	int old_module, new_module; /* in C's symbolizer */
	struct hwp_stale_stats st;
};


static int by_start(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_name(const void *a, const void *b)
{
	const struct func *x = *(const struct func *const *)a, *y = *(const struct func *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->start < y->start ? -1 : x->start > y->start;
}

static int add_function(void *ctx, const GElf_Sym *sym, const char *name)
{
	struct bin *b = ctx;
	struct func *f;
	uint64_t off;

	if (!sym->st_size || hwp__code_file_vaddr_to_offset(b->file, sym->st_value, &off))
		return 0;
	char *copy = strdup(name);

	if (!copy || !(f = HWP_VEC_PUSH(b->fn, b->n_fn, b->cap_fn))) {
		free(copy);
		return hwp__set_error(ENOMEM, "%s: out of memory reading its symbols", b->path);
	}
	*f = (struct func){ .name = copy, .start = sym->st_value, .size = sym->st_size, .off = off,
			    .match = -1 };
	return 0;
}

/* The sized functions of the symbol table, aliases dropped, by start. */
static int read_functions(struct bin *b)
{
	Elf *e = hwp__elf_open(b->path);
	int err;

	if (!e)
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", b->path);
	err = hwp__elf_each_function(e, add_function, b);
	elf_end(e);
	if (err)
		return err;
	if (!b->n_fn)
		return hwp__set_error(ENOENT, "%s: no function in its symbol table (stripped?)", b->path);
	qsort(b->fn, b->n_fn, sizeof(*b->fn), by_start);
	size_t n = 0;
	for (size_t i = 0; i < b->n_fn; i++) {
		if (n && b->fn[n - 1].start == b->fn[i].start) {
			free(b->fn[i].name);
			continue;
		}
		b->fn[n++] = b->fn[i];
	}
	b->n_fn = n;
	if (!(b->by_name = malloc(n * sizeof(*b->by_name))))
		return hwp__set_error(ENOMEM, "%s: out of memory reading its symbols", b->path);
	for (size_t i = 0; i < n; i++)
		b->by_name[i] = &b->fn[i];
	qsort(b->by_name, n, sizeof(*b->by_name), by_name);
	for (size_t i = 0; i < n; i++)
		b->by_name[i]->name_unique = (!i || strcmp(b->by_name[i - 1]->name, b->by_name[i]->name)) &&
					     (i + 1 == n || strcmp(b->by_name[i + 1]->name, b->by_name[i]->name));
	return 0;
}

/* The function holding file offset OFF, -1 when none. */
static int find_fn(const struct bin *b, uint64_t off)
{
	size_t lo = 0, hi = b->n_fn;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (b->fn[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || off - b->fn[lo - 1].off >= b->fn[lo - 1].size)
		return -1;
	return (int)lo - 1;
}

/* The first of the functions named NAME in by_name order, -1 when none. */
static ssize_t first_named(const struct bin *b, const char *name)
{
	size_t lo = 0, hi = b->n_fn;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(b->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->n_fn && !strcmp(b->by_name[lo]->name, name) ? (ssize_t)lo : -1;
}

/* The function named NAME (unique), NULL when none or several. */
static struct func *find_name(const struct bin *b, const char *name, bool *exists)
{
	size_t lo = 0, hi = b->n_fn;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(b->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*exists = lo < b->n_fn && !strcmp(b->by_name[lo]->name, name);
	return *exists && b->by_name[lo]->name_unique ? b->by_name[lo] : NULL;
}

static int32_t insn_index(const struct func *f, uint64_t off)
{
	size_t lo = 0, hi = f->n_in;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->in[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n_in && f->in[lo].off == off ? (int32_t)lo : -1;
}

struct dis {
	struct func *f;
	size_t cap;
	int err;
};

static int on_insn(void *p, const struct hwp__disasm_insn *d)
{
	struct dis *x = p;
	struct insn *in = HWP_VEC_PUSH(x->f->in, x->f->n_in, x->cap);

	if (!in)
		return x->err = -ENOMEM;
	const char *m = !strncmp(d->mnemonic, "cmp", 3) || !strncmp(d->mnemonic, "test", 4) ? "cmp" : d->mnemonic;

	*in = (struct insn){ .off = x->f->off + (d->vaddr - x->f->start), .hash = hwp__fnv1a(HWP_FNV1A_INIT, d->mnemonic, strlen(d->mnemonic)),
			     .al = hwp__fnv1a(HWP_FNV1A_INIT, m, strlen(m)), .target = -1, .callee = -1 };
	return 0;
}

static uint64_t cfg_hash(struct func *f);

static bool ends_block(unsigned cls)
{
	return cls == HWP_INSN_COND || cls == HWP_INSN_JUMP || cls == HWP_INSN_IND_JUMP || cls == HWP_INSN_RET;
}

/* F's instructions, blocks and CFG hash; 0, or <0 on ENOMEM (an undecodable
   function is left with no blocks: it matches nothing). */
static int decode(struct ctx *x, struct bin *b, struct func *f)
{
	struct dis d = { .f = f };
	uint8_t *leader;
	size_t cap_bl = 0;

	if (f->decoded)
		return 0;
	f->decoded = true;
	if (hwp__code_file_disasm(b->file, f->start, f->size, on_insn, &d) == -ENOMEM || d.err)
		return hwp__set_error(ENOMEM, "out of memory decoding %s", f->name);
	if (!f->n_in)
		return 0;
	if (!(leader = calloc(f->n_in, 1)))
		return hwp__set_error(ENOMEM, "out of memory decoding %s", f->name);
	leader[0] = 1;
	for (size_t i = 0; i < f->n_in; i++) {
		struct insn *in = &f->in[i];
		struct hwp__insn h;

		if (hwp__code_cache_insn(x->cc, b->module, in->off, &h))
			continue;
		in->cls = h.cls;
		if (h.cls == HWP_INSN_COND)
			in->al = hwp__fnv1a(HWP_FNV1A_INIT, "jcc", 3);
		in->has_dt = h.has_target;
		in->dt = h.target;
		if (h.has_target && (h.cls == HWP_INSN_CALL || h.cls == HWP_INSN_JUMP || h.cls == HWP_INSN_COND)) {
			int t = find_fn(b, h.target);

			if (t >= 0 && &b->fn[t] == f && h.cls != HWP_INSN_CALL) {
				in->target = insn_index(f, h.target);
				if (in->target >= 0)
					leader[in->target] = 1;
			} else if (t >= 0 && b->fn[t].off == h.target) { /* a call or tail call */
				in->callee = t;
			}
		}
		if (ends_block(in->cls) && i + 1 < f->n_in)
			leader[i + 1] = 1;
	}
	for (size_t i = 0; i < f->n_in; i++) {
		struct block *bl;

		if (leader[i]) {
			if (!(bl = HWP_VEC_PUSH(f->bl, f->n_bl, cap_bl))) {
				free(leader);
				return hwp__set_error(ENOMEM, "out of memory decoding %s", f->name);
			}
			*bl = (struct block){ .first = (uint32_t)i, .match = -1 };
		}
		f->bl[f->n_bl - 1].n++;
		f->in[i].ah = f->in[i].hash;
	}
	free(leader);
	f->scfg = cfg_hash(f);
	return 0;
}

/* The anchored hashes of F's instructions and blocks and its CFG hash: a
   callee is named by its name in NEW (a renamed callee's new name), so
   that calls to it match. */
static void anchor(struct ctx *x, struct bin *b, struct func *f)
{
	for (size_t i = 0; i < f->n_in; i++) {
		struct insn *in = &f->in[i];
		const struct func *c = in->callee >= 0 ? &b->fn[in->callee] : NULL;

		if (c && b == &x->old && c->match >= 0)
			c = &x->new.fn[c->match];
		in->ah = c ? hwp__fnv1a(in->hash, c->name, strlen(c->name)) : in->hash;
		if (c) /* the loose hash is set once, in decode(): anchor() may run again */
			in->al = in->ah;
	}
	f->cfg = cfg_hash(f);
}

/* Each block's hash (of its instructions' ah) and where its last
   instruction jumps (a block index, as block starts are leaders). */
static uint64_t cfg_hash(struct func *f)
{
	uint64_t cfg = HWP_FNV1A_INIT;

	for (size_t i = 0; i < f->n_bl; i++) {
		struct block *bl = &f->bl[i];

		bl->hash = HWP_FNV1A_INIT;
		for (uint32_t k = 0; k < bl->n; k++)
			bl->hash = hwp__fnv1a(bl->hash, &f->in[bl->first + k].ah, sizeof(uint64_t));
	}
	for (size_t i = 0; i < f->n_bl; i++) {
		const struct insn *last = &f->in[f->bl[i].first + f->bl[i].n - 1];
		int64_t succ = -1;

		for (size_t k = 0; last->target >= 0 && k < f->n_bl; k++)
			if (f->bl[k].first == (uint32_t)last->target)
				succ = (int64_t)k - (int64_t)i;
		cfg = hwp__fnv1a(cfg, &f->bl[i].hash, sizeof(f->bl[i].hash));
		cfg = hwp__fnv1a(cfg, &succ, sizeof(succ));
	}
	return cfg;
}

/* A[i] matched to B[MA[i]] along their longest common subsequence (as a
   diff aligns lines); MA[] -1 elsewhere, set by the caller. Pairs past
   4 M cells are left unmatched. 0 or -ENOMEM. */
static int lcs(const uint64_t *A, size_t a, const uint64_t *B, size_t b, int32_t *ma)
{
	uint32_t *L;

	if (!a || !b || a * b > (1u << 22))
		return 0;
	if (!(L = calloc((a + 1) * (b + 1), sizeof(*L))))
		return -ENOMEM;
#define AT(i, j) L[(i) * (b + 1) + (j)]
	for (size_t i = a; i-- > 0;)
		for (size_t j = b; j-- > 0;)
			AT(i, j) = A[i] == B[j] ? AT(i + 1, j + 1) + 1 : AT(i + 1, j) > AT(i, j + 1) ? AT(i + 1, j) : AT(i, j + 1);
	for (size_t i = 0, j = 0; i < a && j < b;) {
		if (A[i] == B[j])
			ma[i++] = (int32_t)j++;
		else if (AT(i + 1, j) >= AT(i, j + 1))
			i++;
		else
			j++;
	}
#undef AT
	free(L);
	return 0;
}

/* A block's key in unique pass PASS (match_blocks()): its hash, and in
   pass 1 its line offset; false when it has none. */
static bool block_key(const struct block *bl, int pass, uint64_t *key)
{
	uint32_t line = (uint32_t)bl->line;

	*key = bl->hash;
	if (pass)
		*key = hwp__fnv1a(*key, &line, sizeof(line));
	return !pass || bl->has_line;
}

/* O's unmatched blocks matched to N's by a key unique among the unmatched
   of both. */
static void match_unique(struct func *o, struct func *n, int pass)
{
	for (size_t i = 0; i < o->n_bl; i++) {
		size_t no = 0, nn = 0, at = 0;
		uint64_t key, k2;

		if (o->bl[i].match >= 0 || !block_key(&o->bl[i], pass, &key))
			continue;
		for (size_t k = 0; k < o->n_bl; k++)
			no += o->bl[k].match < 0 && block_key(&o->bl[k], pass, &k2) && k2 == key;
		for (size_t k = 0; k < n->n_bl && no == 1; k++)
			if (n->bl[k].match < 0 && block_key(&n->bl[k], pass, &k2) && k2 == key)
				nn++, at = k;
		if (no == 1 && nn == 1) {
			o->bl[i].match = (int32_t)at;
			n->bl[at].match = (int32_t)i;
		}
	}
}

/* Blocks of O and N matched in layout order (the LCS of their anchored
   hashes), then those whose hash is unique among the unmatched of both
   (moved), then those whose hash and source line offset (DWARF: LLVM's
   anchor) are (copies of one block told apart by their lines). Matching
   the loose hashes of blocks on the same line offset was tried and left
   out: it paired loops the compiler had turned round, and BOLT's layout
   from those counts took more branches than without. */
static int match_blocks(struct func *o, struct func *n)
{
	size_t a = o->n_bl, b = n->n_bl;
	uint64_t *A = malloc((a + b + 1) * sizeof(*A));
	int32_t *ma = malloc((a + 1) * sizeof(*ma));
	int err = 0;

	if (!A || !ma) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < a; i++) {
		A[i] = o->bl[i].hash;
		ma[i] = -1;
	}
	for (size_t j = 0; j < b; j++)
		A[a + j] = n->bl[j].hash;
	if ((err = lcs(A, a, A + a, b, ma)))
		goto out;
	for (size_t i = 0; i < a; i++)
		if (ma[i] >= 0) {
			o->bl[i].match = ma[i];
			n->bl[ma[i]].match = (int32_t)i;
		}
	for (int pass = 0; pass < 2 && a * b <= (1u << 22); pass++)
		match_unique(o, n, pass);
out:
	free(A);
	free(ma);
	return err ? hwp__set_error(ENOMEM, "out of memory matching %s", o->name) : 0;
}

/* O's instructions [OA, OB) aligned with N's [NA, NB) by the LCS of
   their anchored hashes (LOOSE: of the loose ones) into O->map. */
static int align(struct func *o, const struct func *n, size_t oa, size_t ob, size_t na, size_t nb, bool loose)
{
	size_t a = ob - oa, b = nb - na;
	uint64_t *A;
	int32_t *ma;
	int err;

	if (ob <= oa || nb <= na)
		return 0;
	A = malloc((a + b) * sizeof(*A));
	ma = malloc(a * sizeof(*ma));
	if (!A || !ma) {
		free(A);
		free(ma);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a; i++) {
		A[i] = loose ? o->in[oa + i].al : o->in[oa + i].ah;
		ma[i] = -1;
	}
	for (size_t j = 0; j < b; j++)
		A[a + j] = loose ? n->in[na + j].al : n->in[na + j].ah;
	err = lcs(A, a, A + a, b, ma);
	for (size_t i = 0; !err && i < a; i++)
		if (ma[i] >= 0)
			o->map[oa + i] = (int32_t)(na + (size_t)ma[i]);
	free(A);
	free(ma);
	return err;
}

/*
 * The instructions of O's unmatched blocks between two matched ones (or
 * the function's ends) aligned with those of N's blocks between their
 * matches: the unchanged instructions of an edited block keep their
 * counts. Exact hashes first; the loose ones (a flipped condition, cmp
 * for test) only between two exact matches, where they cannot pull an
 * instruction away from its exact copy.
 */
static int refine(struct func *o, const struct func *n, size_t oa, size_t ob, size_t na, size_t nb)
{
	int err = align(o, n, oa, ob, na, nb, false);
	size_t pi = oa, pj = na;

	for (size_t i = oa; !err && i <= ob; i++) {
		if (i < ob && o->map[i] < 0)
			continue;
		size_t j = i < ob ? (size_t)o->map[i] : nb;

		err = align(o, n, pi, i, pj, j, true);
		pi = i + 1;
		pj = j + 1;
	}
	return err ? hwp__set_error(ENOMEM, "out of memory matching %s", o->name) : 0;
}

/* O's instruction map onto N from the matched blocks (equal hashes: the
   same number of instructions), the gaps between them refined. */
static int make_map(struct func *o, const struct func *n)
{
	size_t oa = 0, na = 0;
	int32_t last = -1;
	int err;

	if (!(o->map = malloc((o->n_in ? o->n_in : 1) * sizeof(*o->map))))
		return hwp__set_error(ENOMEM, "out of memory matching %s", o->name);
	for (size_t i = 0; i < o->n_in; i++)
		o->map[i] = -1;
	for (size_t i = 0; i <= o->n_bl; i++) {
		const struct block *ob = i < o->n_bl ? &o->bl[i] : NULL;

		if (ob && ob->match < 0)
			continue;
		if (!ob || ob->match > last) { /* in order: the gap before it */
			size_t nb = ob ? n->bl[ob->match].first : n->n_in;

			if ((err = refine(o, n, oa, ob ? ob->first : o->n_in, na, nb)))
				return err;
		}
		if (!ob)
			break;
		const struct block *nbl = &n->bl[ob->match];
		if (nbl->hash == ob->hash && nbl->n == ob->n)
			for (uint32_t k = 0; k < ob->n; k++)
				o->map[ob->first + k] = (int32_t)(nbl->first + k);
		else if ((err = refine(o, n, ob->first, ob->first + ob->n, nbl->first, nbl->first + nbl->n)))
			return err; /* matched by line: its instructions aligned */
		oa = ob->first + ob->n;
		if (ob->match > last) {
			last = ob->match;
			na = n->bl[ob->match].first + n->bl[ob->match].n;
		}
	}
	return 0;
}

/* F's blocks' source line offsets: the line of a block's first instruction
   with one, less that of the function's entry (DWARF; none without). */
static void block_lines(struct ctx *x, struct bin *b, struct func *f)
{
	struct hwp_symbol_info si;
	unsigned base = 0;

	for (size_t i = 0; i < f->n_bl; i++) {
		const struct block *bl = &f->bl[i];

		for (uint32_t k = 0; k < bl->n && k < 8; k++) {
			if (hwp_symbolizer__lookup(x->priv, b->module, f->in[bl->first + k].off, &si) || !si.file ||
			    !si.line)
				continue;
			if (!base)
				base = si.line;
			f->bl[i].line = (int32_t)(si.line - base);
			f->bl[i].has_line = true;
			break;
		}
	}
}

static void match_same(struct func *o, struct func *n)
{
	for (size_t i = 0; i < o->n_bl; i++)
		o->bl[i].match = n->bl[i].match = (int32_t)i;
}

/*
 * NEW's function for O, a function whose name several functions of OLD or
 * NEW share (static functions of several files): the one of those of NEW
 * with O's structural CFG hash when one alone has it, else the one of the
 * same rank in address order when both have as many; NULL otherwise.
 */
static struct func *namesake(struct ctx *x, struct func *o, int *err)
{
	ssize_t fo = first_named(&x->old, o->name), fn = first_named(&x->new, o->name);
	size_t no = 0, nn = 0, rank = 0, same = 0;
	struct func *hit = NULL;

	if (fo < 0 || fn < 0)
		return NULL;
	while ((size_t)fo + no < x->old.n_fn && !strcmp(x->old.by_name[fo + no]->name, o->name)) {
		if (x->old.by_name[fo + no] == o)
			rank = no;
		no++;
	}
	if ((*err = decode(x, &x->old, o)))
		return NULL;
	for (; (size_t)fn + nn < x->new.n_fn && !strcmp(x->new.by_name[fn + nn]->name, o->name); nn++) {
		struct func *n = x->new.by_name[fn + nn];

		if ((*err = decode(x, &x->new, n)))
			return NULL;
		if (n->match < 0 && n->n_bl && n->scfg == o->scfg)
			hit = n, same++;
	}
	if (same == 1)
		return hit;
	hit = no == nn ? x->new.by_name[fn + (ssize_t)rank] : NULL; /* by_name sorts a name's functions by address */
	return hit && hit->match < 0 ? hit : NULL;
}

static int match_functions(struct ctx *x)
{
	int err = 0;
	bool any = false;

	/* by name */
	for (size_t i = 0; i < x->old.n_fn; i++) {
		struct func *o = &x->old.fn[i], *n;
		bool exists;

		if (!o->touched)
			continue;
		n = o->name_unique ? find_name(&x->new, o->name, &exists) : NULL;
		if (!n && (n = namesake(x, o, &err)) == NULL && err)
			return err;
		if (!n || n->match >= 0)
			continue;
		if ((err = decode(x, &x->old, o)) || (err = decode(x, &x->new, n)))
			return err;
		if (!o->n_bl || !n->n_bl)
			continue;
		o->match = (int32_t)(n - x->new.fn);
		n->match = (int32_t)i;
		o->how = HWP_STALE_EDITED;
	}
	/* by the structural CFG hash: NEW's functions under a name OLD lacks */
	for (size_t i = 0; i < x->old.n_fn && !any; i++)
		any = x->old.fn[i].touched && x->old.fn[i].match < 0;
	for (size_t i = 0; any && i < x->new.n_fn; i++) {
		struct func *n = &x->new.fn[i];
		bool exists;

		find_name(&x->old, n->name, &exists);
		n->name_elsewhere = exists;
		if (!exists && (err = decode(x, &x->new, n)))
			return err;
	}
	for (size_t i = 0; any && i < x->old.n_fn; i++) {
		struct func *o = &x->old.fn[i];
		int found = -1, nr = 0;

		if (!o->touched || o->match >= 0)
			continue;
		if ((err = decode(x, &x->old, o)))
			return err;
		for (size_t k = 0; o->n_bl && k < x->new.n_fn; k++) {
			const struct func *n = &x->new.fn[k];

			if (!n->name_elsewhere && n->match < 0 && n->n_bl == o->n_bl && n->scfg == o->scfg)
				found = (int)k, nr++;
		}
		if (nr != 1)
			continue;
		o->match = found;
		x->new.fn[found].match = (int32_t)i;
		o->how = HWP_STALE_RENAMED;
	}
	/* the pairs' blocks, by anchors that know every callee's match */
	for (size_t i = 0; i < x->old.n_fn; i++) {
		struct func *o = &x->old.fn[i], *n;

		if (o->match < 0)
			continue;
		n = &x->new.fn[o->match];
		anchor(x, &x->old, o);
		anchor(x, &x->new, n);
		if (o->cfg == n->cfg && o->n_bl == n->n_bl) {
			if (o->how == HWP_STALE_EDITED)
				o->how = HWP_STALE_SAME;
			match_same(o, n);
		} else {
			block_lines(x, &x->old, o);
			block_lines(x, &x->new, n);
			if ((err = match_blocks(o, n)))
				return err;
		}
		if ((err = make_map(o, n)))
			return err;
	}
	return 0;
}

/* OLD's function and instruction index at file offset OFF; false when none. */
static bool old_insn(struct ctx *x, uint64_t off, struct func **f, int32_t *idx)
{
	int i = find_fn(&x->old, off);

	if (i < 0)
		return false;
	*f = &x->old.fn[i];
	if (decode(x, &x->old, *f) < 0)
		return false;
	*idx = insn_index(*f, off);
	return *idx >= 0;
}

/* LOC in OLD moved to NEW; false when it does not map. *IN: NEW's
   instruction there. */
static bool map_loc(struct ctx *x, struct hwp_code_loc *loc, const struct insn **in)
{
	struct func *f;
	int32_t i;

	if (!old_insn(x, loc->offset, &f, &i) || f->match < 0 || !f->map || f->map[i] < 0)
		return false;
	const struct func *n = &x->new.fn[f->match];
	*in = &n->in[f->map[i]];
	loc->module = x->new_module;
	loc->offset = (*in)->off;
	loc->addr = n->start + (loc->offset - n->off);
	return true;
}

/* The target of a direct branch or call of OLD that maps is the mapped
   instruction's own target: where the instructions were aligned loosely
   (a flipped condition) the target's block may be another, and a PLT
   entry or a function that did not match has no map of its own. */
static bool map_target(struct ctx *x, const struct hwp_code_loc *from, const struct insn *nf,
		       struct hwp_code_loc *to)
{
	struct func *f;
	int32_t i;
	uint64_t v;

	if (!nf || !nf->has_dt || !old_insn(x, from->offset, &f, &i) || !f->in[i].has_dt ||
	    f->in[i].dt != to->offset || hwp__code_file_offset_to_vaddr(x->new.file, nf->dt, &v))
		return false;
	to->module = x->new_module;
	to->offset = nf->dt;
	to->addr = v;
	return true;
}

/* For OLD's instruction I of F right after a call that maps: the one after
   NEW's call (where a return lands, whatever the edit put before I's own
   match); -1 otherwise. */
static int32_t after_call(const struct ctx *x, const struct func *f, int32_t i)
{
	const struct func *n = f->match >= 0 && f->map ? &x->new.fn[f->match] : NULL;

	if (!n || i <= 0 || (f->in[i - 1].cls != HWP_INSN_CALL && f->in[i - 1].cls != HWP_INSN_IND_CALL) ||
	    f->map[i - 1] < 0 || (size_t)f->map[i - 1] + 1 >= n->n_in)
		return -1;
	return f->map[i - 1] + 1;
}

/* LOC, a return's target in OLD, moved to the return's target in NEW. */
static bool map_return(struct ctx *x, struct hwp_code_loc *loc)
{
	struct func *f;
	int32_t i, k;

	if (!old_insn(x, loc->offset, &f, &i) || (k = after_call(x, f, i)) < 0)
		return false;
	const struct func *n = &x->new.fn[f->match];
	loc->module = x->new_module;
	loc->offset = n->in[k].off;
	loc->addr = n->start + (loc->offset - n->off);
	return true;
}

static void touch(struct ctx *x, const struct hwp_code_loc *loc)
{
	int i;

	if (loc->module == x->old_module && (i = find_fn(&x->old, loc->offset)) >= 0)
		x->old.fn[i].touched = true;
}

static int add_branches(struct ctx *x, const struct hwp_branch_table *in, struct hwp_branch_table *out)
{
	size_t n;
	const struct hwp_branch_row *r = hwp_branch_table__rows(in, &n);

	for (size_t i = 0; i < n; i++) {
		struct hwp_branch_row row = r[i];
		bool f_old = row.key.from.module == x->old_module, t_old = row.key.to.module == x->old_module;
		const struct insn *nf = NULL, *nt;
		/* a direct branch or call goes to its own target in NEW, unless
		   its target maps elsewhere (a condition turned round: the
		   counts would go to the other side) */
		struct hwp_code_loc alt = row.key.to;
		bool ok = (!f_old || map_loc(x, &row.key.from, &nf)) &&
			  (!t_old || (map_target(x, &r[i].key.from, nf, &row.key.to)
					      ? !map_loc(x, &alt, &nt) || alt.offset == row.key.to.offset
					      : map_return(x, &row.key.to) || map_loc(x, &row.key.to, &nt)));
		int k;

		if (f_old || t_old) {
			x->st.branches += row.c.count;
			x->st.branches_matched += ok ? row.c.count : 0;
			/* a function's share: the branches from it, and those into it from elsewhere */
			if ((k = find_fn(&x->old, f_old ? r[i].key.from.offset : r[i].key.to.offset)) >= 0) {
				x->old.fn[k].br += row.c.count;
				x->old.fn[k].br_ok += ok ? row.c.count : 0;
			}
		}
		if (ok && hwp_branch_table__add_row(out, &row) < 0)
			return hwp__set_error(ENOMEM, "out of memory moving the branches");
	}
	return 0;
}

static int add_piece(struct ctx *x, const struct hwp_branch_row *r, const struct func *n, int32_t s, int32_t e,
		     struct hwp_branch_table *out)
{
	struct hwp_branch_row row = *r;

	row.key.from.module = row.key.to.module = x->new_module;
	row.key.from.offset = n->in[s].off;
	row.key.to.offset = n->in[e].off;
	row.key.from.addr = n->start + (row.key.from.offset - n->off);
	row.key.to.addr = n->start + (row.key.to.offset - n->off);
	return hwp_branch_table__add_row(out, &row) < 0 ? hwp__set_error(ENOMEM, "out of memory moving the ranges")
							: 0;
}

/* NEW's instructions after A up to B (A < B) can run straight through:
   none is a branch but a conditional one (not taken, as OLD's range ran
   on), and they are few. */
static bool bridges(const struct func *n, int32_t a, int32_t b)
{
	if (b - a > 32)
		return false;
	for (int32_t k = a; k < b; k++)
		if (n->in[k].cls != HWP_INSN_OTHER && n->in[k].cls != HWP_INSN_COND)
			return false;
	return true;
}

/* A range of OLD: the runs of its instructions that map onto NEW's in
   order, with nothing between two that could not run straight through
   (instructions inserted or left out by the edit are run over), each a
   range of NEW with the same count. */
static int add_range(struct ctx *x, const struct hwp_branch_row *r, struct hwp_branch_table *out)
{
	struct func *f, *g;
	int32_t s, e, rs = -1, last = -1, pieces = 0;
	uint64_t cnt = r->c.count;
	int err = 0;

	if (!old_insn(x, r->key.from.offset, &f, &s) || !old_insn(x, r->key.to.offset, &g, &e) || f != g || e < s) {
		int i = find_fn(&x->old, r->key.from.offset);

		x->st.insns += cnt; /* not decodable as one function's: one instruction counted */
		if (i >= 0)
			x->old.fn[i].ins += cnt;
		return 0;
	}
	const struct func *n = f->match >= 0 && f->map ? &x->new.fn[f->match] : NULL;
	if ((rs = after_call(x, f, s)) >= 0) /* a range after a return starts where NEW's return lands */
		last = rs;
	for (int32_t i = s; i <= e; i++) {
		int32_t m = n ? f->map[i] : -1;

		x->st.insns += cnt;
		f->ins += cnt;
		if (m < 0)
			continue;
		x->st.insns_matched += cnt;
		f->ins_ok += cnt;
		if (rs >= 0 && (m == last || (m > last && bridges(n, last, m)))) {
			last = m;
			continue;
		}
		if (rs >= 0) { /* the run ends */
			if ((err = add_piece(x, r, n, rs, last, out)))
				return err;
			pieces++;
		}
		rs = last = m;
	}
	if (rs >= 0) {
		if ((err = add_piece(x, r, n, rs, last, out)))
			return err;
		pieces++;
	}
	if (pieces > 1)
		x->st.ranges_split++;
	return 0;
}

static int add_ranges(struct ctx *x, const struct hwp_branch_table *in, struct hwp_branch_table *out)
{
	size_t n;
	const struct hwp_branch_row *r = hwp_branch_table__rows(in, &n);
	int err;

	for (size_t i = 0; i < n; i++) {
		if (r[i].key.from.module != x->old_module)
			err = hwp_branch_table__add_row(out, &r[i]) < 0
				      ? hwp__set_error(ENOMEM, "out of memory moving the ranges") : 0;
		else
			err = add_range(x, &r[i], out);
		if (err)
			return err;
	}
	return 0;
}

static int open_bin(struct hwp_symbolizer *priv, struct bin *b, const char *path, uint8_t *id, size_t *idn)
{
	Elf *e = hwp__elf_open(path);

	b->path = path;
	*idn = e ? hwp__elf_build_id(e, id) : 0;
	if (e)
		elf_end(e);
	if (!e || !(b->file = hwp__code_file_open(path)))
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	if ((b->module = hwp_symbolizer__module(priv, path, *idn ? id : NULL, (uint8_t)*idn)) < 0)
		return b->module;
	return read_functions(b);
}

static void free_bin(struct bin *b)
{
	for (size_t i = 0; i < b->n_fn; i++) {
		free(b->fn[i].name);
		free(b->fn[i].in);
		free(b->fn[i].bl);
		free(b->fn[i].map);
	}
	free(b->fn);
	free(b->by_name);
	hwp__code_file_close(b->file);
}

static void report(struct ctx *x, hwp_stale_func_fn fn, void *p)
{
	for (size_t i = 0; i < x->old.n_fn; i++) {
		struct func *o = &x->old.fn[i];
		struct hwp_stale_func sf;

		if (!o->touched)
			continue;
		x->st.functions++;
		x->st.by_how[o->how]++;
		if (!fn)
			continue;
		sf = (struct hwp_stale_func){
			.name = o->name,
			.new_name = o->match >= 0 ? x->new.fn[o->match].name : NULL,
			.how = o->how,
			.blocks = (uint32_t)o->n_bl,
			.branches = o->br,
			.branches_matched = o->br_ok,
			.insns = o->ins,
			.insns_matched = o->ins_ok,
		};
		for (size_t k = 0; k < o->n_bl; k++)
			sf.blocks_matched += o->bl[k].match >= 0;
		fn(p, &sf);
	}
}

struct hwp_branch_collector *hwp_stale__match(struct hwp_branch_collector *c, int old_module,
					      const char *old_path, const char *new_path, int *new_module,
					      struct hwp_stale_stats *st, hwp_stale_func_fn fn, void *p)
{
	struct hwp_symbolizer *sym = hwp__branch_collector_symbolizer(c), *priv = NULL;
	const struct hwp_branch_table *bt = hwp_branch_collector__table(c), *rt = hwp_branch_collector__ranges(c);
	struct hwp_symbolizer_opts so = { .sz = sizeof(so), .no_kernel = true, .no_inline = true, .debug_dirs = "" };
	struct hwp_branch_table *t = NULL, *ranges = NULL;
	struct hwp_branch_collector *out = NULL;
	struct ctx x = { .old_module = old_module };
	uint8_t oid[HWP_BUILD_ID_MAX], nid[HWP_BUILD_ID_MAX];
	size_t oidn, nidn;
	int err;

	if (!sym || !bt || !rt) {
		hwp__set_error(EINVAL, "stale profile: the collector counted no branches or ranges");
		return NULL;
	}
	/* a symbolizer of its own: the recorded path may hold NEW by now */
	if (!(x.priv = priv = hwp_symbolizer__new(&so)) || !(x.cc = hwp__code_cache_new(priv))) {
		err = hwp__set_error(ENOMEM, "out of memory");
		goto out;
	}
	if ((err = open_bin(priv, &x.old, old_path, oid, &oidn)) ||
	    (err = open_bin(priv, &x.new, new_path, nid, &nidn)))
		goto out;
	if (oidn && hwp__build_id_equal(oid, oidn, nid, nidn)) {
		err = hwp__set_error(EINVAL, "%s has the build-id of %s, the recorded binary: nothing to match "
					     "(the profile needs no matching)", new_path, old_path);
		goto out;
	}
	if ((x.new_module = hwp_symbolizer__module(sym, new_path, nidn ? nid : NULL, (uint8_t)nidn)) < 0) {
		err = x.new_module;
		goto out;
	}
	size_t n;
	const struct hwp_branch_row *r = hwp_branch_table__rows(bt, &n);
	for (size_t i = 0; i < n; i++) {
		touch(&x, &r[i].key.from);
		touch(&x, &r[i].key.to);
	}
	r = hwp_branch_table__rows(rt, &n);
	for (size_t i = 0; i < n; i++)
		touch(&x, &r[i].key.from);
	if ((err = match_functions(&x)))
		goto out;
	if (!(t = hwp_branch_table__new(0)) || !(ranges = hwp_branch_table__new(0))) {
		err = hwp__set_error(ENOMEM, "out of memory");
		goto out;
	}
	if ((err = add_branches(&x, bt, t)) || (err = add_ranges(&x, rt, ranges)))
		goto out;
	report(&x, fn, p);
	out = hwp_branch_collector__from_tables(sym, hwp__branch_collector_name(c), t, ranges);
	t = ranges = NULL; /* taken */
	if (!out)
		err = -errno;
out:
	hwp_branch_table__delete(t);
	hwp_branch_table__delete(ranges);
	free_bin(&x.old);
	free_bin(&x.new);
	hwp__code_cache_delete(x.cc);
	hwp_symbolizer__delete(priv);
	if (err) {
		errno = -err;
		return NULL;
	}
	*new_module = x.new_module;
	if (st)
		*st = x.st;
	return out;
}

const char *hwp_stale__how_name(enum hwp_stale_how h)
{
	static const char *const names[] = { "unmatched", "same", "edited", "renamed" };

	return (unsigned)h < 4 ? names[h] : NULL;
}
