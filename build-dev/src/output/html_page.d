build-dev/src/output/html_page.o: src/output/html_page.c \
 include/hwprof/html_page.h include/hwprof/hwprof.h \
 include/hwprof/outbuf.h include/hwprof/table.h src/output/markup.h
include/hwprof/html_page.h:
include/hwprof/hwprof.h:
include/hwprof/outbuf.h:
include/hwprof/table.h:
src/output/markup.h:
