# Fuzzing and hostile-input checks.
#
#   make fuzz [FUZZ_SECONDS=N]   build every libFuzzer target (clang,
#                                -fsanitize=fuzzer,address,undefined) and run
#                                each for N seconds (default 60) from its seeds
#   make fuzz-build              only build them
#   make fuzz-replay             replay the checked-in corpora (seeds and past
#                                crashers) without libFuzzer; `make test` and
#                                `make check` do the same through u-hostile-replay
#
# A target is tests/fuzz/fuzz-NAME.c with seeds in tests/fuzz/corpus/NAME/.
# Runs grow a working corpus in build/fuzz/corpus-NAME/ (seeded from the
# checked-in one) and leave crashers as build/fuzz/NAME-crash-*; copy a
# fixed crasher into tests/fuzz/corpus/NAME/ so it is replayed for good.
# The library is compiled once more with clang into build/fuzz/obj/.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 \
	-fno-omit-frame-pointer -Isrc $(PKG_CFLAGS) $(FUZZ_SAN)
FUZZ_NAMES = $(patsubst tests/fuzz/fuzz-%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BINS = $(patsubst %,build/fuzz/fuzz-%,$(FUZZ_NAMES))
FUZZ_LIB_OBJ = $(patsubst src/%.c,build/fuzz/obj/%.o,$(LIB_SRC))

# Longest input libFuzzer builds; traces need room for a few events.
FUZZ_MAXLEN_kineto = 65536
FUZZ_MAXLEN_ingest-auto = 65536
FUZZ_MAXLEN_tf-timeline = 32768
FUZZ_MAXLEN_units = 64
fuzz_maxlen = $(or $(FUZZ_MAXLEN_$(1)),16384)

build/fuzz/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz-file.h $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(PKG_LIBS)

-include $(FUZZ_LIB_OBJ:.o=.d)

fuzz-build: $(FUZZ_BINS)

# fuzz-run-NAME runs one target; -timeout turns an input that takes over
# 10 s into a reported hang, -rss_limit_mb one that needs over 2 GB into a
# reported memory blow-up.  The executions and peak memory are printed from
# libFuzzer's final statistics (the whole log is build/fuzz/NAME.log).
fuzz-run-%: build/fuzz/fuzz-% FORCE_FUZZ
	@mkdir -p build/fuzz/corpus-$*
	@cp tests/fuzz/corpus/$*/* build/fuzz/corpus-$*/
	@echo "fuzz-$*: $(FUZZ_SECONDS) s"
	@build/fuzz/fuzz-$* -max_total_time=$(FUZZ_SECONDS) -max_len=$(call fuzz_maxlen,$*) \
	  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	  -artifact_prefix=build/fuzz/$*- build/fuzz/corpus-$* \
	  >build/fuzz/$*.log 2>&1 || { tail -60 build/fuzz/$*.log; exit 1; }
	@grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' build/fuzz/$*.log | sed 's/^/  /'

fuzz:: $(patsubst %,fuzz-run-%,$(FUZZ_NAMES))

fuzz-replay: units
	$(BUILD)/tests/u-hostile-replay

.PHONY: fuzz-build fuzz-replay
FORCE_FUZZ:
