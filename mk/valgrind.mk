# `make valgrind-test`: the command-line tests (tests/t/*.sh) with every
# fom run under valgrind memcheck (tests/valgrind-fom.sh; errors and
# definite leaks exit 99).  Unit tests are left to the sanitizer build of
# `make check`.  Under valgrind the hostile tests allow 300 s per run
# (HOSTILE_TIMEOUT) and 120 s instead of 10 to refuse a gzip bomb
# (HOSTILE_FAST_S), and skip the benchmark-sized input (FOM_SKIP_BIG=1:
# the million-event trace of t6001).  VALGRIND_EVERY=N puts one command
# line in about N under valgrind (tests/valgrind-fom.sh says which).  One
# in four took 9 minutes on 2 cores (CI's machine, two files at a time);
# every one, run one file at a time, did not end within the hour CI had
# left, so `make check` samples a quarter; `make valgrind-test` runs all.
VALGRIND_EVERY ?= 1
valgrind-test: fom
	@mkdir -p build/valgrind && cp fom build/valgrind/fom
	@FOM="$(CURDIR)/tests/valgrind-fom.sh" FOM_VALGRIND_BIN="$(CURDIR)/build/valgrind/fom" \
	  FOM_VALGRIND_EVERY=$(VALGRIND_EVERY) \
	  UNIT_DIR=/nonexistent \
	  HOSTILE_TIMEOUT=300 HOSTILE_FAST_S=120 FOM_SKIP_BIG=1 FOM_UNDER_VALGRIND=1 sh tests/run.sh

.PHONY: valgrind-test
