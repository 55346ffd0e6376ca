/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "hwprof/sample_json.h"

void hwp_json__string(struct hwp_outbuf *o, const char *s)
{
	hwp_outbuf__putc(o, '"');
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\') {
			hwp_outbuf__putc(o, '\\');
			hwp_outbuf__putc(o, (char)*p);
		} else if (*p < 0x20) {
			hwp_outbuf__printf(o, "\\u%04x", *p);
		} else {
			hwp_outbuf__putc(o, (char)*p);
		}
	}
	hwp_outbuf__putc(o, '"');
}

static void key(struct hwp_outbuf *o, const char *k)
{
	hwp_outbuf__putc(o, ',');
	hwp_outbuf__putc(o, '"');
	hwp_outbuf__puts(o, k);
	hwp_outbuf__puts(o, "\":");
}

static void hexval(struct hwp_outbuf *o, uint64_t v)
{
	hwp_outbuf__puts(o, "\"0x");
	hwp_outbuf__hex(o, v, 0);
	hwp_outbuf__putc(o, '"');
}

static void kv_hex(struct hwp_outbuf *o, const char *k, uint64_t v)
{
	key(o, k);
	hexval(o, v);
}

static void kv_u64(struct hwp_outbuf *o, const char *k, uint64_t v)
{
	key(o, k);
	hwp_outbuf__u64(o, v);
}

static void kv_regs(struct hwp_outbuf *o, const char *k, uint64_t abi, uint64_t mask,
		    const struct hwp_bytes *b)
{
	key(o, k);
	hwp_outbuf__printf(o, "{\"abi\":%llu,\"mask\":\"0x%llx\",\"regs\":[", (unsigned long long)abi,
			   (unsigned long long)mask);
	for (uint64_t i = 0; i < b->size / 8; i++) {
		uint64_t v;
		memcpy(&v, b->data + i * 8, 8);
		if (i)
			hwp_outbuf__putc(o, ',');
		hexval(o, v);
	}
	hwp_outbuf__puts(o, "]}");
}

static const char *const cpumodes[] = { "unknown", "kernel", "user", "hypervisor",
					"guest_kernel", "guest_user", "6", "7" };

void hwp_sample_json__print(struct hwp_outbuf *o, const struct hwp_event *ev)
{
	const struct hwp_sample *s = &ev->sample;
	uint64_t st = s->sample_type;

	hwp_outbuf__puts(o, "{\"offset\":");
	hwp_outbuf__u64(o, ev->file_offset);
	key(o, "event");
	hwp_json__string(o, ev->evsel && ev->evsel->name ? ev->evsel->name : "");
	key(o, "cpumode");
	hwp_json__string(o, cpumodes[s->cpumode & 7]);
	if (st & (HWP_SAMPLE_ID | HWP_SAMPLE_IDENTIFIER))
		kv_u64(o, "id", s->id);
	if (st & HWP_SAMPLE_IP)
		kv_hex(o, "ip", s->ip);
	if (st & HWP_SAMPLE_TID) {
		kv_u64(o, "pid", s->pid);
		kv_u64(o, "tid", s->tid);
	}
	if (st & HWP_SAMPLE_TIME)
		kv_u64(o, "time", s->time);
	if (st & HWP_SAMPLE_ADDR)
		kv_hex(o, "addr", s->addr);
	if (st & HWP_SAMPLE_STREAM_ID)
		kv_u64(o, "stream_id", s->stream_id);
	if (st & HWP_SAMPLE_CPU)
		kv_u64(o, "cpu", s->cpu);
	if (st & HWP_SAMPLE_PERIOD)
		kv_u64(o, "period", s->period);
	if ((st & HWP_SAMPLE_READ) && ev->evsel) {
		uint64_t rf = ev->evsel->attr.read_format;
		struct hwp_read rd;
		struct hwp_read_value v;
		key(o, "read");
		if (hwp_read__parse(&s->read, rf, &rd) == 0) {
			hwp_outbuf__printf(o, "{\"time_enabled\":%llu,\"time_running\":%llu,\"values\":[",
					   (unsigned long long)rd.time_enabled,
					   (unsigned long long)rd.time_running);
			for (uint64_t i = 0; hwp_read__value(&s->read, rf, i, &v) == 0; i++)
				hwp_outbuf__printf(o, "%s{\"value\":%llu,\"id\":%llu,\"lost\":%llu}",
						   i ? "," : "", (unsigned long long)v.value,
						   (unsigned long long)v.id, (unsigned long long)v.lost);
			hwp_outbuf__puts(o, "]}");
		} else {
			hwp_outbuf__puts(o, "null");
		}
	}
	if (st & HWP_SAMPLE_CALLCHAIN) {
		key(o, "callchain");
		hwp_outbuf__putc(o, '[');
		for (uint64_t i = 0; i < s->callchain_nr; i++) {
			if (i)
				hwp_outbuf__putc(o, ',');
			hexval(o, hwp_sample__callchain_ip(s, i));
		}
		hwp_outbuf__putc(o, ']');
	}
	if (st & HWP_SAMPLE_RAW)
		kv_u64(o, "raw_size", s->raw.size);
	if (st & HWP_SAMPLE_BRANCH_STACK) {
		struct hwp_branch_entry e;
		key(o, "branch_stack");
		hwp_outbuf__putc(o, '{');
		if (s->branch_has_hw_idx)
			hwp_outbuf__printf(o, "\"hw_idx\":%llu,", (unsigned long long)s->branch_hw_idx);
		hwp_outbuf__puts(o, "\"entries\":[");
		for (uint64_t i = 0; i < s->branch_nr; i++) {
			hwp_sample__branch(s, i, &e);
			hwp_outbuf__puts(o, i ? ",{\"from\":" : "{\"from\":");
			hexval(o, e.from);
			kv_hex(o, "to", e.to);
			hwp_outbuf__printf(o, ",\"mispred\":%u,\"predicted\":%u,\"in_tx\":%u,\"abort\":%u,\"cycles\":%u,\"type\":%u,\"spec\":%u,\"new_type\":%u,\"priv\":%u",
					   e.mispred, e.predicted, e.in_tx, e.abort, e.cycles, e.type,
					   e.spec, e.new_type, e.priv);
			if (s->branch_counters) {
				uint64_t cnt;
				memcpy(&cnt, s->branch_counters + i * 8, 8);
				kv_u64(o, "counters", cnt);
			}
			hwp_outbuf__putc(o, '}');
		}
		hwp_outbuf__puts(o, "]}");
	}
	if (st & HWP_SAMPLE_REGS_USER)
		kv_regs(o, "regs_user", s->regs_user_abi, s->regs_user_mask, &s->regs_user);
	if (st & HWP_SAMPLE_STACK_USER) {
		kv_u64(o, "stack_user_size", s->stack_user.size);
		kv_u64(o, "stack_user_dyn_size", s->stack_user_dyn_size);
	}
	if (st & HWP_SAMPLE_WEIGHT)
		kv_u64(o, "weight", s->weight);
	if (st & HWP_SAMPLE_WEIGHT_STRUCT) {
		kv_u64(o, "weight", s->weight_var1);
		kv_u64(o, "ins_lat", s->weight_var2);
		kv_u64(o, "weight_var3", s->weight_var3);
	}
	if (st & HWP_SAMPLE_DATA_SRC)
		kv_hex(o, "data_src", s->data_src);
	if (st & HWP_SAMPLE_TRANSACTION)
		kv_hex(o, "transaction", s->transaction);
	if (st & HWP_SAMPLE_REGS_INTR)
		kv_regs(o, "regs_intr", s->regs_intr_abi, s->regs_intr_mask, &s->regs_intr);
	if (st & HWP_SAMPLE_PHYS_ADDR)
		kv_hex(o, "phys_addr", s->phys_addr);
	if (st & HWP_SAMPLE_CGROUP)
		kv_u64(o, "cgroup", s->cgroup);
	if (st & HWP_SAMPLE_DATA_PAGE_SIZE)
		kv_u64(o, "data_page_size", s->data_page_size);
	if (st & HWP_SAMPLE_CODE_PAGE_SIZE)
		kv_u64(o, "code_page_size", s->code_page_size);
	if (st & HWP_SAMPLE_AUX)
		kv_u64(o, "aux_size", s->aux.size);
	hwp_outbuf__puts(o, "}\n");
}
