build-dev/src/session/session.o: src/session/session.c \
 src/session/session_internal.h include/hwprof/session.h \
 include/hwprof/code_loc.h include/hwprof/hwprof.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h src/util/opts.h
src/session/session_internal.h:
include/hwprof/session.h:
include/hwprof/code_loc.h:
include/hwprof/hwprof.h:
include/hwprof/maps.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/symbolize.h:
src/util/opts.h:
