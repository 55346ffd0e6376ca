/* SPDX-License-Identifier: MIT */
/* One instruction's memory operand (mem_operand.h). */
#include <elf.h>
#include <errno.h>
#include <string.h>
#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

#include "decode/insn_starts.h"
#include "decode/mem_operand.h"

#ifdef HAVE_CAPSTONE
/* Capstone's x86 general register of any width -> DWARF number (System V
   x86-64 psABI); *FULL: the 64-bit register itself. */
static int x86_dwarf_reg_w(unsigned r, bool *full)
{
	static const unsigned map[16][5] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0 },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0 },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0 },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0 },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0 },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0 },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0 },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0 },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0 },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0 },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0 },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0 },
	};

	if (full)
		*full = false;
	for (int i = 0; i < 16 && r; i++)
		for (int w = 0; w < 5; w++)
			if (map[i][w] == r) {
				if (full)
					*full = w == 0;
				return i;
			}
	return -1;
}

/* The 64-bit registers and, for an address-size prefix, the 32-bit ones. */
static int x86_dwarf_reg(unsigned r)
{
	return x86_dwarf_reg_w(r, NULL);
}

/* AArch64: X0-X30 are DWARF 0-30 (W0-W30 too), SP 31. */
static int arm64_dwarf_reg(unsigned r)
{
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0);
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return (int)(r - ARM64_REG_W0);
	if (r == ARM64_REG_X29)
		return 29;
	if (r == ARM64_REG_X30)
		return 30;
	if (r == ARM64_REG_SP || r == ARM64_REG_WSP)
		return 31;
	return -1;
}

static int decode_x86(const cs_insn *in, struct hwp__mem_operand *op)
{
	const cs_x86 *x = &in->detail->x86;

	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];
		if (o->type != X86_OP_MEM)
			continue;
		/* lea and nop compute an address, they touch no memory */
		if (in->id == X86_INS_LEA || in->id == X86_INS_NOP)
			return 0;
		op->disp = o->mem.disp;
		op->scale = (unsigned)o->mem.scale;
		op->index = o->mem.index == X86_REG_INVALID ? -1 : x86_dwarf_reg(o->mem.index);
		if (o->mem.base == X86_REG_RIP) {
			op->absolute = true;
			op->addr = in->address + in->size + (uint64_t)o->mem.disp;
			return 1;
		}
		op->base = o->mem.base == X86_REG_INVALID ? -1 : x86_dwarf_reg(o->mem.base);
		op->stack_base = o->mem.base == X86_REG_RSP || o->mem.base == X86_REG_RBP;
		/* %fs/%gs: thread-local storage, not a link-time address (a
		   redundant %cs/%ds prefix, alignment padding, changes nothing) */
		if (o->mem.segment == X86_REG_FS || o->mem.segment == X86_REG_GS)
			return 0;
		if (op->base < 0 && op->index < 0) {
			op->absolute = true;
			op->addr = (uint64_t)o->mem.disp;
		}
		return 1;
	}
	switch (in->id) {
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_CALL: case X86_INS_RET: case X86_INS_LEAVE:
	case X86_INS_PUSHFQ: case X86_INS_POPFQ: case X86_INS_ENTER:
		op->stack_op = true;
		break;
	default:
		break;
	}
	return 0;
}

static int decode_arm64(const cs_insn *in, struct hwp__mem_operand *op)
{
	const cs_arm64 *x = &in->detail->arm64;

	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_arm64_op *o = &x->operands[i];
		if (o->type != ARM64_OP_MEM)
			continue;
		op->base = o->mem.base == ARM64_REG_INVALID ? -1 : arm64_dwarf_reg(o->mem.base);
		op->index = o->mem.index == ARM64_REG_INVALID ? -1 : arm64_dwarf_reg(o->mem.index);
		op->scale = 1;
		op->disp = o->mem.disp;
		op->stack_base = op->base == 31 || op->base == 29;
		return 1;
	}
	return 0;
}

/* The registers an x86 instruction writes, as DWARF numbers. */
static uint32_t x86_written(csh cs, const cs_insn *in)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;
	uint32_t m = 0;

	if (cs_regs_access(cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return UINT32_MAX;
	for (unsigned i = 0; i < nwr; i++) {
		int d = x86_dwarf_reg_w(wr[i], NULL);
		if (d >= 0)
			m |= 1u << d;
	}
	return m;
}

static void x86_regs(csh cs, const cs_insn *in, struct hwp__insn_regs *r)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o0 = x->op_count > 0 ? &x->operands[0] : NULL, *o1 = x->op_count > 1 ? &x->operands[1] : NULL;
	bool full0 = false, full1 = false;
	int d0 = o0 && o0->type == X86_OP_REG ? x86_dwarf_reg_w(o0->reg, &full0) : -1;
	int d1 = o1 && o1->type == X86_OP_REG ? x86_dwarf_reg_w(o1->reg, &full1) : -1;

	r->written = x86_written(cs, in);
	r->effect = HWP_REG_OTHER;
	r->dst = d0;
	switch (in->id) {
	case X86_INS_MOV:
		if (d0 >= 0 && full0 && d1 >= 0 && full1) {
			r->effect = HWP_REG_COPY;
			r->src = d1;
		} else if (d0 >= 0 && full0 && o1 && o1->type == X86_OP_MEM && r->has_mem == 1) {
			r->effect = HWP_REG_LOAD;
		}
		break;
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (d0 >= 0 && full0 && o1 && o1->type == X86_OP_IMM) {
			r->effect = HWP_REG_ADD;
			r->imm = in->id == X86_INS_ADD ? o1->imm : -o1->imm;
		}
		break;
	case X86_INS_LEA:
		if (d0 >= 0 && full0 && o1 && o1->type == X86_OP_MEM && o1->mem.segment == X86_REG_INVALID) {
			r->effect = HWP_REG_LEA;
			r->mem.disp = o1->mem.disp;
			r->mem.scale = (unsigned)o1->mem.scale;
			r->mem.index = o1->mem.index == X86_REG_INVALID ? -1 : x86_dwarf_reg(o1->mem.index);
			if (o1->mem.base == X86_REG_RIP) {
				r->mem.absolute = true;
				r->mem.addr = in->address + in->size + (uint64_t)o1->mem.disp;
			} else {
				r->mem.base = x86_dwarf_reg(o1->mem.base);
				if (r->mem.base < 0)
					r->effect = HWP_REG_OTHER;
			}
		}
		break;
	case X86_INS_CALL:
		r->effect = HWP_REG_CALL;
		break;
	default:
		break;
	}
}
#endif

int hwp__code_file_walk_regs(struct hwp__code_file *f, uint64_t start, uint64_t end, hwp__insn_regs_fn fn,
			     void *ctx)
{
#ifdef HAVE_CAPSTONE
	unsigned mach = hwp__code_file_machine(f);
	uint64_t vaddr;
	size_t left;
	const uint8_t *code = hwp__code_file_at_offset(f, start, &vaddr, &left);
	csh cs;
	cs_insn *in;
	int rc = 0;

	if (!code)
		return -ERANGE;
	if (mach != EM_X86_64)
		return -ENOTSUP; /* AArch64: only the operand at the sample (no tracking) */
	if (end < start || end - start >= left)
		return -ERANGE;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOMEM;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (!(in = cs_malloc(cs))) {
		cs_close(&cs);
		return -ENOMEM;
	}
	uint64_t off = start;
	while (rc == 0 && off <= end) {
		const uint8_t *p = code + (off - start);
		size_t n = left - (off - start);
		uint64_t va = vaddr + (off - start);
		struct hwp__insn_regs r;

		if (!cs_disasm_iter(cs, &p, &n, &va, in)) {
			rc = -EILSEQ;
			break;
		}
		memset(&r, 0, sizeof(r));
		r.offset = off;
		r.vaddr = in->address;
		r.len = (uint8_t)in->size;
		r.dst = r.src = -1;
		r.mem.base = r.mem.index = -1;
		r.has_mem = decode_x86(in, &r.mem);
		if (r.has_mem != 1)
			memset(&r.mem, 0, sizeof(r.mem)), r.mem.base = r.mem.index = -1;
		x86_regs(cs, in, &r);
		rc = fn(ctx, &r);
		off += in->size;
		if (rc == 0 && off > end && off - in->size != end)
			rc = -EILSEQ; /* stepped over END */
	}
	cs_free(in, 1);
	cs_close(&cs);
	return rc;
#else
	(void)f, (void)start, (void)end, (void)fn, (void)ctx;
	return -ENOTSUP;
#endif
}

int hwp__code_file_mem_operand(struct hwp__code_file *f, uint64_t off, struct hwp__mem_operand *op)
{
	memset(op, 0, sizeof(*op));
	op->base = op->index = -1;
#ifdef HAVE_CAPSTONE
	unsigned mach = hwp__code_file_machine(f);
	uint64_t vaddr;
	size_t left;
	const uint8_t *code = hwp__code_file_at_offset(f, off, &vaddr, &left);
	csh cs;
	cs_insn *in;
	int rc;

	if (!code)
		return -ERANGE;
	if (mach != EM_X86_64 && mach != EM_AARCH64)
		return -ENOTSUP;
	if (cs_open(mach == EM_X86_64 ? CS_ARCH_X86 : CS_ARCH_ARM64, mach == EM_X86_64 ? CS_MODE_64 : CS_MODE_ARM,
		    &cs) != CS_ERR_OK)
		return -ENOMEM;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (cs_disasm(cs, code, left < 16 ? left : 16, vaddr, 1, &in) != 1) {
		cs_close(&cs);
		return -EILSEQ;
	}
	rc = mach == EM_X86_64 ? decode_x86(in, op) : decode_arm64(in, op);
	cs_free(in, 1);
	cs_close(&cs);
	return rc;
#else
	(void)f;
	(void)off;
	return -ENOTSUP;
#endif
}
