build-dev/src/session/assumed_maps.o: src/session/assumed_maps.c \
 src/session/session_internal.h include/hwprof/session.h \
 include/hwprof/code_loc.h include/hwprof/hwprof.h include/hwprof/maps.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/symbolize.h src/symbolize/build_id_lookup.h
src/session/session_internal.h:
include/hwprof/session.h:
include/hwprof/code_loc.h:
include/hwprof/hwprof.h:
include/hwprof/maps.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/symbolize.h:
src/symbolize/build_id_lookup.h:
