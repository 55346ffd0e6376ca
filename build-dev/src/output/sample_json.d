build-dev/src/output/sample_json.o: src/output/sample_json.c \
 include/hwprof/sample_json.h include/hwprof/hwprof.h \
 include/hwprof/json.h include/hwprof/outbuf.h include/hwprof/perf_data.h \
 include/hwprof/perf_abi.h src/format/reader_internal.h src/util/arena.h \
 src/util/hashmap.h
include/hwprof/sample_json.h:
include/hwprof/hwprof.h:
include/hwprof/json.h:
include/hwprof/outbuf.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
src/format/reader_internal.h:
src/util/arena.h:
src/util/hashmap.h:
