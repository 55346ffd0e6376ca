/* SPDX-License-Identifier: MIT */
/*
 * The branch report's sort keys: names, perf's column titles, and how a
 * --sort list is read. perf 6.1 (util/sort.c, sort_dimension__add) matches
 * each token case-insensitively as a PREFIX of the keys of its tables, in
 * table order: the sample keys first, then the output-only ones, then the
 * branch-stack ones. So "sym" is perf's "symbol" (in branch mode: the
 * branch target's symbol), "symbol_f" is "symbol_from", "in" is "ins_lat"
 * (not in_tx) and "ipc" is "ipc_null". The tables below keep perf's order so
 * that every prefix resolves as it does in perf.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "util/error.h"

#define UNSUPPORTED (-1)

/* perf 6.1's keys in the order sort_dimension__add tries them: common,
   hpp (output-only), branch stack. Memory keys come after and are refused
   in branch mode, as unknown keys are. */
static const struct {
	const char *name;
	int key; /* enum hwp_branch_key_id, or UNSUPPORTED */
} perf_keys[] = {
	{ "pid", UNSUPPORTED },
	{ "comm", UNSUPPORTED },
	{ "dso", HWP_KEY_DSO },
	{ "symbol", HWP_KEY_SYMBOL },
	{ "parent", UNSUPPORTED },
	{ "cpu", UNSUPPORTED },
	{ "socket", UNSUPPORTED },
	{ "srcline", HWP_KEY_SRCLINE },
	{ "srcfile", UNSUPPORTED },
	{ "local_weight", UNSUPPORTED },
	{ "weight", UNSUPPORTED },
	{ "transaction", UNSUPPORTED },
	{ "trace", UNSUPPORTED },
	{ "symbol_size", UNSUPPORTED },
	{ "dso_size", UNSUPPORTED },
	{ "cgroup", UNSUPPORTED },
	{ "cgroup_id", UNSUPPORTED },
	{ "ipc_null", UNSUPPORTED },
	{ "time", UNSUPPORTED },
	{ "code_page_size", UNSUPPORTED },
	{ "local_ins_lat", UNSUPPORTED },
	{ "ins_lat", UNSUPPORTED },
	{ "local_p_stage_cyc", UNSUPPORTED },
	{ "p_stage_cyc", UNSUPPORTED },
	{ "addr", UNSUPPORTED },
	{ "overhead", UNSUPPORTED },
	{ "overhead_sys", UNSUPPORTED },
	{ "overhead_us", UNSUPPORTED },
	{ "overhead_guest_sys", UNSUPPORTED },
	{ "overhead_guest_us", UNSUPPORTED },
	{ "overhead_children", UNSUPPORTED },
	{ "sample", UNSUPPORTED },
	{ "period", UNSUPPORTED },
	{ "dso_from", HWP_KEY_DSO_FROM },
	{ "dso_to", HWP_KEY_DSO_TO },
	{ "symbol_from", HWP_KEY_SYMBOL_FROM },
	{ "symbol_to", HWP_KEY_SYMBOL_TO },
	{ "mispredict", HWP_KEY_MISPREDICT },
	{ "in_tx", HWP_KEY_IN_TX },
	{ "abort", HWP_KEY_ABORT },
	{ "cycles", HWP_KEY_CYCLES },
	{ "srcline_from", HWP_KEY_SRCLINE_FROM },
	{ "srcline_to", HWP_KEY_SRCLINE_TO },
	{ "ipc_lbr", HWP_KEY_IPC_LBR },
	{ "addr_from", HWP_KEY_ADDR_FROM },
	{ "addr_to", HWP_KEY_ADDR_TO },
	/* hwprof's own, tried after every perf key */
	{ "type", HWP_KEY_TYPE },
};

static const struct {
	const char *name, *title;
} key_info[HWP_KEY_COUNT] = {
	[HWP_KEY_SYMBOL_FROM] = { "symbol_from", "Source Symbol" },
	[HWP_KEY_SYMBOL_TO] = { "symbol_to", "Target Symbol" },
	[HWP_KEY_SRCLINE_FROM] = { "srcline_from", "From Source:Line" },
	[HWP_KEY_SRCLINE_TO] = { "srcline_to", "To Source:Line" },
	[HWP_KEY_DSO_FROM] = { "dso_from", "Source Shared Object" },
	[HWP_KEY_DSO_TO] = { "dso_to", "Target Shared Object" },
	[HWP_KEY_ADDR_FROM] = { "addr_from", "Source Address" },
	[HWP_KEY_ADDR_TO] = { "addr_to", "Target Address" },
	[HWP_KEY_TYPE] = { "type", "Branch Type" },
	[HWP_KEY_MISPREDICT] = { "mispredict", "Branch Mispredicted" },
	[HWP_KEY_CYCLES] = { "cycles", "Basic Block Cycles" },
	[HWP_KEY_IN_TX] = { "in_tx", "Branch in transaction" },
	[HWP_KEY_ABORT] = { "abort", "Transaction abort" },
	[HWP_KEY_SYMBOL] = { "symbol", "Symbol" },
	[HWP_KEY_DSO] = { "dso", "Shared Object" },
	[HWP_KEY_SRCLINE] = { "srcline", "Source:Line" },
	[HWP_KEY_IPC_LBR] = { "ipc_lbr", "IPC   [IPC Coverage]" },
};

const char *hwp_branch_key__name(enum hwp_branch_key_id k)
{
	return k < HWP_KEY_COUNT ? key_info[k].name : "?";
}

const char *hwp_branch_key__title(enum hwp_branch_key_id k)
{
	return k < HWP_KEY_COUNT ? key_info[k].title : "?";
}

/* The first key TOK (LEN characters) is a prefix of, or -1. */
static int resolve(const char *tok, size_t len)
{
	for (size_t i = 0; i < sizeof(perf_keys) / sizeof(perf_keys[0]); i++)
		if (len <= strlen(perf_keys[i].name) && !strncasecmp(tok, perf_keys[i].name, len))
			return (int)i;
	return -1;
}

static void known_keys(char *buf, size_t size)
{
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(perf_keys) / sizeof(perf_keys[0]); i++) {
		if (perf_keys[i].key == UNSUPPORTED)
			continue;
		if (buf[0])
			strncat(buf, ",", size - strlen(buf) - 1);
		strncat(buf, perf_keys[i].name, size - strlen(buf) - 1);
	}
}

int hwp_branch_keys__parse(const char *spec, enum hwp_branch_key_id *keys, size_t max)
{
	char known[512];
	size_t n = 0;

	for (const char *p = spec; *p;) {
		size_t len = strcspn(p, ", "); /* perf splits on both */
		int i;

		if (!len) {
			p++;
			continue;
		}
		i = resolve(p, len);

		if (i < 0 || perf_keys[i].key == UNSUPPORTED) {
			known_keys(known, sizeof(known));
			if (i < 0)
				return hwp__set_error(EINVAL, "sort keys: unknown key '%.*s' (known: %s)", (int)len, p,
						      known);
			return hwp__set_error(ENOTSUP, "sort keys: '%.*s' is perf's '%s' key, which branch reports do not offer (known: %s)",
					      (int)len, p, perf_keys[i].name, known);
		}
		if (n == max)
			return hwp__set_error(EINVAL, "sort keys: more than %zu keys", max);
		keys[n++] = (enum hwp_branch_key_id)perf_keys[i].key;
		p += len;
	}
	if (n == 0)
		return hwp__set_error(EINVAL, "sort keys: none given");
	return (int)n;
}

unsigned hwp_branch_keys__split(const enum hwp_branch_key_id *keys, size_t n)
{
	unsigned split = 0;

	for (size_t i = 0; i < n; i++) {
		if (keys[i] == HWP_KEY_MISPREDICT)
			split |= HWP_SPLIT_MISPRED;
		else if (keys[i] == HWP_KEY_TYPE)
			split |= HWP_SPLIT_TYPE;
		else if (keys[i] == HWP_KEY_CYCLES)
			split |= HWP_SPLIT_CYCLES;
		else if (keys[i] == HWP_KEY_IN_TX || keys[i] == HWP_KEY_ABORT)
			split |= HWP_SPLIT_TX;
	}
	return split;
}
