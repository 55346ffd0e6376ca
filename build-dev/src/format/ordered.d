build-dev/src/format/ordered.o: src/format/ordered.c \
 include/hwprof/hwprof.h src/format/reader_internal.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h src/util/arena.h \
 src/util/hashmap.h
include/hwprof/hwprof.h:
src/format/reader_internal.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
src/util/arena.h:
src/util/hashmap.h:
