build-dev/src/symbolize/maps.o: src/symbolize/maps.c \
 include/hwprof/maps.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h include/hwprof/hwprof.h src/util/arena.h \
 src/util/bytes.h src/util/hash.h src/util/hashmap.h src/util/vec.h
include/hwprof/maps.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
src/util/arena.h:
src/util/bytes.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/vec.h:
