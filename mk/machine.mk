# Machine files: `make validate` checks every shipped machine description.
validate:: fom
	./fom machine validate machines/*.xml
