build-dev/src/util/hashmap.o: src/util/hashmap.c src/util/hashmap.h
src/util/hashmap.h:
