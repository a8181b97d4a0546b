#!/bin/sh
# Every command reads its command line with the one option parser
# (core/options.c): "--opt value", "--opt=value" and "-o=FILE" give the
# same result, "--" makes what follows arguments, -h or --help anywhere
# before "--" prints the help, and a bad command line exits 2 with the
# command's help and one error line, the whole of stderr compared.
. "$TESTS_DIR/t/lib.sh"

S=reports/candle-seed.xml
M=machines/h100-sxm5-80gb.xml
P=tests/data/traces/hostcpu/p1b2_hostcpu_fp32_b60.json.gz
EP=tests/data/estimate/small.profile.json
EM=tests/data/estimate/testgpu.xml
EK=tests/data/estimate/tables
KT=tests/data/kernels/h100_gemm.csv
DB="$T_TMP/k.db"

# keep: remember stdout; same WHAT: stdout equals the one kept.
keep() {
    cp "$OUT" "$T_TMP/kept"
    if [ -s "$T_TMP/kept" ]; then ok "output kept: $T_DESC"; else not_ok "empty output: $T_DESC"; fi
}
same() {
    if cmp -s "$OUT" "$T_TMP/kept"; then
        ok "same output: $T_DESC"
    else
        not_ok "output differs: $T_DESC"
        diff "$T_TMP/kept" "$OUT" | head -6 | sed 's/^/# /'
    fi
}
# same_file F: file F equals the stdout kept.
same_file() {
    if cmp -s "$1" "$T_TMP/kept"; then ok "$1 holds the same output"; else not_ok "$1 differs"; fi
}

# --- the forms of an option give the same result, command by command
fom_run 0 fom $S --format json
keep
fom_run 0 fom --format=json $S
same
fom_run 0 fom --format json -- $S
same
fom_run 0 fom $S -o="$T_TMP/fom.json" --format=json
same_file "$T_TMP/fom.json"

fom_run 0 machine show $M --format csv
keep
fom_run 0 machine show --format=csv $M
same
fom_run 0 machine show --format=csv -- $M
same

fom_run 0 ingest $P --top 0.9 --format-out json
keep
fom_run 0 ingest --top=0.9 --format-out=json $P
same
fom_run 0 ingest --top=0.9 --format-out=json -- $P
same
fom_run 0 ingest $P -o="$T_TMP/ingest.json" --top 0.9 --format-out=json
same_file "$T_TMP/ingest.json"

fom_run 0 estimate --profile $EP --machine $EM --kernels $EK --format csv
keep
fom_run 0 estimate --profile=$EP --machine=$EM --kernels=$EK --format=csv
same

fom_run 0 kernels import $KT --db "$DB"
fom_run 0 kernels list --db "$DB" --format csv
keep
fom_run 0 kernels list --db="$DB" --format=csv
same
fom_run 0 kernels shapes $P --format json
keep
fom_run 0 kernels shapes --format=json -- $P
same

fom_run 0 roofline --machine $M -o "$T_TMP/r1.svg"
fom_run 0 roofline --machine=$M -o="$T_TMP/r2.svg"
if [ -s "$T_TMP/r1.svg" ] && cmp -s "$T_TMP/r1.svg" "$T_TMP/r2.svg"; then
    ok "roofline: -o FILE and -o=FILE write the same chart"
else
    not_ok "roofline: the two charts differ or are empty"
fi

fom_run 0 report $S -o="$T_TMP/rep"
if [ -s "$T_TMP/rep/report.json" ]; then ok "report -o=DIR writes DIR/report.json"; else not_ok "no report.json in -o=DIR"; fi

# --- -h and --help anywhere before "--"; after it, an argument
for c in fom ingest estimate report roofline; do
    fom_run 0 $c --format json -h
    expect_out_contains "usage: fom $c"
done
fom_run 0 machine show $M --help
expect_out_contains "usage: fom machine show FILE"
fom_run 0 kernels list --db "$DB" -h
expect_out_contains "usage: fom kernels"
fom_run 3 fom -- --help
expect_golden_err t0004-fom-help-after-dashes

# --- bad command lines: exit 2, the command's help, then one error line
# usage_error NAME HELP-ARGS -- ARGS...: stderr is exactly the help of
# "fom HELP-ARGS --help" followed by the error line in golden NAME.msg.
usage_error() {
    name=$1; shift
    help_args=""
    while [ "$1" != "--" ]; do help_args="$help_args $1"; shift; done
    shift
    # shellcheck disable=SC2086
    "$FOM" $help_args --help >"$T_TMP/want" 2>&1
    cat "$GOLDEN/$name.msg" >>"$T_TMP/want"
    fom_run 2 "$@"
    if cmp -s "$ERR" "$T_TMP/want"; then
        ok "stderr is the help and $name.msg"
    else
        not_ok "stderr is not the help and $name.msg"
        diff "$T_TMP/want" "$ERR" | head -8 | sed 's/^/# /'
    fi
}
usage_error t0004-unknown fom -- fom $S --bogus
usage_error t0004-unknown-eq ingest -- ingest --bogus=1 $P
usage_error t0004-needs-value fom -- fom $S --format
usage_error t0004-needs-value-o estimate -- estimate --profile $EP --machine $EM -o
usage_error t0004-help-value roofline -- roofline --machine $M --help=yes
usage_error t0004-bad-format machine show -- machine show $M --format=xml
usage_error t0004-bad-format-out ingest -- ingest $P --format-out xml
usage_error t0004-bad-batch estimate -- estimate --profile $EP --machine $EM --batch=0
usage_error t0004-empty-o report -- report $S -o ""
usage_error t0004-missing-machine estimate -- estimate --profile $EP
usage_error t0004-missing-db kernels import -- kernels import $KT
usage_error t0004-not-of-sub kernels shapes -- kernels shapes $P --db "$DB"
usage_error t0004-not-of-validate machine validate -- machine validate --format json $M

done_testing
