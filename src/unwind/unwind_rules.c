/* SPDX-License-Identifier: MIT */
/*
 * Cached unwinding rules (see unwind_rules.h). A rule is read from the
 * Dwarf_Frame libdw gives for an address, the one libdwfl's handle_cfi()
 * would interpret, and applies to that frame's whole row of the CFI table
 * from the address to the end of its row (dwarf_frame_info()'s end), so
 * that a few rules serve every address of a loop. Rules live with their binary, sorted by address; a frame's
 * rule is a binary search away.
 *
 * The step reproduces libdwfl's for those rules: every register of the
 * frame evaluated from the callee's values in register order (a failed
 * read leaves the register unknown), the return-address column gives the
 * caller's pc, an undefined or zero one ends the stack.
 */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind_rules.h"
#include "util/vec.h"

/* a register of the caller: unknown, the callee's, read at CFA + off,
   CFA + off itself, another register + off, read at another register +
   off (DW_CFA_expression DW_OP_bregN, as signal frames save them) */
enum { HOW_UNDEF, HOW_SAME, HOW_AT, HOW_VAL, HOW_REG, HOW_REG_AT };

struct hwp__rule {
	uint64_t start, end; /* link-time addresses the rule applies to */
	bool ok;             /* a plain rule: else libdwfl unwinds the sample */
	bool signal;         /* the row of a signal trampoline's FDE ("S") */
	bool cfa_deref;      /* CFA = the word at register + offset (a signal frame's) */
	bool rbx_kept;       /* x86-64: rbx left unspecified, the caller's is the callee's
				(libdw says undefined: see hwp__rule_flags()) */
	uint8_t cfa_reg, ra;
	int64_t cfa_off;
	uint8_t how[HWP__DWARF_REGS];
	uint8_t reg[HWP__DWARF_REGS]; /* HOW_REG, HOW_REG_AT: the register */
	int32_t off[HWP__DWARF_REGS]; /* added to the CFA or to that register */
	bool reg_needs_cfa[HWP__DWARF_REGS]; /* HOW_REG(_AT) evaluating the CFA first */
};

struct hwp__rule_cache {
	struct hwp__rule *r; /* sorted by start, not overlapping */
	size_t n, cap;
};

void hwp__rule_cache_delete(struct hwp__rule_cache *rc)
{
	if (!rc)
		return;
	free(rc->r);
	free(rc);
}

/* The rule holding VADDR, else NULL and *AT where it would go. */
static struct hwp__rule *rule_find(const struct hwp__rule_cache *rc, uint64_t vaddr, size_t *at)
{
	size_t lo = 0, hi = rc->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rc->r[mid].end <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < rc->n && rc->r[lo].start <= vaddr ? &rc->r[lo] : NULL;
}

/* DW_OP_regN / regx N: register N; DW_OP_bregN / bregx N, OFF: N plus OFF. */
static bool op_reg(const Dwarf_Op *op, unsigned *reg, int64_t *off)
{
	*off = 0;
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*reg = op->atom - DW_OP_reg0;
		return true;
	}
	if (op->atom == DW_OP_regx) {
		*reg = (unsigned)op->number;
		return op->number < 256;
	}
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (unsigned)op->number;
		*off = (int64_t)op->number2;
		return op->number < 256;
	}
	return false;
}

/* One register's rule from libdw's expression for it (what handle_cfi()
   and expr_eval() make of it); false for anything else. */
static bool reg_rule(const Dwarf_Op *ops, size_t nops, const Dwarf_Op *mem, unsigned nregs, struct hwp__rule *r,
		     unsigned regno)
{
	int64_t o = 0;
	unsigned src;

	if (!nops) {
		/* undefined: the caller-owned array, same value: none */
		r->how[regno] = ops == mem ? HOW_UNDEF : HOW_SAME;
		return ops == mem || ops == NULL;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		/* CFA [+ N] is an address (read), unless DW_OP_stack_value ends it;
		   CFA, bregN M (DW_CFA_expression: the CFA pushed first, then
		   unused) is the address register N + M */
		size_t i = 1;
		bool breg = i < nops && ops[i].atom != DW_OP_plus_uconst && ops[i].atom != DW_OP_stack_value;
		if (breg && (!op_reg(&ops[i], &src, &o) || ops[i].atom < DW_OP_breg0 || src >= nregs))
			return false;
		if (breg || (i < nops && ops[i].atom == DW_OP_plus_uconst))
			o = breg ? o : (int64_t)ops[i].number, i++;
		bool value = i < nops && ops[i].atom == DW_OP_stack_value;
		i += value;
		if (i != nops || o != (int32_t)o)
			return false;
		r->how[regno] = breg ? (value ? HOW_REG : HOW_REG_AT) : value ? HOW_VAL : HOW_AT;
		r->reg[regno] = breg ? (uint8_t)src : 0;
		r->off[regno] = (int32_t)o;
		r->reg_needs_cfa[regno] = breg;
		return true;
	}
	/* another register's value (DW_CFA_register): no CFA, so a value */
	if (!op_reg(&ops[0], &src, &o) || src >= nregs || o != (int32_t)o ||
	    !(nops == 1 || (nops == 2 && ops[1].atom == DW_OP_stack_value)))
		return false;
	r->how[regno] = HOW_REG;
	r->reg[regno] = (uint8_t)src;
	r->off[regno] = (int32_t)o;
	return true;
}

/* The rule of FRAME (libdw's row for an address) into R. */
static void rule_from_frame(Dwarf_Frame *frame, unsigned nregs, uint16_t e_machine, struct hwp__rule *r)
{
	Dwarf_Addr start, end;
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool signal;
	int64_t off;
	unsigned reg;

	int ra = dwarf_frame_info(frame, &start, &end, &signal);
	r->ok = false;
	r->signal = ra >= 0 && signal;
	/* elfutils' x86-64 ABI defaults (backends/x86_64_cfi.c, up to 0.188 at
	   least) mark DWARF register 0 (rax) same-value where rbx (3) was
	   meant, so a row that does not mention rbx (every row of a function
	   before it saves rbx, and of one that never touches it) makes it
	   undefined in the caller. The psABI has rbx callee-saved, and
	   perf 6.1's libunwind keeps a register the CFI leaves unspecified:
	   glibc's lazy-binding trampoline finds its frame from rbx, so a
	   sample at _dl_fixup's entry would end there. (An explicit
	   DW_CFA_undefined of rbx reads the same through libdw: unseen.) */
	r->rbx_kept = e_machine == EM_X86_64 && nregs > 3 && !dwarf_frame_register(frame, 3, mem, &ops, &nops) &&
		      !nops && ops == mem;
	/* CFA = register + offset, or the word there (DW_OP_bregN M; DW_OP_deref) */
	if (ra < 0 || (unsigned)ra >= nregs || dwarf_frame_cfa(frame, &ops, &nops) || !nops || nops > 2 ||
	    !op_reg(&ops[0], &reg, &off) || ops[0].atom < DW_OP_breg0 || reg >= nregs ||
	    (nops == 2 && ops[1].atom != DW_OP_deref))
		return;
	r->cfa_deref = nops == 2;
	r->ra = (uint8_t)ra;
	r->cfa_reg = (uint8_t)reg;
	r->cfa_off = off;
	for (unsigned i = 0; i < nregs; i++)
		if (dwarf_frame_register(frame, (int)i, mem, &ops, &nops) ? (r->how[i] = HOW_UNDEF, false)
									 : !reg_rule(ops, nops, mem, nregs, r, i))
			return;
	if (r->rbx_kept)
		r->how[3] = HOW_SAME;
	/* AArch64: a return address signed (pointer authentication) is left
	   to libdwfl */
	if (e_machine == EM_AARCH64 &&
	    (dwarf_frame_register(frame, 34, mem, &ops, &nops) || nops || (ops != mem && ops != NULL)))
		return;
	r->ok = true;
}

/* The rule of absolute address PC (the lookup address: a caller's return
   address minus one) in module SM, made from the CFI libdwfl would use
   (.eh_frame, else .debug_frame) when first met. NULL: out of memory. */
static const struct hwp__rule *rule_get(struct hwp__unwinder *u, struct hwp__smod *sm, uint64_t pc,
					const struct hwp__dwarf_regs *regs)
{
	struct hwp__ufile *f = sm->f;
	uint64_t vaddr = pc - sm->bias;
	size_t at;

	if (!f->rules && !(f->rules = calloc(1, sizeof(*f->rules))))
		return NULL;
	struct hwp__rule *hit = rule_find(f->rules, vaddr, &at);
	if (hit)
		return hit;

	struct hwp__rule r = { .start = vaddr, .end = vaddr + 1 };
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(sm->mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame)) {
		frame = NULL;
		cfi = hwp__ufile_has_debug_frame(f) ? dwfl_module_dwarf_cfi(sm->mod, &bias) : NULL;
		if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame))
			frame = NULL;
	}
	if (frame) {
		Dwarf_Addr s, e;
		rule_from_frame(frame, regs->nregs, regs->e_machine, &r);
		/* the rest of the address's row of the table, in the binary's
		   addresses: libdw's end of the row is right, its start may be
		   an earlier row's after DW_CFA_restore_state */
		if (dwarf_frame_info(frame, &s, &e, NULL) >= 0 && e + bias > pc)
			r.end = e + bias - sm->bias;
		free(frame);
	}
	if (at > 0 && f->rules->r[at - 1].end > r.start)
		r.start = f->rules->r[at - 1].end;
	if (at < f->rules->n && f->rules->r[at].start < r.end)
		r.end = f->rules->r[at].start;
	if (r.start > vaddr || r.end <= vaddr) {
		r.start = vaddr;
		r.end = vaddr + 1;
	}
	if (HWP_VEC_RESERVE(f->rules->r, f->rules->cap, f->rules->n + 1))
		return NULL;
	memmove(f->rules->r + at + 1, f->rules->r + at, (f->rules->n - at) * sizeof(r));
	f->rules->r[at] = r;
	f->rules->n++;
	u->st.rules++;
	return &f->rules->r[at];
}

int hwp__rule_flags(struct hwp__unwinder *u, struct hwp__smod *sm, uint64_t look, bool *rbx_kept)
{
	const struct hwp__rule *r = rule_get(u, sm, look, &u->regs);

	if (!r)
		return -ENOMEM;
	*rbx_kept = r->rbx_kept;
	return r->signal;
}

/* The CFA of R from IN, as libdwfl evaluates it (again) for each register
   whose rule uses it: a read when the CFA is the word at an address. */
static bool rule_cfa(struct hwp__unwinder *u, const struct hwp__rule *r, const struct hwp__dwarf_regs *in,
		     uint64_t *cfa)
{
	if (!(in->have >> r->cfa_reg & 1))
		return false;
	uint64_t a = in->val[r->cfa_reg] + (uint64_t)r->cfa_off;
	if (r->cfa_deref)
		return hwp__unwind_read(u, a, cfa);
	*cfa = a;
	return true;
}

/* One step from REGS with rule R: the caller's registers into OUT.
   False when the stack ends here (the return address undefined, unknown
   or zero). */
static bool rule_step(struct hwp__unwinder *u, const struct hwp__rule *r, const struct hwp__dwarf_regs *in,
		      struct hwp__dwarf_regs *out)
{
	bool ra_undef = false;
	uint64_t cfa;

	/* every register, as libdwfl evaluates them (its reads count even
	   when the return address turns out undefined) */
	out->have = 0;
	for (unsigned i = 0; i < in->nregs; i++) {
		uint64_t v;
		switch (r->how[i]) {
		case HOW_UNDEF:
			ra_undef |= i == r->ra;
			continue;
		case HOW_SAME:
			if (!(in->have >> i & 1))
				continue;
			v = in->val[i];
			break;
		case HOW_AT:
			if (!rule_cfa(u, r, in, &cfa) || !hwp__unwind_read(u, cfa + (uint64_t)(int64_t)r->off[i], &v))
				continue;
			break;
		case HOW_VAL:
			if (!rule_cfa(u, r, in, &cfa))
				continue;
			v = cfa + (uint64_t)(int64_t)r->off[i];
			break;
		case HOW_REG:
			if ((r->reg_needs_cfa[i] && !rule_cfa(u, r, in, &cfa)) || !(in->have >> r->reg[i] & 1))
				continue;
			v = in->val[r->reg[i]] + (uint64_t)(int64_t)r->off[i];
			break;
		default: /* HOW_REG_AT */
			if (!rule_cfa(u, r, in, &cfa) || !(in->have >> r->reg[i] & 1) ||
			    !hwp__unwind_read(u, in->val[r->reg[i]] + (uint64_t)(int64_t)r->off[i], &v))
				continue;
			break;
		}
		out->val[i] = v;
		out->have |= 1u << i;
	}
	if (ra_undef || !(out->have >> r->ra & 1) || !out->val[r->ra])
		return false;
	out->pc = out->val[r->ra];
	return true;
}

int hwp__unwind_rules(struct hwp__unwinder *u, struct hwp__space *sp)
{
	struct hwp__dwarf_regs cur = u->regs, next;
	bool exact = true; /* the pc is exact: the first frame, or one a signal interrupted */

	next.nregs = cur.nregs;
	next.e_machine = cur.e_machine;
	u->n = 0;
	for (;;) {
		struct hwp__smod *sm;
		uint64_t pc = cur.pc, look = exact ? pc : pc - 1;

		u->read_fail = 0;
		/* the frame's module, as libdwfl's path reports it */
		int r = hwp__space_report(sp, pc, &sm);
		if (r < 0)
			return r;
		if (r || look < sm->lo || look >= sm->hi)
			return HWP__RULES_FALLBACK;
		const struct hwp__rule *rule = rule_get(u, sm, look, &cur);
		if (!rule)
			return -ENOMEM;
		if (!rule->ok)
			return HWP__RULES_FALLBACK;
		/* perf's address: a signal trampoline's own frame is decremented
		   like a call's (see frame_callback()) */
		u->ips[u->n++] = look;
		if (u->n >= u->max)
			return HWP__UNWIND_DONE;
		if (!rule_step(u, rule, &cur, &next))
			return hwp__unwind_read_end(u->read_fail);
		cur = next;
		exact = rule->signal;
	}
}
