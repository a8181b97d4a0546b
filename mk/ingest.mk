# Ingest: throughput and memory of the streaming Kineto reader on a
# >= 1 GB trace (see tests/bench/ingest-bench.sh).
bench:: fom
	sh tests/bench/ingest-bench.sh
