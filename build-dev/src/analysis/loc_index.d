build-dev/src/analysis/loc_index.o: src/analysis/loc_index.c \
 src/analysis/loc_index.h src/util/hash.h src/util/hashmap.h \
 src/util/vec.h
src/analysis/loc_index.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/vec.h:
