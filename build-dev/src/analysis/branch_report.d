build-dev/src/analysis/branch_report.o: src/analysis/branch_report.c \
 include/hwprof/branch_report.h include/hwprof/hwprof.h \
 include/hwprof/branch_table.h include/hwprof/code_loc.h \
 include/hwprof/symbolize.h include/hwprof/perf_abi.h \
 include/hwprof/perf_data.h src/analysis/branch_ipc.h \
 src/analysis/branch_loc.h src/util/arena.h src/util/hash.h \
 src/util/hashmap.h src/util/opts.h src/util/vec.h
include/hwprof/branch_report.h:
include/hwprof/hwprof.h:
include/hwprof/branch_table.h:
include/hwprof/code_loc.h:
include/hwprof/symbolize.h:
include/hwprof/perf_abi.h:
include/hwprof/perf_data.h:
src/analysis/branch_ipc.h:
src/analysis/branch_loc.h:
src/util/arena.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/opts.h:
src/util/vec.h:
