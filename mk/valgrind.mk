# `make valgrind-test`: the command-line tests (tests/t/*.sh) with every
# fom run under valgrind memcheck (tests/valgrind-fom.sh; errors and
# definite leaks exit 99).  Unit tests are left to the sanitizer build of
# `make check`.  Under valgrind the hostile tests allow 300 s per run
# (HOSTILE_TIMEOUT) and 120 s instead of 10 to refuse a gzip bomb
# (HOSTILE_FAST_S), and skip the benchmark-sized input (FOM_SKIP_BIG=1:
# the million-event trace of t6001).  About 8 minutes on 2 shared cores.
valgrind-test: fom
	@mkdir -p build/valgrind && cp fom build/valgrind/fom
	@FOM="$(CURDIR)/tests/valgrind-fom.sh" FOM_VALGRIND_BIN="$(CURDIR)/build/valgrind/fom" \
	  UNIT_DIR=/nonexistent \
	  HOSTILE_TIMEOUT=300 HOSTILE_FAST_S=120 FOM_SKIP_BIG=1 FOM_UNDER_VALGRIND=1 sh tests/run.sh

.PHONY: valgrind-test
