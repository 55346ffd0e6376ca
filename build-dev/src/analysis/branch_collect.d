build-dev/src/analysis/branch_collect.o: src/analysis/branch_collect.c \
 src/analysis/branch_collect_internal.h include/hwprof/branch_collect.h \
 include/hwprof/branch_table.h include/hwprof/hwprof.h \
 include/hwprof/code_loc.h include/hwprof/session.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h src/analysis/branch_table_internal.h \
 src/decode/code_cache.h src/session/session_internal.h src/util/bytes.h \
 src/util/opts.h
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
src/analysis/branch_table_internal.h:
src/decode/code_cache.h:
src/session/session_internal.h:
src/util/bytes.h:
src/util/opts.h:
