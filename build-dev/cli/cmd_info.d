build-dev/cli/cmd_info.o: cli/cmd_info.c cli/cli.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h include/hwprof/attr_names.h \
 include/hwprof/file_stats.h include/hwprof/json.h \
 include/hwprof/outbuf.h
cli/cli.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
include/hwprof/attr_names.h:
include/hwprof/file_stats.h:
include/hwprof/json.h:
include/hwprof/outbuf.h:
