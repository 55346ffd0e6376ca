/* Unit tests for the emulation plugin's x86-64 control-flow decoder
   (src/emu/x86_branch.c, built into hwprof-emu.so, not into libhwprof: it
   is compiled into this test directly). Hand-written encodings, then every
   instruction of libc's code checked against Capstone. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "emu/x86_branch.c"
#include "testlib.h"

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

struct enc {
	const char *what;
	uint8_t bytes[16];
	unsigned len;
	unsigned kind;
	int64_t rel; /* target - (pc + len) for direct branches */
};

static const struct enc encs[] = {
	{ "jne rel8", { 0x75, 0xfe }, 2, HWP_EMU_K_COND, -2 },
	{ "jo rel8", { 0x70, 0x10 }, 2, HWP_EMU_K_COND, 16 },
	{ "jg rel32", { 0x0f, 0x8f, 0x00, 0x01, 0x00, 0x00 }, 6, HWP_EMU_K_COND, 256 },
	{ "je rel32 back", { 0x0f, 0x84, 0xf0, 0xff, 0xff, 0xff }, 6, HWP_EMU_K_COND, -16 },
	{ "bnd jne", { 0xf2, 0x75, 0x05 }, 3, HWP_EMU_K_COND, 5 },
	{ "loop", { 0xe2, 0xfc }, 2, HWP_EMU_K_COND, -4 },
	{ "jrcxz", { 0xe3, 0x02 }, 2, HWP_EMU_K_COND, 2 },
	{ "jmp rel8", { 0xeb, 0x7f }, 2, HWP_EMU_K_JMP, 127 },
	{ "jmp rel32", { 0xe9, 0x00, 0x00, 0x00, 0x80 }, 5, HWP_EMU_K_JMP, INT32_MIN },
	{ "bnd jmp rel32", { 0xf2, 0xe9, 0x10, 0x00, 0x00, 0x00 }, 6, HWP_EMU_K_JMP, 16 },
	{ "call rel32", { 0xe8, 0xfb, 0xff, 0xff, 0xff }, 5, HWP_EMU_K_CALL, -5 },
	{ "ret", { 0xc3 }, 1, HWP_EMU_K_RET, 0 },
	{ "rep ret", { 0xf3, 0xc3 }, 2, HWP_EMU_K_RET, 0 },
	{ "bnd ret", { 0xf2, 0xc3 }, 2, HWP_EMU_K_RET, 0 },
	{ "ret imm16", { 0xc2, 0x08, 0x00 }, 3, HWP_EMU_K_RET, 0 },
	{ "call *%rax", { 0xff, 0xd0 }, 2, HWP_EMU_K_ICALL, 0 },
	{ "call *0x8(%rbx)", { 0xff, 0x53, 0x08 }, 3, HWP_EMU_K_ICALL, 0 },
	{ "call *%r11", { 0x41, 0xff, 0xd3 }, 3, HWP_EMU_K_ICALL, 0 },
	{ "notrack call *%rax", { 0x3e, 0xff, 0xd0 }, 3, HWP_EMU_K_ICALL, 0 },
	{ "jmp *%rax", { 0xff, 0xe0 }, 2, HWP_EMU_K_IJMP, 0 },
	{ "notrack jmp *(%rax,%rdx,8)", { 0x3e, 0xff, 0x24, 0xd0 }, 4, HWP_EMU_K_IJMP, 0 },
	{ "jmp *GOT(%rip)", { 0xff, 0x25, 0x00, 0x10, 0x00, 0x00 }, 6, HWP_EMU_K_IJMP, 0 },
	{ "ljmp *(%rax)", { 0xff, 0x28 }, 2, HWP_EMU_K_IJMP, 0 },
	{ "lcall *(%rax)", { 0xff, 0x18 }, 2, HWP_EMU_K_ICALL, 0 },
	{ "inc (%rax) (ff /0)", { 0xff, 0x00 }, 2, HWP_EMU_K_NONE, 0 },
	{ "push (%rax) (ff /6)", { 0xff, 0x30 }, 2, HWP_EMU_K_NONE, 0 },
	{ "syscall", { 0x0f, 0x05 }, 2, HWP_EMU_K_SYSCALL, 0 },
	{ "sysenter", { 0x0f, 0x34 }, 2, HWP_EMU_K_SYSCALL, 0 },
	{ "int3", { 0xcc }, 1, HWP_EMU_K_TRAP, 0 },
	{ "int $0x80", { 0xcd, 0x80 }, 2, HWP_EMU_K_TRAP, 0 },
	{ "iretq", { 0x48, 0xcf }, 2, HWP_EMU_K_FAR, 0 },
	{ "lret", { 0xcb }, 1, HWP_EMU_K_FAR, 0 },
	{ "rep movsb", { 0xf3, 0xa4 }, 2, HWP_EMU_K_REP, 0 },
	{ "rep stos %rax", { 0xf3, 0x48, 0xab }, 3, HWP_EMU_K_REP, 0 },
	{ "repne scasb", { 0xf2, 0xae }, 2, HWP_EMU_K_REP, 0 },
	{ "movsb (no rep)", { 0xa4 }, 1, HWP_EMU_K_NONE, 0 },
	{ "mov %rsp,%rbp", { 0x48, 0x89, 0xe5 }, 3, HWP_EMU_K_NONE, 0 },
	{ "nop", { 0x90 }, 1, HWP_EMU_K_NONE, 0 },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, HWP_EMU_K_NONE, 0 },
	{ "ud2", { 0x0f, 0x0b }, 2, HWP_EMU_K_NONE, 0 },
	{ "vzeroupper (VEX)", { 0xc5, 0xf8, 0x77 }, 3, HWP_EMU_K_NONE, 0 },
	{ "cmovne", { 0x48, 0x0f, 0x45, 0xc1 }, 4, HWP_EMU_K_NONE, 0 },
	/* cut short (the first bytes QEMU 7.2 shows for a phantom instruction) */
	{ "0f alone", { 0x0f }, 1, HWP_EMU_K_NONE, 0 },
	{ "ff alone", { 0xff }, 1, HWP_EMU_K_NONE, 0 },
	{ "prefixes only", { 0x66, 0x48 }, 2, HWP_EMU_K_NONE, 0 },
};

static void test_encodings(void)
{
	const uint64_t pc = 0x401000;

	for (size_t i = 0; i < sizeof(encs) / sizeof(encs[0]); i++) {
		uint64_t target = 1;
		unsigned k = hwp__emu_classify(encs[i].bytes, encs[i].len, pc, &target);

		if (k != encs[i].kind) {
			fprintf(stderr, "%s: kind %u, want %u\n", encs[i].what, k, encs[i].kind);
			tl_case_failed = 1;
			continue;
		}
		if (k == HWP_EMU_K_COND || k == HWP_EMU_K_JMP || k == HWP_EMU_K_CALL) {
			if (target != pc + encs[i].len + (uint64_t)encs[i].rel) {
				fprintf(stderr, "%s: target %#llx\n", encs[i].what,
					(unsigned long long)target);
				tl_case_failed = 1;
			}
		} else if (target != 0) {
			fprintf(stderr, "%s: target %#llx, want 0\n", encs[i].what,
				(unsigned long long)target);
			tl_case_failed = 1;
		}
	}
}

#ifdef HAVE_CAPSTONE
/* The plugin's kind for a Capstone-decoded instruction. */
static unsigned capstone_kind(csh cs, const cs_insn *in, uint64_t *target)
{
	const cs_x86 *x = &in->detail->x86;
	bool direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
	bool rep = x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE;

	*target = direct ? (uint64_t)x->operands[0].imm : 0;
	switch (in->id) {
	case X86_INS_RET:
		return HWP_EMU_K_RET;
	case X86_INS_RETF:
	case X86_INS_RETFQ:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
	case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
		return HWP_EMU_K_FAR;
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
		return HWP_EMU_K_SYSCALL;
	case X86_INS_INT:
	case X86_INS_INT3:
	case X86_INS_INTO:
		return HWP_EMU_K_TRAP;
	case X86_INS_CALL:
		return direct ? HWP_EMU_K_CALL : HWP_EMU_K_ICALL;
	case X86_INS_LCALL:
		return HWP_EMU_K_ICALL;
	case X86_INS_JMP:
		return direct ? HWP_EMU_K_JMP : HWP_EMU_K_IJMP;
	case X86_INS_LJMP:
		return HWP_EMU_K_IJMP;
	case X86_INS_LOOP:
	case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
	case X86_INS_JCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JRCXZ:
		return HWP_EMU_K_COND;
	case X86_INS_XBEGIN:
		/* falls through unless a transaction aborts; QEMU has no RTM */
		return HWP_EMU_K_NONE;
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
	case X86_INS_INSB: case X86_INS_INSW: case X86_INS_INSD:
	case X86_INS_OUTSB: case X86_INS_OUTSW: case X86_INS_OUTSD:
		/* MOVSD/CMPSD are also SSE2 instructions (f2 0f 10 / f2 0f c2) */
		if (in->size >= 1 && in->bytes[in->size - 1] >= 0x6c && in->bytes[0] != 0x0f &&
		    !(in->size >= 2 && in->bytes[in->size - 2] == 0x0f))
			return rep ? HWP_EMU_K_REP : HWP_EMU_K_NONE;
		return HWP_EMU_K_NONE;
	default:
		if (cs_insn_group(cs, in, CS_GRP_JUMP))
			return HWP_EMU_K_COND; /* jcc, loop*, jcxz */
		return HWP_EMU_K_NONE;
	}
}

/* Every instruction in libc's executable segment, linear sweep. */
static void test_against_capstone(void)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *p;
	csh cs;
	cs_insn *in;
	uint64_t n = 0, branches = 0, bad = 0;

	if (fd < 0)
		SKIP("%s not found", path);
	if (fstat(fd, &st) < 0 || (p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
					     0)) == MAP_FAILED) {
		close(fd);
		SKIP("cannot map %s", path);
	}
	close(fd);
	CHECK(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(cs, CS_OPT_SKIPDATA, CS_OPT_ON);
	in = cs_malloc(cs);
	/* PT_LOAD with PF_X */
	uint64_t phoff, off = 0, filesz = 0;
	uint16_t phnum;

	memcpy(&phoff, p + 32, 8);
	memcpy(&phnum, p + 56, 2);
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = p + phoff + 56ull * i;
		uint32_t type, flags;

		memcpy(&type, ph, 4);
		memcpy(&flags, ph + 4, 4);
		if (type == 1 && (flags & 1)) {
			memcpy(&off, ph + 8, 8);
			memcpy(&filesz, ph + 32, 8);
			break;
		}
	}
	CHECK(filesz > 0);
	const uint8_t *code = p + off;
	size_t size = (size_t)filesz;
	uint64_t addr = off;

	while (size && cs_disasm_iter(cs, &code, &size, &addr, in)) {
		uint64_t want_t, got_t;
		unsigned want, got;

		if (in->id == X86_INS_INVALID || in->detail == NULL)
			continue; /* skipped data */
		n++;
		want = capstone_kind(cs, in, &want_t);
		got = hwp__emu_classify(in->bytes, in->size, in->address, &got_t);
		if (want != HWP_EMU_K_NONE)
			branches++;
		if (want != HWP_EMU_K_COND && want != HWP_EMU_K_JMP && want != HWP_EMU_K_CALL)
			want_t = got_t; /* an immediate, not a target */
		if (want != got || got_t != want_t) {
			if (bad < 10)
				fprintf(stderr, "%#llx %s %s: kind %u target %#llx, Capstone %u %#llx\n",
					(unsigned long long)in->address, in->mnemonic, in->op_str, got,
					(unsigned long long)got_t, want, (unsigned long long)want_t);
			bad++;
		}
	}
	printf("# %llu instructions, %llu control transfers, %llu differ\n",
	       (unsigned long long)n, (unsigned long long)branches, (unsigned long long)bad);
	CHECK(n > 100000);
	CHECK(branches > 10000);
	CHECK(bad == 0);
	cs_free(in, 1);
	cs_close(&cs);
	munmap(p, (size_t)st.st_size);
}
#else
static void test_against_capstone(void)
{
	SKIP("built without Capstone (libcapstone-dev)");
}
#endif

int main(void)
{
	RUN(test_encodings);
	RUN(test_against_capstone);
	TL_EXIT();
}
