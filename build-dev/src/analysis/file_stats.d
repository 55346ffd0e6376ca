build-dev/src/analysis/file_stats.o: src/analysis/file_stats.c \
 include/hwprof/file_stats.h include/hwprof/hwprof.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h src/util/bytes.h
include/hwprof/file_stats.h:
include/hwprof/hwprof.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
src/util/bytes.h:
