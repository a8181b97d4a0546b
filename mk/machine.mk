# Machine files: `make validate` checks every shipped machine description.
# The machine loader's fuzz target is run by `make fuzz` (mk/fuzz.mk) with
# the other readers'.
validate:: fom
	./fom machine validate machines/*.xml
