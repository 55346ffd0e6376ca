build-dev/src/analysis/flow.o: src/analysis/flow.c \
 src/analysis/branch_collect_internal.h include/hwprof/branch_collect.h \
 include/hwprof/branch_table.h include/hwprof/hwprof.h \
 include/hwprof/code_loc.h include/hwprof/session.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h src/analysis/loc_index.h src/util/hash.h \
 src/util/hashmap.h src/decode/code_cache.h include/hwprof/flow.h \
 include/hwprof/mispredicts.h src/util/opts.h src/util/vec.h
src/analysis/branch_collect_internal.h:
include/hwprof/branch_collect.h:
include/hwprof/branch_table.h:
include/hwprof/hwprof.h:
include/hwprof/code_loc.h:
include/hwprof/session.h:
include/hwprof/maps.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/symbolize.h:
src/analysis/loc_index.h:
src/util/hash.h:
src/util/hashmap.h:
src/decode/code_cache.h:
include/hwprof/flow.h:
include/hwprof/mispredicts.h:
src/util/opts.h:
src/util/vec.h:
