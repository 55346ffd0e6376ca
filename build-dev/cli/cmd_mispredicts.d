build-dev/cli/cmd_mispredicts.o: cli/cmd_mispredicts.c cli/cli.h \
 include/hwprof/perf_data.h include/hwprof/perf_abi.h \
 include/hwprof/hwprof.h cli/cli_report.h include/hwprof/branch_collect.h \
 include/hwprof/branch_table.h include/hwprof/code_loc.h \
 include/hwprof/session.h include/hwprof/maps.h \
 include/hwprof/symbolize.h include/hwprof/table.h \
 include/hwprof/outbuf.h cli/report_fields.h cli/report_tables.h \
 cli/cli_flow.h include/hwprof/flow.h include/hwprof/paths.h \
 include/hwprof/advise.h include/hwprof/flow_diff.h \
 include/hwprof/branch_report.h include/hwprof/mispredicts.h
cli/cli.h:
include/hwprof/perf_data.h:
include/hwprof/perf_abi.h:
include/hwprof/hwprof.h:
cli/cli_report.h:
include/hwprof/branch_collect.h:
include/hwprof/branch_table.h:
include/hwprof/code_loc.h:
include/hwprof/session.h:
include/hwprof/maps.h:
include/hwprof/symbolize.h:
include/hwprof/table.h:
include/hwprof/outbuf.h:
cli/report_fields.h:
cli/report_tables.h:
cli/cli_flow.h:
include/hwprof/flow.h:
include/hwprof/paths.h:
include/hwprof/advise.h:
include/hwprof/flow_diff.h:
include/hwprof/branch_report.h:
include/hwprof/mispredicts.h:
