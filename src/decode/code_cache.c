/* SPDX-License-Identifier: MIT */
/*
 * One table of decoded instructions per module, keyed by file offset. A
 * range walk looks each instruction up and decodes only the ones never seen,
 * so overlapping ranges (a loop body reached from many entries) share them.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

#include "decode/code_cache.h"
#include "decode/insn_starts.h"
#include "hwprof/hwprof.h"
#include "symbolize/symbolizer_internal.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

enum mod_state { MOD_NEW, MOD_OK, MOD_FAILED };

struct mod {
	enum mod_state state;
	int err; /* when FAILED */
	struct hwp__code_file *file;
	const char *path;
#ifdef HAVE_CAPSTONE
	csh cs;
	cs_insn *ci;
#endif
	struct hwp__insn *insns;
	size_t nr, cap;
	struct hwp_hashmap map;
};

struct hwp__code_cache {
	struct hwp_symbolizer *sym;
	struct mod *mods;
	size_t n_mods;
	size_t total;
};

static const char *const class_names[HWP_INSN_CLASS_NR] = {
	[HWP_INSN_OTHER] = "other",     [HWP_INSN_COND] = "cond",
	[HWP_INSN_JUMP] = "jump",       [HWP_INSN_IND_JUMP] = "ind_jump",
	[HWP_INSN_CALL] = "call",       [HWP_INSN_IND_CALL] = "ind_call",
	[HWP_INSN_RET] = "ret",         [HWP_INSN_SYSCALL] = "syscall",
	[HWP_INSN_BAD] = "bad",
};

const char *hwp__insn_class_name(unsigned cls)
{
	return cls < HWP_INSN_CLASS_NR ? class_names[cls] : "?";
}

struct hwp__code_cache *hwp__code_cache_new(struct hwp_symbolizer *s)
{
	struct hwp__code_cache *c = calloc(1, sizeof(*c));

	if (!c) {
		hwp__set_error(ENOMEM, "out of memory making the instruction cache");
		return NULL;
	}
	c->sym = s;
	return c;
}

static void mod_free(struct mod *m)
{
#ifdef HAVE_CAPSTONE
	if (m->ci)
		cs_free(m->ci, 1);
	if (m->cs)
		cs_close(&m->cs);
#endif
	hwp__code_file_close(m->file);
	free(m->insns);
	hwp__hashmap_free(&m->map);
}

void hwp__code_cache_delete(struct hwp__code_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_mods; i++)
		mod_free(&c->mods[i]);
	free(c->mods);
	free(c);
}

size_t hwp__code_cache_size(const struct hwp__code_cache *c)
{
	return c->total;
}

/* Opens MODULE's file and a decoder for its machine, once; later calls
   return the first outcome (the error message is set again each time). */
static int mod_get(struct hwp__code_cache *c, int module, struct mod **out)
{
	if (module < 0)
		return hwp__set_error(ENOENT, "no module for the address");
	if ((size_t)module >= c->n_mods) {
		size_t n = (size_t)module + 8;
		struct mod *m = realloc(c->mods, n * sizeof(*m));

		if (!m)
			return hwp__set_error(ENOMEM, "out of memory in the instruction cache");
		memset(m + c->n_mods, 0, (n - c->n_mods) * sizeof(*m));
		c->mods = m;
		c->n_mods = n;
	}
	struct mod *m = &c->mods[module];
	*out = m;
	if (m->state == MOD_OK)
		return 0;
	if (m->state == MOD_FAILED)
		goto failed;
	m->state = MOD_FAILED;
	/* the binary, or JIT-compiled code's bytes (no file: named by its module) */
	m->path = hwp_symbolizer__module_file(c->sym, module);
	m->file = hwp__symbolizer_open_code(c->sym, module);
	if (m->file && !m->path)
		m->path = hwp_symbolizer__module_name(c->sym, module);
	if (!m->path) {
		m->err = -ENOENT;
		return -ENOENT; /* the symbolizer said why */
	}
	if (!m->file) {
		m->err = -ENOENT;
		goto failed;
	}
#ifdef HAVE_CAPSTONE
	unsigned mach = hwp__code_file_machine(m->file);
	cs_err e;

	if (mach == EM_X86_64)
		e = cs_open(CS_ARCH_X86, CS_MODE_64, &m->cs);
	else if (mach == EM_AARCH64)
		e = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &m->cs);
	else {
		m->err = -ENOTSUP;
		goto failed;
	}
	if (e != CS_ERR_OK || cs_option(m->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    !(m->ci = cs_malloc(m->cs))) {
		m->err = -ENOMEM;
		goto failed;
	}
	m->state = MOD_OK;
	return 0;
#else
	m->err = -ENOTSUP;
#endif
failed:
	switch (m->err) {
	case -ENOENT:
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", m->path ? m->path : "?");
	case -ENOTSUP:
#ifdef HAVE_CAPSTONE
		return hwp__set_error(ENOTSUP, "%s: instructions of this machine are not decoded (x86-64 and AArch64 are)",
				      m->path);
#else
		return hwp__set_error(ENOTSUP, "%s: built without Capstone (libcapstone-dev): instructions are not decoded",
				      m->path ? m->path : "?");
#endif
	default:
		return hwp__set_error(ENOMEM, "out of memory opening the decoder for %s", m->path ? m->path : "?");
	}
}

#ifdef HAVE_CAPSTONE
static bool in_group(const cs_insn *ci, uint8_t g)
{
	for (uint8_t i = 0; i < ci->detail->groups_count; i++)
		if (ci->detail->groups[i] == g)
			return true;
	return false;
}

/* The class of an x86-64 instruction, and its immediate target (*IMM). */
static unsigned x86_class(const cs_insn *ci, uint64_t *imm, bool *has_imm)
{
	const cs_x86 *x = &ci->detail->x86;
	bool direct = x->op_count >= 1 && x->operands[0].type == X86_OP_IMM;

	*has_imm = false;
	switch (ci->id) {
	case X86_INS_JMP:
		*has_imm = direct;
		*imm = direct ? (uint64_t)x->operands[0].imm : 0;
		return direct ? HWP_INSN_JUMP : HWP_INSN_IND_JUMP;
	case X86_INS_CALL:
		*has_imm = direct;
		*imm = direct ? (uint64_t)x->operands[0].imm : 0;
		return direct ? HWP_INSN_CALL : HWP_INSN_IND_CALL;
	case X86_INS_RET:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
		return HWP_INSN_RET;
	case X86_INS_LJMP:
	case X86_INS_LCALL:
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_SYSEXIT:
	case X86_INS_SYSRET:
	case X86_INS_INT:
	case X86_INS_INT1:
	case X86_INS_INT3:
	case X86_INS_INTO:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
		return HWP_INSN_SYSCALL;
	default:
		break;
	}
	/* jcc, jrcxz/jecxz, loop/loope/loopne: the jump group, relative */
	if (in_group(ci, CS_GRP_JUMP)) {
		*has_imm = direct;
		*imm = direct ? (uint64_t)x->operands[0].imm : 0;
		return HWP_INSN_COND;
	}
	return HWP_INSN_OTHER;
}

/* The same for AArch64: the last immediate operand is a branch's target
   (cbz x0, L; tbz w1, #3, L). */
static unsigned a64_class(const cs_insn *ci, uint64_t *imm, bool *has_imm)
{
	const cs_arm64 *a = &ci->detail->arm64;

	*has_imm = false;
	for (int i = a->op_count - 1; i >= 0; i--)
		if (a->operands[i].type == ARM64_OP_IMM) {
			*imm = (uint64_t)a->operands[i].imm;
			*has_imm = true;
			break;
		}
	switch (ci->id) {
	case ARM64_INS_B:
		return a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL && a->cc != ARM64_CC_NV
			       ? HWP_INSN_COND : HWP_INSN_JUMP;
	case ARM64_INS_CBZ:
	case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ:
	case ARM64_INS_TBNZ:
		return HWP_INSN_COND;
	case ARM64_INS_BL:
		return HWP_INSN_CALL;
	case ARM64_INS_BR:
		*has_imm = false;
		return HWP_INSN_IND_JUMP;
	case ARM64_INS_BLR:
		*has_imm = false;
		return HWP_INSN_IND_CALL;
	case ARM64_INS_RET:
		*has_imm = false;
		return HWP_INSN_RET;
	case ARM64_INS_SVC:
	case ARM64_INS_HVC:
	case ARM64_INS_SMC:
	case ARM64_INS_ERET:
	case ARM64_INS_BRK:
		*has_imm = false;
		return HWP_INSN_SYSCALL;
	default:
		*has_imm = false;
		return HWP_INSN_OTHER;
	}
}
#endif

/* Decodes the instruction at OFF into *OUT. 0, -EILSEQ (a HWP_INSN_BAD
   one), or -ERANGE when OFF is in no executable segment. */
static int decode(struct mod *m, uint64_t off, struct hwp__insn *out)
{
	uint64_t vaddr;
	size_t left;
	const uint8_t *p = hwp__code_file_at_offset(m->file, off, &vaddr, &left);
	bool a64 = hwp__code_file_machine(m->file) == EM_AARCH64;

	if (!p)
		return -ERANGE;
	memset(out, 0, sizeof(*out));
	out->offset = off;
	out->cls = HWP_INSN_BAD;
	out->len = a64 ? 4 : 1;
#ifdef HAVE_CAPSTONE
	size_t n = left < 16 ? left : 16;
	uint64_t addr = vaddr, imm = 0;
	bool has_imm = false;

	if ((a64 && (off & 3)) || !cs_disasm_iter(m->cs, &p, &n, &addr, m->ci))
		return -EILSEQ;
	out->len = (uint8_t)m->ci->size;
	out->cls = (uint8_t)(a64 ? a64_class(m->ci, &imm, &has_imm) : x86_class(m->ci, &imm, &has_imm));
	if (has_imm && hwp__code_file_vaddr_to_offset(m->file, imm, &out->target) == 0)
		out->has_target = true;
	return 0;
#else
	(void)vaddr;
	(void)left;
	return -EILSEQ;
#endif
}

/* The cached instruction at OFF, decoded on first sight. NULL with *ERR. */
static const struct hwp__insn *insn_at(struct hwp__code_cache *c, struct mod *m, uint64_t off, int *err)
{
	uint64_t h = hwp__hash64(off);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&m->map, h);
	uint32_t i;
	struct hwp__insn d;

	while (hwp__hashmap_next(&p, &i))
		if (m->insns[i].offset == off) {
			*err = m->insns[i].cls == HWP_INSN_BAD ? -EILSEQ : 0;
			return &m->insns[i];
		}
	*err = decode(m, off, &d);
	if (*err == -ERANGE)
		return NULL;
	struct hwp__insn *row = HWP_VEC_PUSH(m->insns, m->nr, m->cap);
	if (!row || hwp__hashmap_add(&m->map, h, m->nr - 1) < 0) {
		if (row)
			m->nr--;
		*err = -ENOMEM;
		return NULL;
	}
	*row = d;
	c->total++;
	return row;
}

int hwp__code_cache_range(struct hwp__code_cache *c, int module, uint64_t start, uint64_t end,
			  hwp__insn_fn fn, void *ctx)
{
	struct mod *m;
	int err = mod_get(c, module, &m);

	if (err)
		return err;
	if (end < start)
		return -EILSEQ;
	for (uint64_t at = start;;) {
		const struct hwp__insn *in = insn_at(c, m, at, &err);

		if (!in) {
			if (err == -ENOMEM)
				return hwp__set_error(ENOMEM, "out of memory decoding %s", m->path);
			return hwp__set_error(ERANGE, "%s: file offset 0x%" PRIx64 " is not in an executable segment",
					      m->path, at);
		}
		/* copied: FN may decode more, moving the array */
		struct hwp__insn copy = *in;
		int r = fn ? fn(ctx, &copy) : 0;

		if (r)
			return r;
		if (err)
			return err;
		if (at == end)
			return 0;
		at += copy.len;
		if (at > end)
			return -EILSEQ;
	}
}

int hwp__code_cache_insn(struct hwp__code_cache *c, int module, uint64_t offset, struct hwp__insn *out)
{
	struct mod *m;
	int err = mod_get(c, module, &m);
	const struct hwp__insn *in;

	if (err)
		return err;
	in = insn_at(c, m, offset, &err);
	if (!in) {
		if (err == -ENOMEM)
			return hwp__set_error(ENOMEM, "out of memory decoding %s", m->path);
		return hwp__set_error(ERANGE, "%s: file offset 0x%" PRIx64 " is not in an executable segment",
				      m->path, offset);
	}
	*out = *in;
	return err;
}

/* A decoder is a module of no cache whose file is the caller's. */
struct hwp__insn_decoder {
	struct mod m;
};

struct hwp__insn_decoder *hwp__insn_decoder_new(struct hwp__code_file *f)
{
	struct hwp__insn_decoder *d = calloc(1, sizeof(*d));

	if (!d) {
		hwp__set_error(ENOMEM, "out of memory opening a decoder");
		return NULL;
	}
	d->m.file = f;
#ifdef HAVE_CAPSTONE
	unsigned mach = hwp__code_file_machine(f);
	cs_err e = mach == EM_X86_64	? cs_open(CS_ARCH_X86, CS_MODE_64, &d->m.cs)
		   : mach == EM_AARCH64 ? cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->m.cs)
					: CS_ERR_ARCH;

	if (e == CS_ERR_OK && cs_option(d->m.cs, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK &&
	    (d->m.ci = cs_malloc(d->m.cs)))
		return d;
	if (e == CS_ERR_OK)
		hwp__set_error(ENOMEM, "out of memory opening a decoder");
	else
		hwp__set_error(ENOTSUP, "instructions of this machine are not decoded (x86-64 and AArch64 are)");
#else
	hwp__set_error(ENOTSUP, "built without Capstone (libcapstone-dev): instructions are not decoded");
#endif
	d->m.file = NULL;
	mod_free(&d->m);
	free(d);
	return NULL;
}

void hwp__insn_decoder_delete(struct hwp__insn_decoder *d)
{
	if (!d)
		return;
	d->m.file = NULL; /* the caller's */
	mod_free(&d->m);
	free(d);
}

int hwp__insn_decoder_at(struct hwp__insn_decoder *d, uint64_t off, struct hwp__insn *out)
{
	return decode(&d->m, off, out);
}

int hwp__code_cache_module_ok(struct hwp__code_cache *c, int module)
{
	struct mod *m;

	return mod_get(c, module, &m);
}
