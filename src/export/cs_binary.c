/* SPDX-License-Identifier: MIT */
/* llvm-profgen's view of a binary's code (cs_binary.h). */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "decode/code_cache.h"
#include "decode/insn_starts.h"
#include "export/cs_binary.h"
#include "export/dwarf_frames.h"
#include "symbolize/build_id_lookup.h"
#include "util/error.h"
#include "util/vec.h"

struct insn {
	uint64_t addr, target;
	uint8_t cls, len;
};

struct sweep {
	const struct hwp__code_file *file;
	struct insn *v;
	size_t n, cap;
	uint64_t *syms;
	size_t nsyms, csyms;
};

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int by_addr(const void *a, const void *b)
{
	return by_u64(&((const struct insn *)a)->addr, &((const struct insn *)b)->addr);
}

size_t hwp__cs_lower_bound(const uint64_t *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool member(const uint64_t *v, size_t n, uint64_t a)
{
	size_t i = hwp__cs_lower_bound(v, n, a);

	return i < n && v[i] == a;
}

/* Decodes [START, END) of section SH linearly, as llvm-profgen decodes a
   symbol: an undecodable byte is skipped and is no instruction. */
static int sweep_symbol(struct sweep *w, struct hwp__insn_decoder *d, const GElf_Shdr *sh, uint64_t start,
			uint64_t end)
{
	for (uint64_t a = start; a < end;) {
		struct hwp__insn in;
		int err = hwp__insn_decoder_at(d, sh->sh_offset + (a - sh->sh_addr), &in);

		if (err == -ERANGE)
			return 0; /* not in a loadable executable segment */
		if (!err) {
			struct insn *p = HWP_VEC_PUSH(w->v, w->n, w->cap);

			if (!p)
				return -ENOMEM;
			uint64_t t = 0;

			if (in.cls == HWP_INSN_JUMP && in.has_target &&
			    hwp__code_file_offset_to_vaddr(w->file, in.target, &t))
				t = 0;
			*p = (struct insn){ a, t, in.cls, (uint8_t)in.len };
		}
		a += in.len ? in.len : 1;
	}
	return 0;
}

/* Every instruction of E's executable sections, symbol by symbol. */
static int sweep_sections(struct sweep *w, Elf *e, struct hwp__insn_decoder *d)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr symsh;
	Elf_Data *syms = NULL;

	if (elf_getshdrstrndx(e, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &symsh) && symsh.sh_type == SHT_SYMTAB && symsh.sh_entsize) {
			symscn = scn;
			break;
		}
	if (symscn)
		syms = elf_getdata(symscn, NULL);
	scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		size_t idx = elf_ndxscn(scn);

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size ||
		    sh.sh_type == SHT_NOBITS || !(name = elf_strptr(e, shstrndx, sh.sh_name)) || !strcmp(name, ".plt"))
			continue;
		w->nsyms = 0;
		for (size_t i = 0; syms && i < symsh.sh_size / symsh.sh_entsize; i++) {
			GElf_Sym s;
			uint64_t *p;

			if (!gelf_getsym(syms, (int)i, &s))
				break;
			if (s.st_shndx != idx)
				continue;
			if (!(p = HWP_VEC_PUSH(w->syms, w->nsyms, w->csyms)))
				return -ENOMEM;
			*p = s.st_value;
		}
		hwp__sort(w->syms, w->nsyms, sizeof(*w->syms), by_u64);
		for (size_t i = 0; i < w->nsyms; i++) {
			uint64_t end = i + 1 < w->nsyms ? w->syms[i + 1] : sh.sh_addr + sh.sh_size;
			int err = sweep_symbol(w, d, &sh, w->syms[i], end);

			if (err)
				return err;
		}
	}
	return 0;
}

struct named {
	uint64_t lo, hi;
	const char *name;
	size_t seq;
};

static int by_lo(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_name(const void *a, const void *b)
{
	const struct named *x = *(const struct named *const *)a, *y = *(const struct named *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->seq < y->seq ? -1 : x->seq > y->seq);
}

/* llvm-profgen's function ranges: every DWARF subprogram range (a start
   taken by the first one), the functions by name. */
static int function_ranges(struct hwp__cs_binary *b, struct hwp__dwarf_frames *df)
{
	size_t n = hwp__dwarf_frames_nranges(df), m = 0;
	struct named *v = malloc((n ? n : 1) * sizeof(*v)), **byn = malloc((n ? n : 1) * sizeof(*byn));
	int err = -ENOMEM;

	if (!v || !byn || !(b->funcs = malloc((n ? n : 1) * sizeof(*b->funcs))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		hwp__dwarf_frames_range(df, i, &v[m].lo, &v[m].hi, &v[m].name);
		v[m].seq = i;
		if (v[m].hi > v[m].lo && v[m].lo >= b->base && v[m].name)
			m++;
	}
	hwp__sort(v, m, sizeof(*v), by_lo);
	for (size_t i = 0; i < m; i++)
		if (!b->nfuncs || v[i].lo != b->funcs[b->nfuncs - 1].lo) {
			v[b->nfuncs] = v[i];
			b->funcs[b->nfuncs++] = (struct hwp__cs_func_range){ v[i].lo, v[i].hi, 0 };
		}
	for (size_t i = 0; i < b->nfuncs; i++) {
		v[i].seq = i;
		byn[i] = &v[i];
	}
	hwp__sort(byn, b->nfuncs, sizeof(*byn), by_name);
	for (size_t i = 0, id = 0; i < b->nfuncs; i++) {
		if (i && strcmp(byn[i]->name, byn[i - 1]->name))
			id++;
		b->funcs[byn[i]->seq].func = (uint32_t)id;
	}
	err = 0;
out:
	free(v);
	free(byn);
	return err;
}

/* Prologs (a subprogram range's start and the next instruction) and
   epilogs (a return and the instruction before it), as llvm-profgen's
   ProEpilogTracker infers them. */
static int prologs_epilogs(struct hwp__cs_binary *b, const char *path)
{
	struct hwp__dwarf_frames *df = hwp__dwarf_frames_open(path);
	uint64_t *starts = NULL;
	size_t ns = 0, cs = 0, cap = 0;
	int err = -ENOMEM;

	for (size_t i = 0, n = df ? hwp__dwarf_frames_nranges(df) : 0; i < n; i++) {
		uint64_t lo, hi, *p;
		const char *name;

		hwp__dwarf_frames_range(df, i, &lo, &hi, &name);
		if (hi <= lo || lo < b->base)
			continue;
		if (!(p = HWP_VEC_PUSH(starts, ns, cs)))
			goto out;
		*p = lo;
	}
	if (df && function_ranges(b, df))
		goto out;
	hwp__sort(starts, ns, sizeof(*starts), by_u64);
	for (size_t i = 0; i < ns; i++) {
		size_t k = hwp__cs_binary_index(b, starts[i]);

		if (i && starts[i] == starts[i - 1])
			continue;
		if (HWP_VEC_RESERVE(b->proepi, cap, b->nproepi + 2))
			goto out;
		b->proepi[b->nproepi++] = starts[i];
		if (k + 1 >= b->n)
			break; /* llvm-profgen stops there */
		b->proepi[b->nproepi++] = b->addr[k + 1];
	}
	for (size_t k = 0; k < b->n; k++) {
		if (b->cls[k] != HWP_INSN_RET)
			continue;
		if (HWP_VEC_RESERVE(b->proepi, cap, b->nproepi + 2))
			goto out;
		b->proepi[b->nproepi++] = b->addr[k];
		if (k)
			b->proepi[b->nproepi++] = b->addr[k - 1];
	}
	hwp__sort(b->proepi, b->nproepi, sizeof(*b->proepi), by_u64);
	size_t m = 0;
	for (size_t i = 0; i < b->nproepi; i++)
		if (!m || b->proepi[i] != b->proepi[m - 1])
			b->proepi[m++] = b->proepi[i];
	b->nproepi = m;
	err = 0;
out:
	free(starts);
	hwp__dwarf_frames_close(df);
	return err ? hwp__set_error(ENOMEM, "%s: out of memory reading its code", path) : 0;
}

int hwp__cs_binary_load(const char *path, struct hwp__cs_binary **out)
{
	struct hwp__cs_binary *b = calloc(1, sizeof(*b));
	struct hwp__insn_decoder *d = NULL;
	struct sweep w = { 0 };
	Elf *e = NULL;
	int err;

	*out = NULL;
	if (!b)
		return hwp__set_error(ENOMEM, "%s: out of memory reading its code", path);
	if (!(b->file = hwp__code_file_open(path)) || !(e = hwp__elf_open(path))) {
		err = hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
		goto out;
	}
	if (!hwp__code_file_base(b->file, true, &b->base)) {
		err = hwp__set_error(ERANGE, "%s: no executable segment", path);
		goto out;
	}
	b->base &= ~(uint64_t)0xfff;
	if (!(d = hwp__insn_decoder_new(b->file))) {
		err = hwp__set_error(ENOTSUP, "%s: %s", path, hwp_errmsg());
		goto out;
	}
	w.file = b->file;
	if ((err = sweep_sections(&w, e, d))) {
		err = hwp__set_error(err == -ENOMEM ? ENOMEM : EINVAL, "%s: %s", path,
				     err == -ENOMEM ? "out of memory decoding it" : "cannot read its sections");
		goto out;
	}
	if (!w.n) {
		err = hwp__set_error(ENOENT, "%s: no symbol in an executable section (.symtab stripped?): "
					     "no code to unwind through", path);
		goto out;
	}
	hwp__sort(w.v, w.n, sizeof(*w.v), by_addr);
	if (!(b->addr = malloc(w.n * sizeof(*b->addr))) || !(b->cls = malloc(w.n)) || !(b->len = malloc(w.n)) ||
	    !(b->target = malloc(w.n * sizeof(*b->target)))) {
		err = hwp__set_error(ENOMEM, "%s: out of memory reading its code", path);
		goto out;
	}
	for (size_t i = 0; i < w.n; i++)
		if (!b->n || w.v[i].addr != b->addr[b->n - 1]) {
			b->addr[b->n] = w.v[i].addr;
			b->target[b->n] = w.v[i].target;
			b->len[b->n] = w.v[i].len;
			b->cls[b->n++] = w.v[i].cls;
		}
	for (size_t i = 0; i < b->n; i++) {
		unsigned c = b->cls[i];

		if (c == HWP_INSN_CALL || c == HWP_INSN_IND_CALL || c == HWP_INSN_RET || c == HWP_INSN_JUMP)
			b->nuncond++;
	}
	if (!(b->uncond = malloc((b->nuncond ? b->nuncond : 1) * sizeof(*b->uncond)))) {
		err = hwp__set_error(ENOMEM, "%s: out of memory reading its code", path);
		goto out;
	}
	b->nuncond = 0;
	for (size_t i = 0; i < b->n; i++) {
		unsigned c = b->cls[i];

		if (c == HWP_INSN_CALL || c == HWP_INSN_IND_CALL || c == HWP_INSN_RET || c == HWP_INSN_JUMP)
			b->uncond[b->nuncond++] = b->addr[i];
	}
	err = prologs_epilogs(b, path);
out:
	free(w.v);
	free(w.syms);
	hwp__insn_decoder_delete(d);
	if (e)
		elf_end(e);
	if (err)
		hwp__cs_binary_free(b);
	else
		*out = b;
	return err;
}

void hwp__cs_binary_free(struct hwp__cs_binary *b)
{
	if (!b)
		return;
	hwp__code_file_close(b->file);
	free(b->addr);
	free(b->cls);
	free(b->len);
	free(b->proepi);
	free(b->uncond);
	free(b->target);
	free(b->funcs);
	free(b);
}

size_t hwp__cs_binary_index(const struct hwp__cs_binary *b, uint64_t a)
{
	return hwp__cs_lower_bound(b->addr, b->n, a);
}

static int class_at(const struct hwp__cs_binary *b, uint64_t a)
{
	size_t i = hwp__cs_lower_bound(b->addr, b->n, a);

	return i < b->n && b->addr[i] == a ? b->cls[i] : -1;
}

bool hwp__cs_binary_is_code(const struct hwp__cs_binary *b, uint64_t a)
{
	return class_at(b, a) >= 0;
}

bool hwp__cs_binary_is_call(const struct hwp__cs_binary *b, uint64_t a)
{
	int c = class_at(b, a);

	return c == HWP_INSN_CALL || c == HWP_INSN_IND_CALL;
}

bool hwp__cs_binary_is_return(const struct hwp__cs_binary *b, uint64_t a)
{
	return class_at(b, a) == HWP_INSN_RET;
}

bool hwp__cs_binary_in_prolog_epilog(const struct hwp__cs_binary *b, uint64_t a)
{
	return member(b->proepi, b->nproepi, a);
}

uint64_t hwp__cs_binary_call_before(const struct hwp__cs_binary *b, uint64_t ret)
{
	size_t i;

	if (ret == HWP__CS_EXTERNAL)
		return HWP__CS_EXTERNAL;
	i = hwp__cs_lower_bound(b->addr, b->n, ret);
	if (!i)
		return 0;
	unsigned c = b->cls[i - 1];
	return c == HWP_INSN_CALL || c == HWP_INSN_IND_CALL ? b->addr[i - 1] : 0;
}

bool hwp__cs_binary_crosses(const struct hwp__cs_binary *b, uint64_t start, uint64_t end)
{
	size_t i = hwp__cs_lower_bound(b->uncond, b->nuncond, start);

	return i < b->nuncond && b->uncond[i] < end;
}

const struct hwp__cs_func_range *hwp__cs_binary_func(const struct hwp__cs_binary *b, uint64_t a)
{
	size_t lo = 0, hi = b->nfuncs;

	while (lo < hi) { /* the first range starting after A */
		size_t mid = lo + (hi - lo) / 2;

		if (b->funcs[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && a < b->funcs[lo - 1].hi ? &b->funcs[lo - 1] : NULL;
}
