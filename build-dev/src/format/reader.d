build-dev/src/format/reader.o: src/format/reader.c \
 include/hwprof/hwprof.h src/format/reader_internal.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h src/util/arena.h \
 src/util/hashmap.h src/format/text_input.h src/util/bytes.h \
 src/util/hash.h src/util/opts.h src/util/vec.h
include/hwprof/hwprof.h:
src/format/reader_internal.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
src/util/arena.h:
src/util/hashmap.h:
src/format/text_input.h:
src/util/bytes.h:
src/util/hash.h:
src/util/opts.h:
src/util/vec.h:
