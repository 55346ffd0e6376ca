build-dev/src/format/branch_entry.o: src/format/branch_entry.c \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
