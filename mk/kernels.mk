# Kernel tables: `make bench` times 10k GEMM lookups against a generated
# 100k-row table beside a linear scan over the same rows.
KERNELS_BENCH = $(BUILD)/tests/bench-kernels

$(KERNELS_BENCH): tests/bench/bench-kernels.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(OPT) $(CFLAGS) -o $@ $< $(LIB_OBJ) $(PKG_LIBS)

bench:: $(KERNELS_BENCH)
	$(KERNELS_BENCH)

.PHONY: bench
