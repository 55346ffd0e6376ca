/* SPDX-License-Identifier: MIT */
/* Data types from DWARF (data_type.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/data_type.h"
#include "symbolize/elf_module.h"
#include "util/vec.h"

#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "symbolize/dwarf_scope.h"

/* A module's variables with a fixed address, sorted by it. */
struct global_var {
	uint64_t addr, size;
	Dwarf_Off die;
};
struct hwp__dtype_globals {
	struct global_var *v;
	size_t n, cap;
	bool indexed;
	Dwarf_CFI *cfi;    /* the binary's .eh_frame, for stack slots */
	bool cfi_tried;
};

void hwp__dtype_globals_free(struct hwp__dtype_globals *g)
{
	if (!g)
		return;
	if (g->cfi)
		dwarf_cfi_end(g->cfi);
	free(g->v);
	free(g);
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, type);
}

static const char *name_of_die(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

/* T's name as C writes it: "struct counters", "long", "char *". */
static void type_name(Dwarf_Die *t, char *buf, size_t len, int depth)
{
	Dwarf_Die inner;
	const char *n = name_of_die(t);
	const char *kw = NULL;
	char sub[128];

	if (depth > 8) {
		snprintf(buf, len, "?");
		return;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type: kw = "struct"; break;
	case DW_TAG_union_type: kw = "union"; break;
	case DW_TAG_class_type: kw = "class"; break;
	case DW_TAG_enumeration_type: kw = "enum"; break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_array_type:
		if (type_of(t, &inner))
			type_name(&inner, sub, sizeof(sub), depth + 1);
		else
			snprintf(sub, sizeof(sub), "void");
		{
			const char *suffix = dwarf_tag(t) == DW_TAG_array_type     ? "[]"
					     : dwarf_tag(t) == DW_TAG_pointer_type ? "*"
										   : "&";
			size_t k = strlen(sub);
			/* "char *": the suffix after a space, cut to fit */
			if (k + 3 < sizeof(sub)) {
				sub[k] = ' ';
				memcpy(sub + k + 1, suffix, strlen(suffix) + 1);
			}
			snprintf(buf, len, "%s", sub);
		}
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		if (type_of(t, &inner))
			type_name(&inner, buf, len, depth + 1);
		else
			snprintf(buf, len, "void");
		return;
	case DW_TAG_subroutine_type: snprintf(buf, len, "function"); return;
	default: break;
	}
	if (kw)
		snprintf(buf, len, "%s %s", kw, n ? n : "<anon>");
	else
		snprintf(buf, len, "%s", n ? n : "?");
}

/* The member of aggregate P (peeled) holding byte OFF: *MEMBER, *AT its offset. */
static bool member_at(Dwarf_Die *p, uint64_t off, Dwarf_Die *member, uint64_t *at)
{
	Dwarf_Die c;

	if (dwarf_child(p, &c) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word loc = 0, size = 0;
		Dwarf_Die t;
		int tag = dwarf_tag(&c);

		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &loc) != 0)
			continue; /* a location expression (virtual bases): not followed */
		if (!type_of(&c, &t) || dwarf_aggregate_size(&t, &size) != 0)
			continue;
		if (off >= loc && off < loc + size) {
			*member = c;
			*at = loc;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Fills OUT->type and OUT->member for byte OFF of an object of type T;
   *LEAF (when not NULL) the scalar type there. */
static bool describe_leaf(Dwarf_Die *t0, uint64_t off, struct hwp__data_type *out, Dwarf_Die *leaf, bool *has_leaf)
{
	Dwarf_Die t = *t0, p;
	bool top = true;
	size_t ml = strlen(out->member);

	for (int depth = 0; depth < 32; depth++) {
		int tag;

		if (dwarf_peel_type(&t, &p) != 0)
			break;
		tag = dwarf_tag(&p);
		if (tag == DW_TAG_array_type) {
			Dwarf_Die e;
			Dwarf_Word esz;
			if (!type_of(&p, &e) || dwarf_aggregate_size(&e, &esz) != 0 || !esz)
				break;
			off %= esz;
			t = e;
			continue;
		}
		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type) {
			Dwarf_Die m;
			uint64_t at;
			if (top) {
				type_name(&t, out->type, sizeof(out->type), 0);
				out->offset = off;
				top = false;
			}
			if (!member_at(&p, off, &m, &at))
				break;
			const char *n = name_of_die(&m);
			if (n && dwarf_tag(&m) == DW_TAG_member) {
				int w = snprintf(out->member + ml, sizeof(out->member) - ml, "%s%s", ml ? "." : "", n);
				if (w > 0)
					ml = ml + (size_t)w < sizeof(out->member) ? ml + (size_t)w : sizeof(out->member) - 1;
			}
			off -= at;
			if (!type_of(&m, &t))
				break;
			continue;
		}
		if (top) {
			type_name(&t, out->type, sizeof(out->type), 0);
			out->offset = off;
		}
		if (leaf && off == 0) {
			*leaf = t;
			*has_leaf = true;
		}
		break;
	}
	return out->type[0] != 0;
}

static bool describe(Dwarf_Die *t0, uint64_t off, struct hwp__data_type *out)
{
	return describe_leaf(t0, off, out, NULL, NULL);
}

/* VAR's pointed-to type, when VAR is a pointer (or reference) to a type of
   known size. */
static bool pointee_of(Dwarf_Die *var, Dwarf_Die *obj)
{
	Dwarf_Die t, p;
	Dwarf_Word size;

	if (!type_of(var, &t) || dwarf_peel_type(&t, &p) != 0)
		return false;
	if (dwarf_tag(&p) != DW_TAG_pointer_type && dwarf_tag(&p) != DW_TAG_reference_type &&
	    dwarf_tag(&p) != DW_TAG_rvalue_reference_type)
		return false;
	return type_of(&p, obj) && dwarf_aggregate_size(obj, &size) == 0 && size;
}

/* A location of one operation naming register REG. */
static bool is_reg(const Dwarf_Op *e, size_t n, int reg)
{
	if (n != 1)
		return false;
	if (e[0].atom >= DW_OP_reg0 && e[0].atom <= DW_OP_reg31)
		return (int)(e[0].atom - DW_OP_reg0) == reg;
	return e[0].atom == DW_OP_regx && e[0].number == (Dwarf_Word)reg;
}

static bool is_var(int tag)
{
	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

int hwp__elf_module_type_in_reg(struct hwp_elf_module *m, uint64_t pc, int reg, int64_t disp, bool indexed,
				struct hwp__data_type *out)
{
	Dwarf *dw = hwp__elf_module_dwarf(m);
	Dwarf_Die cu, *scopes = NULL;
	int n;

	memset(out, 0, sizeof(*out));
	if (!dw || reg < 0 || !dwarf_addrdie(dw, pc, &cu))
		return 0;
	if ((n = dwarf_getscopes(&cu, pc, &scopes)) <= 0)
		return 0;
	/* the innermost scope's variables first */
	for (int i = 0; i < n; i++) {
		Dwarf_Die c;
		if (dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			Dwarf_Attribute a;
			Dwarf_Op *e;
			size_t len;
			Dwarf_Die t, p, obj;
			Dwarf_Word size = 0;
			const char *vn;

			if (!is_var(dwarf_tag(&c)) || !dwarf_attr(&c, DW_AT_location, &a) ||
			    dwarf_getlocation_addr(&a, pc, &e, &len, 1) != 1 || !is_reg(e, len, reg))
				continue;
			if (!type_of(&c, &t) || dwarf_peel_type(&t, &p) != 0 ||
			    (dwarf_tag(&p) != DW_TAG_pointer_type && dwarf_tag(&p) != DW_TAG_reference_type &&
			     dwarf_tag(&p) != DW_TAG_rvalue_reference_type) ||
			    !type_of(&p, &obj))
				continue; /* not a pointer (an index, a value): look on */
			if (dwarf_aggregate_size(&obj, &size) != 0 || !size || disp < 0)
				goto none; /* void *, an incomplete type, or before the object
					      (container_of): the register is this one's, unnamed */
			uint64_t off = (uint64_t)disp;
			if (indexed || off >= size)
				off %= size; /* p[i].field: an element of an array of them */
			if ((vn = name_of_die(&c)))
				snprintf(out->var, sizeof(out->var), "%s", vn);
			free(scopes);
			return describe(&obj, off, out) ? 1 : 0;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
none:
	free(scopes);
	memset(out, 0, sizeof(*out));
	return 0;
}

static int cmp_global(const void *pa, const void *pb)
{
	const struct global_var *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->size > b->size ? -1 : a->size < b->size;
}

/* Adds the variables with a DW_OP_addr location under DIE (functions'
   statics included). */
static int index_die(struct hwp__dtype_globals *g, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_variable) {
			Dwarf_Attribute a;
			Dwarf_Op *e;
			size_t len;
			Dwarf_Die t;
			Dwarf_Word size;
			if (dwarf_attr(&c, DW_AT_location, &a) && dwarf_getlocation(&a, &e, &len) == 0 && len == 1 &&
			    e[0].atom == DW_OP_addr && type_of(&c, &t) && dwarf_aggregate_size(&t, &size) == 0 && size) {
				struct global_var *v = HWP_VEC_PUSH(g->v, g->n, g->cap);
				if (!v)
					return -ENOMEM;
				*v = (struct global_var){ e[0].number, size, dwarf_dieoffset(&c) };
			}
		} else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
			   tag == DW_TAG_module) {
			int rc = index_die(g, &c, depth + 1);
			if (rc < 0)
				return rc;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* The module's state here (made on first need; NULL: out of memory). */
static struct hwp__dtype_globals *state(struct hwp_elf_module *m)
{
	struct hwp__dtype_globals **slot = hwp__elf_module_dtype_globals(m);

	if (!*slot)
		*slot = calloc(1, sizeof(**slot));
	return *slot;
}

/* The index of the module's variables by address, built on first use. */
static struct hwp__dtype_globals *globals(struct hwp_elf_module *m, Dwarf *dw)
{
	struct hwp__dtype_globals *g = state(m);
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!g || g->indexed)
		return g;
	g->indexed = true;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu) && index_die(g, &cu, 0) < 0) {
			free(g->v);
			g->v = NULL;
			g->n = g->cap = 0;
			return NULL;
		}
		off = next;
	}
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), cmp_global);
	return g;
}

/* Where the CFA is at PC: REG + *OFF (false when the binary's .eh_frame
   says otherwise or nothing). */
static bool cfa_at(struct hwp_elf_module *m, uint64_t pc, int *reg, int64_t *off)
{
	struct hwp__dtype_globals *g = state(m);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	bool ok = false;

	if (!g)
		return false;
	if (!g->cfi_tried) {
		g->cfi_tried = true;
		if (hwp__elf_module_binary(m))
			g->cfi = dwarf_getcfi_elf(hwp__elf_module_binary(m));
	}
	if (!g->cfi || dwarf_cfi_addrframe(g->cfi, pc, &frame) != 0)
		return false;
	/* libdw spells a register + offset rule DW_OP_bregx */
	if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1) {
		if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			*reg = (int)(ops[0].atom - DW_OP_breg0);
			*off = (int64_t)ops[0].number;
			ok = true;
		} else if (ops[0].atom == DW_OP_bregx && ops[0].number < 32) {
			*reg = (int)ops[0].number;
			*off = (int64_t)ops[0].number2;
			ok = true;
		}
	}
	free(frame);
	return ok;
}

/* The frame base of the function around scopes SC[0..N) is the CFA. */
static bool frame_base_is_cfa(Dwarf_Die *sc, int n)
{
	for (int i = 0; i < n; i++) {
		Dwarf_Attribute a;
		Dwarf_Op *e;
		size_t len;
		if (dwarf_tag(&sc[i]) != DW_TAG_subprogram)
			continue;
		return dwarf_attr_integrate(&sc[i], DW_AT_frame_base, &a) && dwarf_getlocation(&a, &e, &len) == 0 &&
		       len == 1 && e[0].atom == DW_OP_call_frame_cfa;
	}
	return false;
}

int hwp__elf_module_type_on_stack(struct hwp_elf_module *m, uint64_t pc, int reg, int64_t disp,
				  struct hwp__data_type *out)
{
	Dwarf *dw = hwp__elf_module_dwarf(m);
	Dwarf_Die cu, *scopes = NULL;
	int n, cfa_reg = -1;
	int64_t cfa_off = 0;

	memset(out, 0, sizeof(*out));
	if (!dw || !dwarf_addrdie(dw, pc, &cu) || (n = dwarf_getscopes(&cu, pc, &scopes)) <= 0)
		return 0;
	/* the access, relative to the CFA when the CFA is REG-based here */
	bool by_cfa = cfa_at(m, pc, &cfa_reg, &cfa_off) && cfa_reg == reg && frame_base_is_cfa(scopes, n);
	int64_t rel;
	if (__builtin_sub_overflow(disp, cfa_off, &rel)) /* offsets from a crafted file */
		by_cfa = false;
	for (int i = 0; i < n; i++) {
		Dwarf_Die c;
		if (dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			Dwarf_Attribute a;
			Dwarf_Op *e;
			size_t len;
			Dwarf_Die t;
			Dwarf_Word size;
			int64_t at;
			const char *vn;

			if (!is_var(dwarf_tag(&c)) || !dwarf_attr(&c, DW_AT_location, &a) ||
			    dwarf_getlocation_addr(&a, pc, &e, &len, 1) != 1 || len != 1 || !type_of(&c, &t) ||
			    dwarf_aggregate_size(&t, &size) != 0 || !size)
				continue;
			if (e[0].atom == DW_OP_fbreg && by_cfa) {
				if (__builtin_sub_overflow(rel, (int64_t)e[0].number, &at))
					continue;
			} else if (e[0].atom == (unsigned)(DW_OP_breg0 + reg)) {
				if (__builtin_sub_overflow(disp, (int64_t)e[0].number, &at))
					continue;
			} else {
				continue;
			}
			if (at < 0 || (uint64_t)at >= size)
				continue;
			if ((vn = name_of_die(&c)))
				snprintf(out->var, sizeof(out->var), "%s", vn);
			free(scopes);
			return describe(&t, (uint64_t)at, out) ? 1 : 0;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	free(scopes);
	return 0;
}

/* The variable whose object holds ADDR, or NULL. */
static const struct global_var *find_global(const struct hwp__dtype_globals *g, uint64_t addr)
{
	size_t lo = 0, hi = g->n;

	/* the last variable starting at or below ADDR that holds it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* variables do not nest: a few at the same address at most */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++)
		if (addr - g->v[i].addr < g->v[i].size)
			return &g->v[i];
	return NULL;
}

int hwp__elf_module_type_at(struct hwp_elf_module *m, uint64_t addr, struct hwp__data_type *out)
{
	Dwarf *dw = hwp__elf_module_dwarf(m);
	struct hwp__dtype_globals *g;
	const struct global_var *v;
	Dwarf_Die die, t;
	const char *vn;

	memset(out, 0, sizeof(*out));
	if (!dw)
		return 0;
	if (!(g = globals(m, dw)))
		return -ENOMEM;
	if (!(v = find_global(g, addr)) || !dwarf_offdie(dw, v->die, &die) || !type_of(&die, &t))
		return 0;
	if ((vn = name_of_die(&die)))
		snprintf(out->var, sizeof(out->var), "%s", vn);
	return describe(&t, addr - v->addr, out) ? 1 : 0;
}
/* Adds the register ranges of the pointer variables under DIE (its
   blocks and inlined calls too) to *V. */
static int ranges_under(Dwarf_Die *die, struct hwp__reg_range **v, size_t *nr, size_t *cap, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(die, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Attribute a;
		Dwarf_Addr base, lo, hi;
		Dwarf_Op *e;
		size_t len;
		Dwarf_Die obj;
		ptrdiff_t off = 0;

		if (hwp__dwarf_is_pc_scope(tag)) {
			int rc = ranges_under(&c, v, nr, cap, depth + 1);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!is_var(tag) || !dwarf_attr(&c, DW_AT_location, &a) || !pointee_of(&c, &obj))
			continue;
		while ((off = dwarf_getlocations(&a, off, &base, &lo, &hi, &e, &len)) > 0) {
			unsigned reg;
			if (len != 1)
				continue;
			if (e[0].atom >= DW_OP_reg0 && e[0].atom <= DW_OP_reg31)
				reg = e[0].atom - DW_OP_reg0;
			else if (e[0].atom == DW_OP_regx && e[0].number < 32)
				reg = (unsigned)e[0].number;
			else
				continue;
			struct hwp__reg_range *r = HWP_VEC_PUSH(*v, *nr, *cap);
			if (!r)
				return -ENOMEM;
			*r = (struct hwp__reg_range){ lo, hi, (int)reg, depth, { dwarf_dieoffset(&obj), name_of_die(&c) } };
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* The function of PARENT's tree (namespaces and classes searched) whose
   ranges hold PC. */
static bool function_at(Dwarf_Die *parent, uint64_t pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_subprogram && dwarf_haspc(&c, pc) == 1) {
			*out = c;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type) &&
		    function_at(&c, pc, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

int hwp__elf_module_reg_ranges(struct hwp_elf_module *m, uint64_t pc, struct hwp__reg_range **out, size_t *n)
{
	Dwarf *dw = hwp__elf_module_dwarf(m);
	Dwarf_Die cu, *scopes = NULL;
	struct hwp__reg_range *v = NULL;
	size_t nr = 0, cap = 0;
	int ns, fn = -1, rc = 0;
	Dwarf_Die fdie;


	*out = NULL;
	*n = 0;
	if (!dw || !dwarf_addrdie(dw, pc, &cu) || (ns = dwarf_getscopes(&cu, pc, &scopes)) <= 0)
		return 0;
	/* the outermost function around PC: every variable of its tree (in
	   inlined code the scopes go from the inlined call to the CU, the
	   caller left out: then it is the CU's function holding PC) */
	for (int i = 0; i < ns; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && dwarf_haspc(&scopes[i], pc) == 1)
			fn = i;
	if (fn >= 0)
		rc = ranges_under(&scopes[fn], &v, &nr, &cap, 0);
	else if (function_at(&cu, pc, &fdie, 0))
		rc = ranges_under(&fdie, &v, &nr, &cap, 0);
	free(scopes);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v;
	*n = nr;
	return 0;
}

int hwp__elf_module_describe(struct hwp_elf_module *m, uint64_t pointee, int64_t off, struct hwp__data_type *out)
{
	Dwarf *dw = hwp__elf_module_dwarf(m);
	Dwarf_Die t;
	Dwarf_Word size;

	memset(out, 0, sizeof(*out));
	if (!dw || !pointee || !dwarf_offdie(dw, pointee, &t) || dwarf_aggregate_size(&t, &size) != 0 || !size)
		return 0;
	off %= (int64_t)size;
	if (off < 0)
		off += (int64_t)size;
	return describe(&t, (uint64_t)off, out) ? 1 : 0;
}

uint64_t hwp__elf_module_loaded_pointee(struct hwp_elf_module *m, uint64_t pointee, int64_t off, uint64_t addr)
{
	Dwarf *dw = hwp__elf_module_dwarf(m);
	struct hwp__data_type d;
	Dwarf_Die t, leaf, p, obj;
	Dwarf_Word size;
	bool has = false;

	if (!dw)
		return 0;
	if (pointee) {
		if (!dwarf_offdie(dw, pointee, &t) || dwarf_aggregate_size(&t, &size) != 0 || !size)
			return 0;
		off %= (int64_t)size;
		if (off < 0)
			off += (int64_t)size;
	} else {
		struct hwp__dtype_globals *g = globals(m, dw);
		const struct global_var *v = g ? find_global(g, addr) : NULL;
		Dwarf_Die die;
		if (!v || !dwarf_offdie(dw, v->die, &die) || !type_of(&die, &t))
			return 0;
		off = (int64_t)(addr - v->addr);
	}
	memset(&d, 0, sizeof(d));
	describe_leaf(&t, (uint64_t)off, &d, &leaf, &has);
	if (!has || dwarf_peel_type(&leaf, &p) != 0 || dwarf_tag(&p) != DW_TAG_pointer_type || !type_of(&p, &obj) ||
	    dwarf_aggregate_size(&obj, &size) != 0 || !size)
		return 0;
	return dwarf_dieoffset(&obj);
}

#else /* !HAVE_LIBDW: no DWARF, no type */
void hwp__dtype_globals_free(struct hwp__dtype_globals *g)
{
	(void)g;
}

int hwp__elf_module_type_in_reg(struct hwp_elf_module *m, uint64_t pc, int reg, int64_t disp, bool indexed,
				struct hwp__data_type *out)
{
	(void)m, (void)pc, (void)reg, (void)disp, (void)indexed;
	memset(out, 0, sizeof(*out));
	return 0;
}

int hwp__elf_module_type_at(struct hwp_elf_module *m, uint64_t addr, struct hwp__data_type *out)
{
	(void)m, (void)addr;
	memset(out, 0, sizeof(*out));
	return 0;
}

int hwp__elf_module_type_on_stack(struct hwp_elf_module *m, uint64_t pc, int reg, int64_t disp,
				  struct hwp__data_type *out)
{
	(void)m, (void)pc, (void)reg, (void)disp;
	memset(out, 0, sizeof(*out));
	return 0;
}

int hwp__elf_module_reg_ranges(struct hwp_elf_module *m, uint64_t pc, struct hwp__reg_range **out, size_t *n)
{
	(void)m, (void)pc;
	*out = NULL;
	*n = 0;
	return 0;
}

int hwp__elf_module_describe(struct hwp_elf_module *m, uint64_t pointee, int64_t off, struct hwp__data_type *out)
{
	(void)m, (void)pointee, (void)off;
	memset(out, 0, sizeof(*out));
	return 0;
}

uint64_t hwp__elf_module_loaded_pointee(struct hwp_elf_module *m, uint64_t pointee, int64_t off, uint64_t addr)
{
	(void)m, (void)pointee, (void)off, (void)addr;
	return 0;
}
#endif
