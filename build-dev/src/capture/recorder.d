build-dev/src/capture/recorder.o: src/capture/recorder.c \
 src/capture/attr_build.h include/hwprof/capture.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h src/capture/probe.h include/hwprof/probe.h \
 include/hwprof/perf_writer.h src/util/bytes.h src/util/opts.h \
 src/util/path_search.h src/util/vec.h
src/capture/attr_build.h:
include/hwprof/capture.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
src/capture/probe.h:
include/hwprof/probe.h:
include/hwprof/perf_writer.h:
src/util/bytes.h:
src/util/opts.h:
src/util/path_search.h:
src/util/vec.h:
