/* SPDX-License-Identifier: MIT */
/* Data types of memory accesses (mem_types.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/mem_types.h"
#include "decode/insn_starts.h"
#include "decode/mem_operand.h"
#include "symbolize/elf_module.h"
#include "symbolize/symbolizer_internal.h"

/* How far before the sampled instruction its function may start for the
   registers to be followed from there (bytes). */
#define TRACK_MAX 65536

/* What a register is known to hold while the instructions are followed. */
struct reg_state {
	enum { R_NONE, R_PTR, R_ADDR } kind;
	uint64_t pointee;  /* R_PTR: the pointed-to type (DIE offset) ... */
	int64_t delta;     /* ... and how far the pointer moved from an object's start */
	uint64_t addr;     /* R_ADDR: a link-time address (a global's, or inside one) */
	const char *var;   /* where it came from, when named */
};

/* A caller-saved register of the x86-64 psABI (rax, rdx, rcx, rsi, rdi, r8-r11). */
#define CALL_CLOBBERED (1u << 0 | 1u << 1 | 1u << 2 | 1u << 4 | 1u << 5 | 0xfu << 8)

struct hwp__mem_typer {
	struct hwp_symbolizer *sym;
	/* the function being followed: from FSTART up to NEXT (file offsets),
	   the registers' state there; asked in address order, one walk serves
	   all of a function's instructions */
	bool active;
	int32_t module;
	uint64_t fstart, next;
	struct hwp_elf_module *elf;
	struct reg_state r[32];
	struct hwp__reg_range *ranges; /* where DWARF names pointers in registers */
	size_t nranges;
	/* the instruction asked for */
	uint64_t target;
	struct hwp__data_type *out;
	int found;                     /* 1: *OUT filled */
};

struct hwp__mem_typer *hwp__mem_typer_new(struct hwp_symbolizer *sym)
{
	struct hwp__mem_typer *t = calloc(1, sizeof(*t));

	if (t)
		t->sym = sym;
	return t;
}

void hwp__mem_typer_delete(struct hwp__mem_typer *t)
{
	if (!t)
		return;
	free(t->ranges);
	free(t);
}

/* Byte DISP past what S holds: its type and member into T->out. */
static void name_from(struct hwp__mem_typer *t, const struct reg_state *s, int64_t disp)
{
	if (s->kind == R_PTR)
		t->found = hwp__elf_module_describe(t->elf, s->pointee, s->delta + disp, t->out) == 1;
	else if (s->kind == R_ADDR)
		t->found = hwp__elf_module_type_at(t->elf, s->addr + (uint64_t)disp, t->out) == 1;
	if (t->found && s->var && !t->out->var[0])
		strncat(t->out->var, s->var, sizeof(t->out->var) - 1);
}

static int track_one(void *ctx, const struct hwp__insn_regs *in)
{
	struct hwp__mem_typer *t = ctx;
	struct reg_state *r = t->r, n = { 0 };
	const struct hwp__mem_operand *m = &in->mem;
	int depth[32];

	/* what DWARF says is in the registers here comes first (the
	   innermost scope's variable) */
	for (int i = 0; i < 32; i++)
		depth[i] = -1;
	for (size_t i = 0; i < t->nranges; i++) {
		const struct hwp__reg_range *g = &t->ranges[i];
		if (in->vaddr >= g->lo && in->vaddr < g->hi && g->depth > depth[g->reg]) {
			depth[g->reg] = g->depth;
			r[g->reg] = (struct reg_state){ .kind = R_PTR, .pointee = g->p.pointee, .var = g->p.var };
		}
	}
	t->next = in->offset + in->len;
	if (in->offset == t->target && in->has_mem == 1 && m->base >= 0 && m->base < 32)
		name_from(t, &r[m->base], m->disp);
	switch (in->effect) {
	case HWP_REG_COPY:
		if (in->src < 32 && in->dst < 32)
			r[in->dst] = r[in->src];
		return 0;
	case HWP_REG_ADD:
		if (in->dst < 32) {
			r[in->dst].delta += in->imm;
			r[in->dst].addr += (uint64_t)in->imm;
		}
		return 0;
	case HWP_REG_LEA:
		/* base + index * scale: an element of the array the base points
		   into, as an indexed operand is taken at the sample (data_type.h) */
		if (m->absolute && m->index < 0)
			n = (struct reg_state){ .kind = R_ADDR, .addr = m->addr };
		else if (!m->absolute && m->base >= 0 && m->base < 32 && r[m->base].kind == R_PTR) {
			n = r[m->base];
			n.delta += m->disp;
		} else if (!m->absolute && m->index < 0 && m->base >= 0 && m->base < 32 && r[m->base].kind != R_NONE) {
			n = r[m->base];
			n.delta += m->disp;
			n.addr += (uint64_t)m->disp;
		}
		if (in->dst >= 0 && in->dst < 32)
			r[in->dst] = n;
		return 0;
	case HWP_REG_LOAD: {
		/* a pointer read from a known object's member: p = p->next */
		uint64_t p = 0;
		const struct reg_state *b = m->base >= 0 && m->base < 32 ? &r[m->base] : NULL;
		if (m->absolute)
			p = hwp__elf_module_loaded_pointee(t->elf, 0, 0, m->addr);
		else if (b && b->kind == R_PTR && m->index < 0)
			p = hwp__elf_module_loaded_pointee(t->elf, b->pointee, b->delta + m->disp, 0);
		else if (b && b->kind == R_ADDR && m->index < 0)
			p = hwp__elf_module_loaded_pointee(t->elf, 0, 0, b->addr + (uint64_t)m->disp);
		if (p)
			n = (struct reg_state){ .kind = R_PTR, .pointee = p };
		if (in->dst >= 0 && in->dst < 32)
			r[in->dst] = n;
		return 0;
	}
	case HWP_REG_CALL:
		for (int i = 0; i < 32; i++)
			if (CALL_CLOBBERED & (1u << i))
				r[i] = n;
		return 0;
	case HWP_REG_OTHER:
		break;
	}
	for (int i = 0; i < 32; i++)
		if (in->written & (1u << i))
			r[i] = n;
	return 0;
}

/* Follows the registers from the start of the function holding CODE to
   it, in address order (a sketch of perf's type tracking, which follows
   the basic blocks): a pointer named by DWARF somewhere before, then
   copied, moved by constants, or loaded from a known member, still points
   to its type. The walk goes on from where the last one stopped when CODE
   is further in the same function. */
static int track(struct hwp__mem_typer *t, struct hwp__code_file *f, struct hwp_elf_module *elf,
		 const struct hwp_code_loc *code, struct hwp__data_type *out)
{
	struct hwp_symbol_info si;
	uint64_t into, fstart;

	/* without DWARF nothing names a register: no walk */
	if (!hwp__elf_module_dwarf(elf) || hwp_symbolizer__lookup(t->sym, code->module, code->offset, &si) < 0 ||
	    !si.symbol || si.vaddr < si.sym_start || (into = si.vaddr - si.sym_start) > TRACK_MAX ||
	    into > code->offset)
		return 0;
	fstart = code->offset - into;
	if (!t->active || t->module != code->module || t->fstart != fstart || code->offset < t->next) {
		free(t->ranges);
		memset(t->r, 0, sizeof(t->r));
		t->ranges = NULL;
		t->nranges = 0;
		t->module = code->module;
		t->fstart = t->next = fstart;
		t->elf = elf;
		t->active = hwp__elf_module_reg_ranges(elf, si.vaddr, &t->ranges, &t->nranges) == 0;
		if (!t->active)
			return 0;
	}
	t->target = code->offset;
	t->out = out;
	t->found = 0;
	if (hwp__code_file_walk_regs(f, t->next, code->offset, track_one, t) < 0) {
		t->active = false; /* not on the path decoded from the start */
		return 0;
	}
	return t->found;
}

enum hwp__dtype_how hwp__mem_typer_find(struct hwp__mem_typer *t, const struct hwp_code_loc *code,
					int32_t data_module, uint64_t data_offset, struct hwp__data_type *out)
{
	struct hwp_symbolizer *sym = t->sym;
	struct hwp__code_file *f = code->module >= 0 ? hwp__symbolizer_code_file(sym, code->module) : NULL;
	struct hwp_elf_module *elf = f ? hwp__symbolizer_elf(sym, code->module) : NULL, *delf;
	struct hwp__mem_operand op;
	uint64_t pc, va;
	int rc = 0;
	bool tracked = false;

	memset(out, 0, sizeof(*out));
	if (f && (rc = hwp__code_file_mem_operand(f, code->offset, &op)) == 1 && elf &&
	    hwp_symbolizer__module_vaddr(sym, code->module, code->offset, &pc) == 0) {
		/* the operand's own address: a global named by the code */
		if (op.absolute && hwp__elf_module_type_at(elf, op.addr, out) == 1)
			return HWP_DTYPE_GLOBAL;
		if (!op.absolute && op.base >= 0 &&
		    hwp__elf_module_type_in_reg(elf, pc, op.base, op.disp, op.index >= 0, out) == 1)
			return HWP_DTYPE_REGISTER;
		/* a local variable in the stack frame */
		if (op.stack_base && op.index < 0 && hwp__elf_module_type_on_stack(elf, pc, op.base, op.disp, out) == 1)
			return HWP_DTYPE_STACK_VAR;
		tracked = !op.absolute && op.base >= 0 && !op.stack_base;
	}
	/* the cheap path: the sample's address inside a variable of a module
	   with debug information */
	if (data_module >= 0 && (delf = hwp__symbolizer_elf(sym, data_module)) &&
	    hwp_symbolizer__module_vaddr(sym, data_module, data_offset, &va) == 0 &&
	    hwp__elf_module_type_at(delf, va, out) == 1)
		return HWP_DTYPE_GLOBAL;
	/* the base register followed from where DWARF names what it holds */
	if (tracked && track(t, f, elf, code, out) == 1)
		return HWP_DTYPE_TRACKED;
	memset(out, 0, sizeof(*out));
	if (rc == 0 && f && op.stack_op)
		return HWP_DTYPE_STACK_OP;
	return HWP_DTYPE_UNKNOWN;
}
