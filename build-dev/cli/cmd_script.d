build-dev/cli/cmd_script.o: cli/cmd_script.c cli/cli.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h include/hwprof/outbuf.h \
 include/hwprof/perf_script.h include/hwprof/maps.h \
 include/hwprof/sample_json.h include/hwprof/json.h \
 include/hwprof/session.h include/hwprof/code_loc.h \
 include/hwprof/symbolize.h
cli/cli.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
include/hwprof/outbuf.h:
include/hwprof/perf_script.h:
include/hwprof/maps.h:
include/hwprof/sample_json.h:
include/hwprof/json.h:
include/hwprof/session.h:
include/hwprof/code_loc.h:
include/hwprof/symbolize.h:
