#!/bin/sh
# Errors in text inputs quote the offending line under the message, with a
# caret under the column, as jq does; the first line stays
# FILE:LINE[:COL]: error: ...  One case per reader, the whole of stderr
# compared with its golden file (tests/data/quote/ORIGIN.md says how each
# bad input was made).
. "$TESTS_DIR/t/lib.sh"
Q=tests/data/quote

fom_run 1 kernels import $Q/bad-time.csv --db "$T_TMP/k.db" --machine x
expect_golden_err t0005-kernel-csv
fom_run 1 kernels import $Q/unterminated.csv --db "$T_TMP/k.db" --machine x
expect_golden_err t0005-kernel-csv-quote
fom_run 1 kernels import $Q/bad-time.deepbench.txt --db "$T_TMP/k.db" --machine x
expect_golden_err t0005-deepbench-stdout
fom_run 1 ingest $Q/bad-time.profile.csv
expect_golden_err t0005-profile-csv
fom_run 1 ingest $Q/bad-time.tfprof.txt
expect_golden_err t0005-tfprof
fom_run 1 ingest $Q/bad-time.table.txt
expect_golden_err t0005-key-averages
# study XML: a libxml2 error (caret at its column), a value, a duplicate
fom_run 1 fom tests/data/study/unclosed.xml
expect_golden_err t0005-study-unclosed
fom_run 1 fom tests/data/study/time-nan.xml
expect_golden_err t0005-study-time-nan
fom_run 1 fom tests/data/study/dup-system.xml
expect_golden_err t0005-study-dup-system
# machine XML: a libxml2 error, a unit, a topology
fom_run 1 machine validate tests/data/machine/bad-unclosed.xml
expect_golden_err t0005-machine-unclosed
fom_run 1 machine validate tests/data/machine/bad-unit.xml
expect_golden_err t0005-machine-unit
fom_run 1 machine validate tests/data/machine/bad-network.xml
expect_golden_err t0005-machine-network

done_testing
