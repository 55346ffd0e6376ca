build-dev/cli/report_fields.o: cli/report_fields.c cli/report_fields.h \
 include/hwprof/code_loc.h include/hwprof/hwprof.h \
 include/hwprof/symbolize.h include/hwprof/table.h \
 include/hwprof/outbuf.h include/hwprof/branch_report.h \
 include/hwprof/branch_table.h
cli/report_fields.h:
include/hwprof/code_loc.h:
include/hwprof/hwprof.h:
include/hwprof/symbolize.h:
include/hwprof/table.h:
include/hwprof/outbuf.h:
include/hwprof/branch_report.h:
include/hwprof/branch_table.h:
