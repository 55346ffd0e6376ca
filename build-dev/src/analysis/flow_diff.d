build-dev/src/analysis/flow_diff.o: src/analysis/flow_diff.c \
 src/analysis/wilson.h include/hwprof/branch_report.h \
 include/hwprof/hwprof.h include/hwprof/branch_table.h \
 include/hwprof/code_loc.h include/hwprof/symbolize.h \
 include/hwprof/flow_diff.h include/hwprof/branch_collect.h \
 include/hwprof/session.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/flow.h src/analysis/branch_collect_internal.h \
 src/util/opts.h src/util/vec.h
src/analysis/wilson.h:
include/hwprof/branch_report.h:
include/hwprof/hwprof.h:
include/hwprof/branch_table.h:
include/hwprof/code_loc.h:
include/hwprof/symbolize.h:
include/hwprof/flow_diff.h:
include/hwprof/branch_collect.h:
include/hwprof/session.h:
include/hwprof/maps.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/flow.h:
src/analysis/branch_collect_internal.h:
src/util/opts.h:
src/util/vec.h:
