/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "hwprof/attr_names.h"
#include "hwprof/perf_abi.h"

#define NAME_AT(table, bit) ((bit) < sizeof(table) / sizeof(table[0]) ? table[bit] : NULL)

static const char *const sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID",
	"RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
	"TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static const char *const branch_bits[] = {
	"USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL", "ABORT_TX", "IN_TX",
	"NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL", "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE",
	"HW_INDEX", "PRIV_SAVE", "COUNTERS",
};

static const char *const read_bits[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

static const char *const flag_bits[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", "precise_ip", "precise_ip", "mmap_data", "sample_id_all",
	"exclude_host", "exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user",
	"mmap2", "comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces",
	"ksymbol", "bpf_event", "aux_output", "cgroup", "text_poke", "build_id",
	"inherit_thread", "remove_on_exec", "sigtrap",
};

static const char *const type_names[] = {
	"hardware", "software", "tracepoint", "hw_cache", "raw", "breakpoint",
};

const char *hwp_sample_type__bit_name(unsigned bit)
{
	return NAME_AT(sample_bits, bit);
}

const char *hwp_branch_sample_type__bit_name(unsigned bit)
{
	return NAME_AT(branch_bits, bit);
}

const char *hwp_read_format__bit_name(unsigned bit)
{
	return NAME_AT(read_bits, bit);
}

const char *hwp_attr_flag__name(unsigned bit)
{
	return NAME_AT(flag_bits, bit);
}

const char *hwp_attr_type__name(uint32_t type)
{
	return NAME_AT(type_names, type);
}

char *hwp_bits__format(uint64_t bits, const char *(*name)(unsigned), char *buf, size_t len)
{
	size_t used = 0;
	uint64_t unknown = 0;

	buf[0] = 0;
	for (unsigned b = 0; b < 64; b++) {
		if (!((bits >> b) & 1))
			continue;
		const char *n = name(b);
		if (!n) {
			unknown |= 1ULL << b;
			continue;
		}
		int w = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", n);
		if (w < 0 || (size_t)w >= len - used)
			return buf;
		used += (size_t)w;
	}
	if (unknown)
		snprintf(buf + used, len - used, "%s0x%llx", used ? "|" : "", (unsigned long long)unknown);
	return buf;
}
