# Memory estimate: `make validate` compares it with the peak memory measured
# on the development set (profiles/devset, torch.cuda.max_memory_allocated).
validate:: fom
	@FOM="$(CURDIR)/fom" python3 tests/validate_memory.py
