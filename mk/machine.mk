# Machine files: `make validate` checks every shipped machine description;
# `make fuzz` builds the machine loader fuzzer (clang, libFuzzer) and runs
# it briefly from the shipped files.
validate:: fom
	./fom machine validate machines/*.xml

MACHINE_FUZZ_SRC = tests/fuzz/fuzz-machine-xml.c src/ingest/machine_xml.c \
	src/core/diag.c src/core/strbuf.c src/core/units.c src/core/xalloc.c \
	src/model/machine.c src/model/precision.c

build/fuzz/fuzz-machine-xml: $(MACHINE_FUZZ_SRC)
	@mkdir -p $(dir $@)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 -Isrc \
	  $(shell pkg-config --cflags libxml-2.0) -fsanitize=fuzzer,address,undefined \
	  -o $@ $(MACHINE_FUZZ_SRC) $(shell pkg-config --libs libxml-2.0) -lm

fuzz:: build/fuzz/fuzz-machine-xml
	@mkdir -p build/fuzz/corpus-machine
	cp machines/*.xml tests/data/machine/*.xml build/fuzz/corpus-machine/
	build/fuzz/fuzz-machine-xml -max_total_time=$${FUZZ_SECONDS:-60} -max_len=8192 build/fuzz/corpus-machine
