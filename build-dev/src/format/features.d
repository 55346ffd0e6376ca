build-dev/src/format/features.o: src/format/features.c \
 include/hwprof/hwprof.h src/format/reader_internal.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h src/util/arena.h \
 src/util/hashmap.h src/util/bytes.h
include/hwprof/hwprof.h:
src/format/reader_internal.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
src/util/arena.h:
src/util/hashmap.h:
src/util/bytes.h:
