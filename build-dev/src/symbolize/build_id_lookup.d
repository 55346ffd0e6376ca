build-dev/src/symbolize/build_id_lookup.o: \
 src/symbolize/build_id_lookup.c src/symbolize/build_id_lookup.h
src/symbolize/build_id_lookup.h:
