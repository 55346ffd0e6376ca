/* Unit tests for llvm-profgen's virtual unwinder (src/export/cs_unwind.{c,h}):
   recursion compression, and one sample unwound on a made-up binary, with
   the contexts worked out by hand from llvm-profgen's rules. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/code_cache.h"
#include "export/cs_binary.h"
#include "export/cs_unwind.h"
#include "testlib.h"

static size_t compress_str(const char *in, char *out)
{
	uint64_t v[64];
	size_t n = strlen(in);

	for (size_t i = 0; i < n; i++)
		v[i] = (uint64_t)in[i];
	n = hwp__cs_compress(v, n);
	for (size_t i = 0; i < n; i++)
		out[i] = (char)v[i];
	out[n] = 0;
	return n;
}

static void test_compress(void)
{
	char out[64];

	compress_str("aabb", out);
	CHECK(!strcmp(out, "ab"));
	compress_str("abcbc", out); /* a repeated pair */
	CHECK(!strcmp(out, "abc"));
	compress_str("abababx", out);
	CHECK(!strcmp(out, "abx"));
	compress_str("abcd", out); /* nothing repeats */
	CHECK(!strcmp(out, "abcd"));
	CHECK_EQ_U64(compress_str("", out), 0);
	compress_str("aaaa", out);
	CHECK(!strcmp(out, "a"));
}

/*
 * main: 0x100 nop; 0x104 call foo; 0x109 nop; 0x10c ret
 * foo:  0x200 nop; 0x204 jcc;      0x206 nop; 0x208 ret
 * One sample (seen twice) in foo called from main, its branch stack
 * newest first: the jcc taken, the call into foo, main entered from outside.
 */
static void test_unwind_call(void)
{
	uint64_t addr[] = { 0x100, 0x104, 0x109, 0x10c, 0x200, 0x204, 0x206, 0x208 };
	uint8_t cls[] = { HWP_INSN_OTHER, HWP_INSN_CALL, HWP_INSN_OTHER, HWP_INSN_RET,
			  HWP_INSN_OTHER, HWP_INSN_COND, HWP_INSN_OTHER, HWP_INSN_RET };
	uint64_t uncond[] = { 0x104, 0x10c, 0x208 };
	struct hwp__cs_binary b = { .addr = addr, .cls = cls, .n = 8, .uncond = uncond, .nuncond = 3 };
	struct hwp__cs_contexts cs = { 0 };
	struct hwp__cs_unwinder *u = hwp__cs_unwinder_new(&b, &cs);
	uint64_t stack[] = { 0x206, 0x104 };
	struct hwp__cs_lbr lbr[] = { { 0x204, 0x206 }, { 0x104, 0x200 }, { HWP__CS_EXTERNAL, 0x100 } };
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	CHECK(u && fp);
	if (!u || !fp)
		return;
	CHECK_EQ_U64(hwp__cs_unwind(u, stack, 2, lbr, 3, 2), 0);
	hwp__cs_contexts_finish(&cs);
	CHECK_EQ_U64(hwp__cs_contexts_write(&cs, 0, fp), 0);
	fclose(fp);
	/* main's range and the call into foo under no call site; foo's range
	   and branch under main's call site; the entry from outside at the root */
	CHECK(!strcmp(text, "[]\n  1\n  100-104:2\n  2\n  1->100:2\n  104->200:2\n"
			    "[0x104]\n  1\n  200-204:2\n  1\n  204->206:2\n"));
	if (strcmp(text, "[]\n  1\n  100-104:2\n  2\n  1->100:2\n  104->200:2\n[0x104]\n  1\n  200-204:2\n  1\n  204->206:2\n"))
		fprintf(stderr, "got:\n%s", text);
	free(text);
	hwp__cs_unwinder_free(u);
	hwp__cs_contexts_free(&cs);
}

/* A range across a return is no fall-through: the rest of the stack
   counts without context. */
static void test_unwind_invalid(void)
{
	uint64_t addr[] = { 0x100, 0x104, 0x109, 0x10c, 0x200, 0x204, 0x206, 0x208 };
	uint8_t cls[] = { HWP_INSN_OTHER, HWP_INSN_CALL, HWP_INSN_OTHER, HWP_INSN_RET,
			  HWP_INSN_OTHER, HWP_INSN_COND, HWP_INSN_OTHER, HWP_INSN_RET };
	uint64_t uncond[] = { 0x104, 0x10c, 0x208 };
	struct hwp__cs_binary b = { .addr = addr, .cls = cls, .n = 8, .uncond = uncond, .nuncond = 3 };
	struct hwp__cs_contexts cs = { 0 };
	struct hwp__cs_unwinder *u = hwp__cs_unwinder_new(&b, &cs);
	uint64_t stack[] = { 0x206, 0x104 };
	/* back in main at 0x104 after the call: the oldest entry, a return
	   to 0x109, leaves a range from 0x109 to 0x104, backwards */
	struct hwp__cs_lbr lbr[] = { { 0x204, 0x206 }, { 0x104, 0x200 }, { 0x208, 0x109 } };
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	CHECK(u && fp);
	if (!u || !fp)
		return;
	CHECK_EQ_U64(hwp__cs_unwind(u, stack, 2, lbr, 3, 1), 0);
	hwp__cs_contexts_finish(&cs);
	CHECK_EQ_U64(hwp__cs_contexts_write(&cs, 0, fp), 0);
	fclose(fp);
	/* no range for it; its branch counts under no call site */
	CHECK(!strcmp(text, "[]\n  0\n  2\n  104->200:1\n  208->109:1\n"
			    "[0x104]\n  1\n  200-204:1\n  1\n  204->206:1\n"));
	if (strcmp(text, "[]\n  0\n  2\n  104->200:1\n  208->109:1\n[0x104]\n  1\n  200-204:1\n  1\n  204->206:1\n"))
		fprintf(stderr, "got:\n%s", text);
	free(text);
	hwp__cs_unwinder_free(u);
	hwp__cs_contexts_free(&cs);
}

int main(void)
{
	RUN(test_compress);
	RUN(test_unwind_call);
	RUN(test_unwind_invalid);
	TL_EXIT();
}
