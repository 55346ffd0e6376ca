build-dev/src/format/text_input.o: src/format/text_input.c \
 src/format/text_input.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h include/hwprof/hwprof.h src/util/bytes.h \
 src/util/hash.h src/util/hashmap.h src/util/vec.h
src/format/text_input.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
src/util/bytes.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/vec.h:
