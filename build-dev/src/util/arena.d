build-dev/src/util/arena.o: src/util/arena.c src/util/arena.h
src/util/arena.h:
