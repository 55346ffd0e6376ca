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

/* perf's rules for file names, exposed for tests and the symbolizer. */
bool hwp__map_name_is_identity(const char *filename, uint32_t flags);

#endif
