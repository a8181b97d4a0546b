#!/bin/sh
# fom machine validate: every shipped machine file, usage errors, help.
. "$TESTS_DIR/t/lib.sh"

n=0
for f in machines/*.xml; do
    fom_run 0 machine validate "$f"
    expect_out_contains "$f: ok"
    n=$((n + 1))
done

fom_run 0 machine validate machines/*.xml
if [ "$(grep -c ': ok$' "$OUT")" -eq "$n" ] && [ "$n" -ge 8 ]; then
    ok "all $n machine files ok in one run"
else
    not_ok "expected $n ok lines (at least 8)"
fi

# A bad file among good ones: the good ones are still checked and listed.
fom_run 1 machine validate machines/h100-sxm5-80gb.xml tests/data/machine/bad-unit.xml machines/h200-sxm-141gb.xml
expect_out_contains "machines/h100-sxm5-80gb.xml: ok"
expect_out_contains "machines/h200-sxm-141gb.xml: ok"
expect_err_contains "tests/data/machine/bad-unit.xml:7: error: found unit 'GHz' in <memory bandwidth>"

fom_run 0 machine validate tests/data/machine/good.xml -o "$T_TMP/v.txt"
if [ ! -s "$OUT" ] && grep -qF "tests/data/machine/good.xml: ok" "$T_TMP/v.txt"; then
    ok "-o writes the report to the file"
else
    not_ok "-o did not write $T_TMP/v.txt"
fi

fom_run 3 machine validate tests/data/machine/no-such-file.xml
expect_err_contains "error: cannot open 'tests/data/machine/no-such-file.xml'"

fom_run 0 machine --help
expect_out_contains "usage: fom machine validate FILE..."
expect_out_contains "fom machine compare BASE.xml OTHER.xml..."
for sub in validate show compare; do
    fom_run 0 machine $sub --help
    expect_out_contains "usage: fom machine $sub"
done

fom_run 2 machine
expect_err_contains "error: no subcommand given, expected validate, show or compare"
fom_run 2 machine frob
expect_err_contains "error: found subcommand 'frob', expected validate, show or compare"
fom_run 2 machine validate
expect_err_contains "error: found 0 machine files, expected one or more"
fom_run 2 machine show machines/h100-sxm5-80gb.xml machines/h200-sxm-141gb.xml
expect_err_contains "error: found 2 machine files, expected one"
fom_run 2 machine compare machines/h100-sxm5-80gb.xml
expect_err_contains "error: found 1 machine file, expected two or more"
fom_run 2 machine show machines/h100-sxm5-80gb.xml --format xml
expect_err_contains "error: --format: found 'xml', expected text, json or csv"
fom_run 2 machine show machines/h100-sxm5-80gb.xml --bogus
expect_err_contains "error: unknown option '--bogus'"
fom_run 2 machine show machines/h100-sxm5-80gb.xml -o
expect_err_contains "error: option '-o' needs a value"

done_testing
