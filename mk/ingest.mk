# Ingest: throughput and memory of the streaming Kineto reader on a
# >= 1 GB trace (see tests/bench/ingest-bench.sh).
bench:: fom
	sh tests/bench/ingest-bench.sh
# Scale: a 100k-system study, 100k repeats of one problem, 1M distinct ops
# through ingest and estimate (see tests/bench/scale-bench.sh).
bench:: fom
	sh tests/bench/scale-bench.sh
