build-dev/src/capture/attr_build.o: src/capture/attr_build.c \
 src/capture/attr_build.h include/hwprof/capture.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h src/capture/probe.h include/hwprof/probe.h \
 include/hwprof/attr_names.h src/util/bytes.h src/util/opts.h
src/capture/attr_build.h:
include/hwprof/capture.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
src/capture/probe.h:
include/hwprof/probe.h:
include/hwprof/attr_names.h:
src/util/bytes.h:
src/util/opts.h:
