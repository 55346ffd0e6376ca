build-dev/src/analysis/advise.o: src/analysis/advise.c \
 src/analysis/branch_collect_internal.h include/hwprof/branch_collect.h \
 include/hwprof/branch_table.h include/hwprof/hwprof.h \
 include/hwprof/code_loc.h include/hwprof/session.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h src/analysis/wilson.h include/hwprof/advise.h \
 include/hwprof/flow.h src/util/opts.h src/util/vec.h
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
src/analysis/wilson.h:
include/hwprof/advise.h:
include/hwprof/flow.h:
src/util/opts.h:
src/util/vec.h:
