#!/bin/sh
# The command table: help, version, unknown commands and usage errors.
. "$TESTS_DIR/t/lib.sh"

fom_run 0 --version
expect_out_contains "fom "

fom_run 0 help
for c in ingest estimate fom report machine kernels roofline; do
    expect_out_contains "  $c"
done

fom_run 2
expect_err_contains "usage: fom <command>"

fom_run 2 estimat
expect_golden_err t0000-unknown-estimat

fom_run 2 frobnicate
expect_err_contains "'frobnicate' is not a fom command"
# "frob" is two edits from "fom" but shares nothing of substance: no suggestion
fom_run 2 frob
if grep -q "most similar" "$ERR"; then not_ok "fom frob suggests a command"; else ok "fom frob suggests nothing"; fi
fom_run 2 reprot
expect_err_contains "the most similar command is"

for c in ingest estimate fom report machine kernels roofline; do
    fom_run 0 $c --help
    expect_out_contains "usage: fom $c"
    fom_run 0 help $c
    expect_out_contains "usage: fom $c"
done

done_testing
