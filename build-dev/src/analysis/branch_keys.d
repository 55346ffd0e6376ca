build-dev/src/analysis/branch_keys.o: src/analysis/branch_keys.c \
 include/hwprof/branch_report.h include/hwprof/hwprof.h \
 include/hwprof/branch_table.h include/hwprof/code_loc.h \
 include/hwprof/symbolize.h
include/hwprof/branch_report.h:
include/hwprof/hwprof.h:
include/hwprof/branch_table.h:
include/hwprof/code_loc.h:
include/hwprof/symbolize.h:
