build-dev/src/format/attr.o: src/format/attr.c \
 src/format/reader_internal.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h include/hwprof/hwprof.h src/util/arena.h \
 src/util/hashmap.h src/util/bytes.h
src/format/reader_internal.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
src/util/arena.h:
src/util/hashmap.h:
src/util/bytes.h:
