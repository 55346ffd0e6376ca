build-dev/src/symbolize/line_file.o: src/symbolize/line_file.c \
 src/symbolize/line_file.h
src/symbolize/line_file.h:
