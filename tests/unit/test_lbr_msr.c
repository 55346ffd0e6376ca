/* Intel LBR MSR decoder: every format, with hand-computed values. */
#include <errno.h>

#include "hwprof/lbr_msr.h"
#include "testlib.h"

static struct hwp_branch_entry dec(unsigned fmt, unsigned bits, uint64_t from, uint64_t to,
				   uint64_t info)
{
	struct hwp_lbr_msrs m = { from, to, info };
	struct hwp_branch_entry e;

	memset(&e, 0xee, sizeof(e));
	int rc = hwp_lbr__decode(fmt, bits, &m, &e);
	CHECK(rc == 0);
	return e;
}

#define CHECK_FLAGS(e, mis, pred, tx, ab, cyc, ty)                                    \
	do {                                                                          \
		CHECK_EQ_U64((e).mispred, mis);                                       \
		CHECK_EQ_U64((e).predicted, pred);                                    \
		CHECK_EQ_U64((e).in_tx, tx);                                          \
		CHECK_EQ_U64((e).abort, ab);                                          \
		CHECK_EQ_U64((e).cycles, cyc);                                        \
		CHECK_EQ_U64((e).type, ty);                                           \
	} while (0)

static void test_names(void)
{
	char b[8];

	CHECK(strcmp(hwp_lbr_format__bits(0, b), "000000b") == 0);
	CHECK(strcmp(hwp_lbr_format__bits(5, b), "000101b") == 0);
	CHECK(strcmp(hwp_lbr_format__bits(0x3f, b), "111111b") == 0);
	CHECK(strcmp(hwp_lbr_format__name(0), "32-bit") == 0);
	CHECK(strcmp(hwp_lbr_format__name(1), "64-bit LIP") == 0);
	CHECK(strcmp(hwp_lbr_format__name(2), "64-bit EIP") == 0);
	CHECK(strcmp(hwp_lbr_format__name(3), "64-bit EIP with flags") == 0);
	CHECK(strcmp(hwp_lbr_format__name(4), "64-bit EIP+flags+TSX") == 0);
	CHECK(strcmp(hwp_lbr_format__name(5), "64-bit EIP+flags+TSX+LBR_INFO") == 0);
	CHECK(strcmp(hwp_lbr_format__name(6), "64-bit LIP+flags+cycles") == 0);
	CHECK(strcmp(hwp_lbr_format__name(7), "64-bit LIP+flags+LBR_INFO") == 0);
	CHECK(strcmp(hwp_lbr_format__name(0x3f), "architectural LBR") == 0);
	CHECK(hwp_lbr_format__name(8) == NULL);
	CHECK(!hwp_lbr_format__known(0x10));
	/* IA32_PERF_CAPABILITIES of a Skylake server: 0x33c5 -> format 5 */
	CHECK_EQ_U64(hwp_perf_capabilities__lbr_format(0x33c5), 5);
	CHECK_EQ_U64(hwp_perf_capabilities__lbr_format(0xf000003f), 0x3f);
	CHECK(hwp_lbr_format__fields(5) & HWP_LBR_F_INFO_MSR);
	CHECK(!(hwp_lbr_format__fields(3) & HWP_LBR_F_TSX));
	CHECK(hwp_lbr_format__fields(0) & HWP_LBR_F_ONE_MSR);
}

static void test_fmt_32(void)
{
	/* one MSR: FROM in 31:0, TO in 63:32 */
	struct hwp_branch_entry e = dec(HWP_LBR_FMT_32, 0, 0x0804900008048f10ULL, 0xdead, 0xbeef);

	CHECK_EQ_U64(e.from, 0x08048f10);
	CHECK_EQ_U64(e.to, 0x08049000);
	CHECK_FLAGS(e, 0, 0, 0, 0, 0, 0);
}

static void test_fmt_lip_eip(void)
{
	struct hwp_branch_entry e = dec(HWP_LBR_FMT_LIP, 48, 0x00007f0000401000ULL,
					0xffffffff81000000ULL, 0xffff);

	CHECK_EQ_U64(e.from, 0x00007f0000401000ULL);
	CHECK_EQ_U64(e.to, 0xffffffff81000000ULL);
	CHECK_FLAGS(e, 0, 0, 0, 0, 0, 0); /* INFO ignored: this format has none */
	/* bit 47 set, 63:48 clear: sign-extended from bit 47 */
	e = dec(HWP_LBR_FMT_LIP, 48, 0x0000800000000000ULL, 0x0000ffff81000000ULL, 0);
	CHECK_EQ_U64(e.from, 0xffff800000000000ULL);
	CHECK_EQ_U64(e.to, 0xffffffff81000000ULL);
	/* 57-bit addresses (5-level paging): bit 56 is the sign */
	e = dec(HWP_LBR_FMT_LIP, 57, 0x0100000000000000ULL, 0x00ff800000001000ULL, 0);
	CHECK_EQ_U64(e.from, 0xff00000000000000ULL);
	CHECK_EQ_U64(e.to, 0x00ff800000001000ULL);
	e = dec(HWP_LBR_FMT_LIP, 48, 0x0100000000000000ULL, 0, 0);
	CHECK_EQ_U64(e.from, 0); /* the same bits read as 48-bit: above the width */
	e = dec(HWP_LBR_FMT_EIP, 0, 0x401136, 0x401020, 0);
	CHECK_EQ_U64(e.from, 0x401136);
	CHECK_EQ_U64(e.to, 0x401020);
	CHECK_FLAGS(e, 0, 0, 0, 0, 0, 0);
}

static void test_fmt_eip_flags(void)
{
	/* bit 63 of FROM: mispredicted */
	struct hwp_branch_entry e = dec(HWP_LBR_FMT_EIP_FLAGS, 48, 0x8000000000401136ULL,
					0x401150, 0);

	CHECK_EQ_U64(e.from, 0x401136);
	CHECK_EQ_U64(e.to, 0x401150);
	CHECK_FLAGS(e, 1, 0, 0, 0, 0, 0);
	/* predicted kernel branch: bit 63 clear, 62:48 the sign extension */
	e = dec(HWP_LBR_FMT_EIP_FLAGS, 48, 0x7fffffff81000010ULL, 0xffffffff81000400ULL, 0);
	CHECK_EQ_U64(e.from, 0xffffffff81000010ULL);
	CHECK_EQ_U64(e.to, 0xffffffff81000400ULL);
	CHECK_FLAGS(e, 0, 1, 0, 0, 0, 0);
	/* mispredicted kernel branch */
	e = dec(HWP_LBR_FMT_EIP_FLAGS, 48, 0xffffffff81000010ULL, 0xffffffff81000400ULL, 0);
	CHECK_EQ_U64(e.from, 0xffffffff81000010ULL);
	CHECK_FLAGS(e, 1, 0, 0, 0, 0, 0);
}

static void test_fmt_eip_flags2(void)
{
	/* 63 MISPRED, 62 IN_TX, 61 TSX_ABORT */
	struct hwp_branch_entry e = dec(HWP_LBR_FMT_EIP_FLAGS2, 48, 0xe000000000401136ULL,
					0x401150, 0);

	CHECK_EQ_U64(e.from, 0x401136);
	CHECK_FLAGS(e, 1, 0, 1, 1, 0, 0);
	/* in_tx only, kernel address: 0x5fff... -> flags 010, address 0x1fff...f0010 */
	e = dec(HWP_LBR_FMT_EIP_FLAGS2, 48, 0x5fffffff81000010ULL, 0xffffffff81000400ULL, 0);
	CHECK_EQ_U64(e.from, 0xffffffff81000010ULL);
	CHECK_FLAGS(e, 0, 1, 1, 0, 0, 0);
	/* abort only */
	e = dec(HWP_LBR_FMT_EIP_FLAGS2, 48, 0x2000000000401000ULL, 0x401200, 0);
	CHECK_EQ_U64(e.from, 0x401000);
	CHECK_FLAGS(e, 0, 1, 0, 1, 0, 0);
	/* 57-bit: 0x81...: mispred; 0x0100000000001000 sign-extends from bit 56 */
	e = dec(HWP_LBR_FMT_EIP_FLAGS2, 57, 0x8100000000001000ULL, 0x00000000deadbeefULL, 0);
	CHECK_EQ_U64(e.from, 0xff00000000001000ULL);
	CHECK_EQ_U64(e.to, 0xdeadbeef);
	CHECK_FLAGS(e, 1, 0, 0, 0, 0, 0);
}

static void test_fmt_info(void)
{
	/* addresses plain; INFO: 63 MISPRED, 62 IN_TX, 61 TSX_ABORT, 15:0 cycles */
	struct hwp_branch_entry e = dec(HWP_LBR_FMT_INFO, 48, 0x401136, 0x401150,
					0x8000000000000123ULL);

	CHECK_EQ_U64(e.from, 0x401136);
	CHECK_EQ_U64(e.to, 0x401150);
	CHECK_FLAGS(e, 1, 0, 0, 0, 0x123, 0);
	e = dec(HWP_LBR_FMT_INFO, 48, 0xffffffff81000010ULL, 0x401000, 0x6000000000000007ULL);
	CHECK_EQ_U64(e.from, 0xffffffff81000010ULL);
	CHECK_FLAGS(e, 0, 1, 1, 1, 7, 0);
	/* reserved bits 60:16 do not leak into cycles */
	e = dec(HWP_LBR_FMT_INFO, 48, 0x401136, 0x401150, 0x00000000ffff0002ULL);
	CHECK_FLAGS(e, 0, 1, 0, 0, 2, 0);
}

static void test_fmt_time(void)
{
	/* FROM 63 MISPRED; TO 63:48 cycles, 47:0 address */
	struct hwp_branch_entry e = dec(HWP_LBR_FMT_TIME, 48, 0x8000000000401136ULL,
					0x0042000000401150ULL, 0);

	CHECK_EQ_U64(e.from, 0x401136);
	CHECK_EQ_U64(e.to, 0x401150);
	CHECK_FLAGS(e, 1, 0, 0, 0, 0x42, 0);
	/* kernel target: 47:0 = 0xffff81000020 sign-extends; cycles 0x42 */
	e = dec(HWP_LBR_FMT_TIME, 57, 0x7fffffff81000010ULL, 0x0042ffff81000020ULL, 0);
	CHECK_EQ_U64(e.from, 0xffffffff81000010ULL); /* this format is 48-bit whatever asked */
	CHECK_EQ_U64(e.to, 0xffffffff81000020ULL);
	CHECK_FLAGS(e, 0, 1, 0, 0, 0x42, 0);
}

static void test_fmt_info2(void)
{
	/* INFO 63 MISPRED, 15:0 cycles; no TSX in this format: 62/61 ignored */
	struct hwp_branch_entry e = dec(HWP_LBR_FMT_INFO2, 48, 0x401136, 0x401150,
					0x800000000000ffffULL);

	CHECK_FLAGS(e, 1, 0, 0, 0, 0xffff, 0);
	e = dec(HWP_LBR_FMT_INFO2, 48, 0x401136, 0x401150, 0x6000000000000005ULL);
	CHECK_FLAGS(e, 0, 1, 0, 0, 5, 0);
}

static void test_fmt_arch(void)
{
	/* 63 MISPRED | 60 CYC_CNT_VALID | BR_TYPE 0100b (NEAR_REL_CALL) | cycles 0x10 */
	struct hwp_branch_entry e = dec(HWP_LBR_FMT_ARCH, 48, 0x401136, 0x401200,
					0x9400000000000010ULL);

	CHECK_EQ_U64(e.from, 0x401136);
	CHECK_EQ_U64(e.to, 0x401200);
	CHECK_FLAGS(e, 1, 0, 0, 0, 0x10, 4 /* PERF_BR_CALL */);
	/* CYC_CNT_VALID clear: cycles not reported; BR_TYPE 0101b NEAR_RET */
	e = dec(HWP_LBR_FMT_ARCH, 48, 0x401136, 0x401200, 0x0500000000000010ULL);
	CHECK_FLAGS(e, 0, 1, 0, 0, 0, 6 /* PERF_BR_RET */);
	/* IN_TX + TSX_ABORT, BR_TYPE 0000b JCC, 1000b OTHER_BRANCH */
	e = dec(HWP_LBR_FMT_ARCH, 48, 0x401136, 0x401200, 0x6000000000000000ULL);
	CHECK_FLAGS(e, 0, 1, 1, 1, 0, 1 /* PERF_BR_COND */);
	e = dec(HWP_LBR_FMT_ARCH, 48, 0x401136, 0x401200, 0x1800000000000003ULL);
	CHECK_FLAGS(e, 0, 1, 0, 0, 3, 0);
	CHECK_EQ_U64(hwp_arch_lbr_br_type__perf(1), 3); /* NEAR_IND_JMP -> PERF_BR_IND */
	CHECK_EQ_U64(hwp_arch_lbr_br_type__perf(2), 2); /* NEAR_REL_JMP -> PERF_BR_UNCOND */
	CHECK_EQ_U64(hwp_arch_lbr_br_type__perf(3), 5); /* NEAR_IND_CALL -> PERF_BR_IND_CALL */
	CHECK_EQ_U64(hwp_arch_lbr_br_type__perf(6), 0); /* reserved */
	/* 57-bit kernel address */
	e = dec(HWP_LBR_FMT_ARCH, 57, 0xff00000000001000ULL, 0x01ff000000002000ULL, 0);
	CHECK_EQ_U64(e.from, 0xff00000000001000ULL);
	CHECK_EQ_U64(e.to, 0xffff000000002000ULL);
}

static void test_errors(void)
{
	struct hwp_lbr_msrs m = { 1, 2, 3 };
	struct hwp_branch_entry e;

	CHECK(hwp_lbr__decode(0x08, 48, &m, &e) == -EINVAL);
	CHECK(hwp_lbr__decode(0x1f, 48, &m, &e) == -EINVAL);
	CHECK(hwp_lbr__decode(HWP_LBR_FMT_LIP, 50, &m, &e) == -EINVAL);
	CHECK(hwp_lbr__decode(HWP_LBR_FMT_LIP, 48, NULL, &e) == -EINVAL);
}

int main(void)
{
	RUN(test_names);
	RUN(test_fmt_32);
	RUN(test_fmt_lip_eip);
	RUN(test_fmt_eip_flags);
	RUN(test_fmt_eip_flags2);
	RUN(test_fmt_info);
	RUN(test_fmt_time);
	RUN(test_fmt_info2);
	RUN(test_fmt_arch);
	RUN(test_errors);
	TL_EXIT();
}
