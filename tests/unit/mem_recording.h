/* SPDX-License-Identifier: MIT */
/* For tests that write memory-sample recordings: the event they sample,
   and their end. */
#ifndef HWPROF_TESTS_MEM_RECORDING_H
#define HWPROF_TESTS_MEM_RECORDING_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "hwprof/perf_writer.h"
#include "testlib.h" /* next_random() */

/* A load-latency event as perf records it (cpu/mem-loads/P, id ID), with
   the sample fields a memory report reads: IP, TID, TIME, ADDR, ID, CPU,
   WEIGHT and DATA_SRC. 0 or <0. */
static inline int add_mem_attr(struct hwp_writer *w, uint64_t id)
{
	struct hwp_attr a;

	memset(&a, 0, sizeof(a));
	a.type = 4;
	a.config = 0x1cd;
	a.sample_period = 1000;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ADDR | HWP_SAMPLE_ID |
			HWP_SAMPLE_CPU | HWP_SAMPLE_WEIGHT | HWP_SAMPLE_DATA_SRC;
	a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) | (1ULL << HWP_ATTR_COMM) |
		  (1ULL << HWP_ATTR_MMAP2) | (2ULL << HWP_ATTR_PRECISE_IP);
	return hwp_writer__add_attr(w, &a, &id, 1, "cpu/mem-loads/P");
}

/* Process PID, named COMM, running PROG (build-id BUILD_ID, 20 bytes)
   mapped at TEXT (64 KiB): its COMM and MMAP2 in W, *ID the sample id
   fields its records carry (event id EVENT_ID). 0 or <0. */
static inline int add_program(struct hwp_writer *w, uint32_t pid, uint64_t event_id, const char *comm,
			      const char *prog, const uint8_t *build_id, uint64_t text, struct hwp_sample *id)
{
	memset(id, 0, sizeof(*id));
	id->pid = id->tid = pid;
	id->id = event_id;
	if (hwp_writer__add_comm(w, 0, pid, pid, comm, false, id) < 0)
		return -1;
	return hwp_writer__add_mmap2(w, 0, pid, pid, text, 0x10000, 0, build_id, 20, PROT_READ | PROT_EXEC, 0, prog,
				     HWP_MISC_USER, id);
}

/* W ended with a last round and closed, or dropped after an error (ERR
   not 0). 0 or -1. */
static inline int end_recording(struct hwp_writer *w, int err)
{
	if (err || hwp_writer__add_finished_round(w) < 0) {
		hwp_writer__abort(w);
		return -1;
	}
	return hwp_writer__close(w);
}

#endif
