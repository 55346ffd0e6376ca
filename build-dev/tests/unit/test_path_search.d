build-dev/tests/unit/test_path_search: tests/unit/test_path_search.c \
 tests/unit/testlib.h src/util/path_search.h
tests/unit/testlib.h:
src/util/path_search.h:
