# Estimator: `make validate` (against the measured step times in tests/data/validate)
# and `make bench` (10k-op profile against a 100k-row table).

validate:: fom
	@FOM="$(CURDIR)/fom" python3 tests/validate.py

$(BUILD)/bench/estimate-bench: tests/bench/estimate-bench.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(OPT) $(CFLAGS) -o $@ $< $(LIB_OBJ) $(PKG_LIBS)

bench:: $(BUILD)/bench/estimate-bench
	@$(BUILD)/bench/estimate-bench

.PHONY: validate bench
