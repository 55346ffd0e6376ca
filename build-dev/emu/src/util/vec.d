build-dev/emu/src/util/vec.o: src/util/vec.c src/util/vec.h
src/util/vec.h:
