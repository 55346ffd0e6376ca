build-dev/src/analysis/mispredicts.o: src/analysis/mispredicts.c \
 src/analysis/wilson.h include/hwprof/mispredicts.h \
 include/hwprof/hwprof.h include/hwprof/branch_table.h \
 include/hwprof/code_loc.h
src/analysis/wilson.h:
include/hwprof/mispredicts.h:
include/hwprof/hwprof.h:
include/hwprof/branch_table.h:
include/hwprof/code_loc.h:
