/* SPDX-License-Identifier: MIT */
/*
 * Per-process address spaces, as perf's machine/thread/maps model builds them
 * (tools/perf/util/machine.c, thread.c, maps.c in perf 6.1).
 *
 * Feed every record in perf's delivery order (hwp_ordered__next) to
 * hwp_machine__process_event(); then hwp_thread__find_map() says which
 * mapping an address of that thread falls in, and hwp_map__map_ip() turns the
 * address into the offset perf prints and symbolizes with.
 *
 * The rules followed:
 *  - MMAP/MMAP2 with cpumode KERNEL or GUEST_KERNEL go to the machine's
 *    kernel maps; every other one goes to its thread's process. A new map
 *    replaces what it overlaps: older maps are cut, the part after keeps its
 *    file offset (maps__fixup_overlappings). MMAP records without the
 *    MMAP_DATA misc bit are PROT_EXEC; data mmaps are kept too, as perf does.
 *  - Threads are found by tid. A thread whose pid differs from its tid shares
 *    its leader's maps (the leader is created when missing); pid -1 means not
 *    known yet and is filled in by the first record that knows it.
 *  - FORK: a thread already using the child tid is dropped; a parent with the
 *    wrong pid is dropped and made again; a child in a new process gets a copy
 *    of the parent's maps (not when the FORK has misc bit 13, perf's
 *    synthesized FORK_EXEC), a child in the parent's process shares them.
 *  - COMM (also with exec), EXIT, NAMESPACES, ITRACE_START and samples only
 *    create the thread when missing: perf keeps a process' maps across exec
 *    and exit.
 *  - Identity maps (the address itself is the offset): "//anon", names
 *    starting with "/dev/zero", "/anon_hugepage", "[stack" or "/SYSV",
 *    "[heap]", and MAP_HUGETLB mappings. "[vdso]" has pgoff 0. Everything
 *    else, "[vsyscall]" included, maps as addr - start + pgoff.
 *  - An identity map that is executable (PROT_EXEC) is JIT-compiled code:
 *    its filename becomes "/tmp/perf-PID.map" (PID: its process), the perf
 *    map that names such code, as perf's map__new() names it.
 *  - Lookups: cpumode KERNEL searches the kernel maps, USER the thread's
 *    process; HV, guest and unknown modes find nothing (perf's default
 *    perf_host=1, perf_guest=0).
 *
 * Not modelled: guest machines (guest records go to the host model), perf's
 * kcore and module-path parsing, and the overlapping maps perf can be left
 * with when it clones maps into a process that already has some (here they
 * are fixed up like any insertion).
 *
 * Memory is one sorted array of maps per process plus one copy of each
 * distinct file name; lookups are binary searches.
 */
#ifndef HWPROF_MAPS_H
#define HWPROF_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/perf_data.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/* One mapping. Values are copied out of the records; FILENAME lives as long
   as the machine. */
struct hwp_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;
	const char *filename;
	uint32_t prot, flags; /* MMAP2's, or PROT_EXEC / 0 for MMAP */
	uint32_t maj, min;    /* MMAP2 without build-id */
	uint64_t ino, ino_generation;
	uint8_t build_id[20];
	uint8_t build_id_size; /* 0: the record carried no build-id */
	bool identity;         /* the address is its own offset (anon, heap, stack) */
	bool kernel;           /* a kernel or module map (kernel maps only) */
};

/* perf's map->map_ip(): the offset of ADDR in the mapped object. */
static inline uint64_t hwp_map__map_ip(const struct hwp_map *m, uint64_t addr)
{
	return m->identity ? addr : addr - m->start + m->pgoff;
}

/* perf's map->unmap_ip(): the inverse. */
static inline uint64_t hwp_map__unmap_ip(const struct hwp_map *m, uint64_t off)
{
	return m->identity ? off : off + m->start - m->pgoff;
}

/* The decoded body of an MMAP or MMAP2 record. */
struct hwp_mmap_event {
	int32_t pid, tid;
	uint16_t cpumode; /* HWP_MISC_* from header.misc */
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	const uint8_t *build_id; /* NULL or build_id_size bytes */
	uint8_t build_id_size;
	const char *filename;    /* NUL-terminated */
};

struct hwp_machine;
struct hwp_thread;

/* NULL with errno set on failure. */
HWP_API struct hwp_machine *hwp_machine__new(void);
HWP_API void hwp_machine__delete(struct hwp_machine *m);

/*
 * Applies one record (any type; the ones that do not touch address spaces
 * are ignored). Returns 0, -ENOMEM, or -EINVAL for a record too short for
 * its type (nothing is changed then).
 */
HWP_API int hwp_machine__process_event(struct hwp_machine *m, const struct hwp_event *ev);

/* The same steps, for callers that have the fields rather than a record. */
HWP_API int hwp_machine__mmap(struct hwp_machine *m, const struct hwp_mmap_event *e);
/* CLONE_MAPS false is perf's FORK_EXEC (synthesized FORK): maps not copied. */
HWP_API int hwp_machine__fork(struct hwp_machine *m, int32_t pid, int32_t tid, int32_t ppid,
		      int32_t ptid, bool clone_maps);

/* perf's machine__findnew_thread(). NULL only when out of memory. Valid
   until a FORK removes that tid or the machine is deleted. */
HWP_API struct hwp_thread *hwp_machine__findnew_thread(struct hwp_machine *m, int32_t pid, int32_t tid);
/* The thread of a sample (pid = tid = -1 when it has no TID). */
HWP_API struct hwp_thread *hwp_machine__sample_thread(struct hwp_machine *m, const struct hwp_event *ev);
/* Lookup by tid without creating; NULL when unknown. */
HWP_API struct hwp_thread *hwp_machine__find_thread(const struct hwp_machine *m, int32_t tid);

HWP_API int32_t hwp_thread__pid(const struct hwp_thread *t);
HWP_API int32_t hwp_thread__tid(const struct hwp_thread *t);

/* The map holding ADDR as seen from T in CPUMODE (HWP_MISC_*), or NULL.
   The pointer is valid until the next change to the machine. */
HWP_API const struct hwp_map *hwp_thread__find_map(const struct hwp_thread *t, uint16_t cpumode,
					   uint64_t addr);
/* Same, for process PID (the thread whose tid is PID); NULL when unknown. */
HWP_API const struct hwp_map *hwp_machine__find_map(const struct hwp_machine *m, int32_t pid,
					    uint16_t cpumode, uint64_t addr);

/* The maps of T's process / of the kernel, sorted by start, not
   overlapping. Threads of one process return the same array. */
HWP_API size_t hwp_thread__maps(const struct hwp_thread *t, const struct hwp_map **maps);

HWP_END_DECLS

#endif
