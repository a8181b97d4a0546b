# Data-parallel runs: `make validate` checks the step estimate with the
# gradient exchange against measured DDP steps (profiles/devset/ddp).

validate:: fom
	@FOM="$(CURDIR)/fom" python3 tests/validate_comm.py
