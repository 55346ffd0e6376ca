/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "hwprof/data_src.h"
#include "output/sample_json.h"
#include "format/reader_internal.h"
#include "format/data_src_internal.h"

static void kv_regs(struct hwp_json_writer *j, const char *k, uint64_t abi, uint64_t mask,
		    const struct hwp_bytes *b)
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_u64(j, "abi", abi);
	hwp__json_writer_kv_hex(j, "mask", mask);
	hwp__json_writer_key(j, "regs");
	hwp__json_writer_begin_array(j);
	for (uint64_t i = 0; i < b->size / 8; i++) {
		uint64_t v;
		memcpy(&v, b->data + i * 8, 8);
		hwp__json_writer_hex(j, v);
	}
	hwp__json_writer_end_array(j);
	hwp__json_writer_end_object(j);
}

static void read_values(struct hwp_json_writer *j, const struct hwp_event *ev)
{
	const struct hwp_sample *s = &ev->sample;
	uint64_t rf = ev->evsel->attr.read_format;
	struct hwp_read rd;
	struct hwp_read_value v;

	hwp__json_writer_key(j, "read");
	if (hwp__read_parse(&s->read, rf, &rd) < 0) { /* a short record: no message */
		hwp__json_writer_null(j);
		return;
	}
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_u64(j, "time_enabled", rd.time_enabled);
	hwp__json_writer_kv_u64(j, "time_running", rd.time_running);
	hwp__json_writer_key(j, "values");
	hwp__json_writer_begin_array(j);
	for (uint64_t i = 0; hwp__read_value(&s->read, rf, i, &v) == 0; i++) {
		hwp__json_writer_begin_object(j);
		hwp__json_writer_kv_u64(j, "value", v.value);
		hwp__json_writer_kv_u64(j, "id", v.id);
		hwp__json_writer_kv_u64(j, "lost", v.lost);
		hwp__json_writer_end_object(j);
	}
	hwp__json_writer_end_array(j);
	hwp__json_writer_end_object(j);
}

static void branch_stack(struct hwp_json_writer *j, const struct hwp_sample *s)
{
	struct hwp_branch_entry e;

	hwp__json_writer_key(j, "branch_stack");
	hwp__json_writer_begin_object(j);
	if (s->branch_has_hw_idx)
		hwp__json_writer_kv_u64(j, "hw_idx", s->branch_hw_idx);
	hwp__json_writer_key(j, "entries");
	hwp__json_writer_begin_array(j);
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		hwp_sample__branch(s, i, &e);
		hwp__json_writer_begin_object(j);
		hwp__json_writer_kv_hex(j, "from", e.from);
		hwp__json_writer_kv_hex(j, "to", e.to);
		hwp__json_writer_kv_u64(j, "mispred", e.mispred);
		hwp__json_writer_kv_u64(j, "predicted", e.predicted);
		hwp__json_writer_kv_u64(j, "in_tx", e.in_tx);
		hwp__json_writer_kv_u64(j, "abort", e.abort);
		hwp__json_writer_kv_u64(j, "cycles", e.cycles);
		hwp__json_writer_kv_u64(j, "type", e.type);
		hwp__json_writer_kv_u64(j, "spec", e.spec);
		hwp__json_writer_kv_u64(j, "new_type", e.new_type);
		hwp__json_writer_kv_u64(j, "priv", e.priv);
		if (s->branch_counters) {
			uint64_t cnt;
			memcpy(&cnt, s->branch_counters + i * 8, 8);
			hwp__json_writer_kv_u64(j, "counters", cnt);
		}
		hwp__json_writer_end_object(j);
	}
	hwp__json_writer_end_array(j);
	hwp__json_writer_end_object(j);
}

static const char *const cpumodes[] = { "unknown", "kernel", "user", "hypervisor",
					"guest_kernel", "guest_user", "6", "7" };

void hwp__sample_json_write(struct hwp_json_writer *j, const struct hwp_event *ev)
{
	const struct hwp_sample *s = &ev->sample;
	uint64_t st = s->sample_type;

	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_u64(j, "offset", ev->file_offset);
	hwp__json_writer_kv_string(j, "event", ev->evsel && ev->evsel->name ? ev->evsel->name : "");
	hwp__json_writer_kv_string(j, "cpumode", cpumodes[s->cpumode & 7]);
	if (st & (HWP_SAMPLE_ID | HWP_SAMPLE_IDENTIFIER))
		hwp__json_writer_kv_u64(j, "id", s->id);
	if (st & HWP_SAMPLE_IP)
		hwp__json_writer_kv_hex(j, "ip", s->ip);
	if (st & HWP_SAMPLE_TID) {
		hwp__json_writer_kv_u64(j, "pid", s->pid);
		hwp__json_writer_kv_u64(j, "tid", s->tid);
	}
	if (st & HWP_SAMPLE_TIME)
		hwp__json_writer_kv_u64(j, "time", s->time);
	if (st & HWP_SAMPLE_ADDR)
		hwp__json_writer_kv_hex(j, "addr", s->addr);
	if (st & HWP_SAMPLE_STREAM_ID)
		hwp__json_writer_kv_u64(j, "stream_id", s->stream_id);
	if (st & HWP_SAMPLE_CPU)
		hwp__json_writer_kv_u64(j, "cpu", s->cpu);
	if (st & HWP_SAMPLE_PERIOD)
		hwp__json_writer_kv_u64(j, "period", s->period);
	if ((st & HWP_SAMPLE_READ) && ev->evsel)
		read_values(j, ev);
	if (st & HWP_SAMPLE_CALLCHAIN) {
		hwp__json_writer_key(j, "callchain");
		hwp__json_writer_begin_array(j);
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			hwp__json_writer_hex(j, hwp_sample__callchain_ip(s, i));
		hwp__json_writer_end_array(j);
	}
	if (st & HWP_SAMPLE_RAW)
		hwp__json_writer_kv_u64(j, "raw_size", s->raw.size);
	if (st & HWP_SAMPLE_BRANCH_STACK)
		branch_stack(j, s);
	if (st & HWP_SAMPLE_REGS_USER)
		kv_regs(j, "regs_user", s->regs_user_abi, s->regs_user_mask, &s->regs_user);
	if (st & HWP_SAMPLE_STACK_USER) {
		hwp__json_writer_kv_u64(j, "stack_user_size", s->stack_user.size);
		hwp__json_writer_kv_u64(j, "stack_user_dyn_size", s->stack_user_dyn_size);
	}
	if (st & HWP_SAMPLE_WEIGHT)
		hwp__json_writer_kv_u64(j, "weight", s->weight);
	if (st & HWP_SAMPLE_WEIGHT_STRUCT) {
		hwp__json_writer_kv_u64(j, "weight", s->weight_var1);
		hwp__json_writer_kv_u64(j, "ins_lat", s->weight_var2);
		hwp__json_writer_kv_u64(j, "weight_var3", s->weight_var3);
	}
	if (st & HWP_SAMPLE_DATA_SRC) {
		struct hwp_data_src d;
		char text[400];

		hwp__json_writer_kv_hex(j, "data_src", s->data_src);
		/* the fields, perf's text for them, and the coarse source */
		hwp_data_src__decode(s->data_src, &d);
		hwp__json_writer_key(j, "mem");
		hwp__json_writer_begin_object(j);
		hwp__json_writer_kv_u64(j, "op", d.op);
		hwp__json_writer_kv_u64(j, "lvl", d.lvl);
		hwp__json_writer_kv_u64(j, "snoop", d.snoop);
		hwp__json_writer_kv_u64(j, "lock", d.lock);
		hwp__json_writer_kv_u64(j, "dtlb", d.dtlb);
		hwp__json_writer_kv_u64(j, "lvl_num", d.lvl_num);
		hwp__json_writer_kv_u64(j, "remote", d.remote);
		hwp__json_writer_kv_u64(j, "snoopx", d.snoopx);
		hwp__json_writer_kv_u64(j, "blk", d.blk);
		hwp__json_writer_kv_u64(j, "hops", d.hops);
		hwp__data_src_format(s->data_src, text, sizeof(text));
		hwp__json_writer_kv_string(j, "text", text);
		hwp__json_writer_kv_string(j, "source", hwp_mem_source__key(hwp_data_src__source(s->data_src)));
		hwp__json_writer_end_object(j);
	}
	if (st & HWP_SAMPLE_TRANSACTION)
		hwp__json_writer_kv_hex(j, "transaction", s->transaction);
	if (st & HWP_SAMPLE_REGS_INTR)
		kv_regs(j, "regs_intr", s->regs_intr_abi, s->regs_intr_mask, &s->regs_intr);
	if (st & HWP_SAMPLE_PHYS_ADDR)
		hwp__json_writer_kv_hex(j, "phys_addr", s->phys_addr);
	if (st & HWP_SAMPLE_CGROUP)
		hwp__json_writer_kv_u64(j, "cgroup", s->cgroup);
	if (st & HWP_SAMPLE_DATA_PAGE_SIZE)
		hwp__json_writer_kv_u64(j, "data_page_size", s->data_page_size);
	if (st & HWP_SAMPLE_CODE_PAGE_SIZE)
		hwp__json_writer_kv_u64(j, "code_page_size", s->code_page_size);
	if (st & HWP_SAMPLE_AUX)
		hwp__json_writer_kv_u64(j, "aux_size", s->aux.size);
	hwp__json_writer_end_object(j);
}
