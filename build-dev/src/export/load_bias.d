build-dev/src/export/load_bias.o: src/export/load_bias.c \
 src/analysis/branch_collect_internal.h include/hwprof/branch_collect.h \
 include/hwprof/branch_table.h include/hwprof/hwprof.h \
 include/hwprof/code_loc.h include/hwprof/session.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h src/decode/code_cache.h \
 include/hwprof/range_profile.h src/symbolize/build_id_lookup.h
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
src/decode/code_cache.h:
include/hwprof/range_profile.h:
src/symbolize/build_id_lookup.h:
