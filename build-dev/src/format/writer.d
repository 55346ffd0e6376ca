build-dev/src/format/writer.o: src/format/writer.c \
 include/hwprof/hwprof.h include/hwprof/perf_writer.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 src/format/reader_internal.h src/util/arena.h src/util/hashmap.h \
 src/util/bytes.h src/util/vec.h
include/hwprof/hwprof.h:
include/hwprof/perf_writer.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
src/format/reader_internal.h:
src/util/arena.h:
src/util/hashmap.h:
src/util/bytes.h:
src/util/vec.h:
