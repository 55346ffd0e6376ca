build-dev/src/symbolize/demangle.o: src/symbolize/demangle.c \
 src/symbolize/demangle.h
src/symbolize/demangle.h:
