/* SPDX-License-Identifier: MIT */
/* Library-private declarations (not exported): the public side is include/hwprof/maps.h. */
#ifndef HWPROF_SYMBOLIZE_MAPS_INTERNAL_H
#define HWPROF_SYMBOLIZE_MAPS_INTERNAL_H

#include "hwprof/maps.h"

/* Changes whenever maps or threads may have moved: pointers from the lookups
   above stay valid while it does not. */
uint64_t hwp__machine_generation(const struct hwp_machine *m);
size_t hwp__machine_kernel_maps(const struct hwp_machine *m, const struct hwp_map **maps);
bool hwp__map_name_is_vdso(const char *filename);

/* What identifies T's address space: threads with the same key resolve
   alike (until the generation changes). NULL for no thread. */
const void *hwp__thread_maps_key(const struct hwp_thread *t);
/* ADDR is in no map of T's CPUMODE (HWP_MISC_USER or HWP_MISC_KERNEL)
   space: narrows [*START, *END) to the gap between maps that holds ADDR. */
void hwp__thread_clip_to_gap(const struct hwp_thread *t, uint16_t cpumode, uint64_t addr, uint64_t *start,
			     uint64_t *end);
/*
 * For a reader of the address spaces on another thread: whether applying
 * EV (hwp_machine__process_event(), a record other than a sample) may
 * change them; whether the thread lookup of sample EV
 * (hwp_machine__sample_thread()) changes a thread that exists (its pid or
 * its maps; a new thread changes none).
 */
bool hwp__machine_event_changes(const struct hwp_event *ev);
bool hwp__machine_sample_changes(const struct hwp_machine *m, const struct hwp_event *ev);

/* The lowest file offset FILENAME was mapped executable from (user maps):
   false when never. */
bool hwp__machine_exec_pgoff(const struct hwp_machine *m, const char *filename, uint64_t *pgoff);

/* perf's rules for file names, exposed for tests and the symbolizer. */
bool hwp__map_name_is_identity(const char *filename, uint32_t flags);

#endif
