/* SPDX-License-Identifier: MIT */
/*
 * A small x86-64 decoder that only tells control-flow instructions apart.
 *
 * Why not Capstone: the plugin classifies one instruction per translated
 * block, QEMU already gives its length, and only prefixes + opcode (+ the
 * ModRM reg field for group 5) decide the kind; the displacement of a
 * relative branch is always the instruction's last 1, 2 or 4 bytes. That is
 * ~60 lines with no dependency, versus initialising a Capstone handle inside
 * QEMU for every translation.
 */
#include "x86_branch.h"

#include "emu_raw.h"

static int64_t rel_at_end(const uint8_t *p, size_t n, size_t opcode_end)
{
	size_t w = n - opcode_end; /* displacement bytes */

	if (w >= 4)
		return (int32_t)((uint32_t)p[n - 4] | (uint32_t)p[n - 3] << 8 |
				 (uint32_t)p[n - 2] << 16 | (uint32_t)p[n - 1] << 24);
	if (w >= 2)
		return (int16_t)((uint16_t)p[n - 2] | (uint16_t)p[n - 1] << 8);
	if (w == 1)
		return (int8_t)p[n - 1];
	return 0;
}

unsigned hwp__emu_classify(const uint8_t *p, size_t n, uint64_t pc, uint64_t *target)
{
	size_t i = 0;
	int rep = 0;
	uint8_t b;

	*target = 0;
	for (; i < n; i++) {
		b = p[i];
		if (b == 0x66 || b == 0x67 || b == 0x2e || b == 0x3e || b == 0x26 || b == 0x36 ||
		    b == 0x64 || b == 0x65 || b == 0xf0)
			continue;
		if (b == 0xf2 || b == 0xf3) {
			rep = 1;
			continue;
		}
		if (b >= 0x40 && b <= 0x4f) /* REX */
			continue;
		break;
	}
	if (i >= n)
		return HWP_EMU_K_NONE;
	b = p[i];
	if ((b >= 0x70 && b <= 0x7f) || (b >= 0xe0 && b <= 0xe3)) {
		*target = pc + n + (uint64_t)rel_at_end(p, n, i + 1);
		return HWP_EMU_K_COND;
	}
	switch (b) {
	case 0xeb:
	case 0xe9:
		*target = pc + n + (uint64_t)rel_at_end(p, n, i + 1);
		return HWP_EMU_K_JMP;
	case 0xe8:
		*target = pc + n + (uint64_t)rel_at_end(p, n, i + 1);
		return HWP_EMU_K_CALL;
	case 0xc3:
	case 0xc2:
		return HWP_EMU_K_RET;
	case 0xca:
	case 0xcb:
	case 0xcf:
		return HWP_EMU_K_FAR;
	case 0xcc:
	case 0xcd:
	case 0xce:
		return HWP_EMU_K_TRAP;
	case 0xff:
		if (i + 1 < n) {
			unsigned reg = (p[i + 1] >> 3) & 7;

			if (reg == 2 || reg == 3)
				return HWP_EMU_K_ICALL;
			if (reg == 4 || reg == 5)
				return HWP_EMU_K_IJMP;
		}
		return HWP_EMU_K_NONE;
	case 0x0f:
		if (i + 1 >= n)
			return HWP_EMU_K_NONE;
		b = p[i + 1];
		if (b >= 0x80 && b <= 0x8f) {
			*target = pc + n + (uint64_t)rel_at_end(p, n, i + 2);
			return HWP_EMU_K_COND;
		}
		if (b == 0x05 || b == 0x34)
			return HWP_EMU_K_SYSCALL;
		if (b == 0x07 || b == 0x35)
			return HWP_EMU_K_FAR;
		return HWP_EMU_K_NONE;
	case 0xa4: case 0xa5: case 0xa6: case 0xa7:
	case 0xaa: case 0xab: case 0xac: case 0xad: case 0xae: case 0xaf:
	case 0x6c: case 0x6d: case 0x6e: case 0x6f:
		return rep ? HWP_EMU_K_REP : HWP_EMU_K_NONE;
	default:
		return HWP_EMU_K_NONE;
	}
}
