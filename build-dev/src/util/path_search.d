build-dev/src/util/path_search.o: src/util/path_search.c \
 src/util/path_search.h
src/util/path_search.h:
