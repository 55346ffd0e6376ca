build-dev/tests/unit/test_hashmap: tests/unit/test_hashmap.c \
 tests/unit/testlib.h src/util/hash.h src/util/hashmap.h src/util/vec.h
tests/unit/testlib.h:
src/util/hash.h:
src/util/hashmap.h:
src/util/vec.h:
