#!/bin/sh
# Malformed machine files: exit 1 and "file:line: error:" on stderr.
. "$TESTS_DIR/t/lib.sh"

D=tests/data/machine
fom_run 1 machine validate $D/bad-unclosed.xml
expect_err_contains "$D/bad-unclosed.xml:6: error: opening and ending tag mismatch: vendor"

fom_run 1 machine show $D/bad-unit.xml
expect_err_contains "$D/bad-unit.xml:7: error: found unit 'GHz' in <memory bandwidth>, expected a number with a bandwidth unit"
if [ -s "$OUT" ]; then not_ok "output despite error"; else ok "no output on error"; fi

fom_run 1 machine validate $D/bad-zero.xml
expect_err_contains "$D/bad-zero.xml:6: error: found '0 TFLOP/s' in <peak>, expected a value greater than zero"

# External entity: refused at its declaration, the file is never read.
fom_run 1 machine show $D/bad-xxe.xml
expect_err_contains "$D/bad-xxe.xml:2: error: found entity declaration 'x', expected no entities"
if grep -q "root:" "$OUT" "$ERR"; then not_ok "/etc/passwd leaked"; else ok "/etc/passwd not in the output"; fi

# Network fields: a node topology on the inter-node link, and NICs that
# only a network has.
fom_run 1 machine validate $D/bad-network.xml
expect_err_contains "$D/bad-network.xml:9: error: found topology=\"switch\" on the inter-node link, expected fat-tree, dragonfly or torus"
sed '8s/ topology="switch"/ nics="2"/; 9s/topology="switch"/topology="fat-tree"/' $D/bad-network.xml >"$T_TMP/nics.xml"
fom_run 1 machine validate "$T_TMP/nics.xml"
expect_err_contains "$T_TMP/nics.xml:8: error: found nics=\"2\" on the intra-node link, expected nics only on <link scope=\"inter-node\">"

# Values written in a shell-made file, to check the message of each.
bad() { # name, line 6 peak text, line 7 memory attributes
    printf '<?xml version="1.0"?>\n<machine id="t" kind="gpu">\n<name>T</name>\n<vendor>V</vendor>\n<devices-per-node>1</devices-per-node>\n<peak precision="fp32" unit="vector">%s</peak>\n<memory level="HBM" %s/>\n<source>s</source>\n</machine>\n' "$2" "$3" >"$T_TMP/$1.xml"
}
bad nan "nan TFLOP/s" 'bandwidth="1 TB/s"'
fom_run 1 machine validate "$T_TMP/nan.xml"
expect_err_contains "$T_TMP/nan.xml:6: error: found 'nan TFLOP/s' in <peak>, expected a number with a rate unit"
bad neg "10 TFLOP/s" 'bandwidth="-1 TB/s"'
fom_run 1 machine validate "$T_TMP/neg.xml"
expect_err_contains "$T_TMP/neg.xml:7: error: found '-1 TB/s' in <memory bandwidth>, expected a value greater than zero"
bad nounit "10 TFLOP/s" 'capacity="16" bandwidth="1 TB/s"'
fom_run 1 machine validate "$T_TMP/nounit.xml"
expect_err_contains "$T_TMP/nounit.xml:7: error: found '16' with no unit in <memory capacity>, expected a number with a size unit"
bad nobw "10 TFLOP/s" 'capacity="16 GB"'
fom_run 1 machine validate "$T_TMP/nobw.xml"
expect_err_contains "$T_TMP/nobw.xml:7: error: found <memory level=\"HBM\"> without bandwidth"

# The recurrent layer's host time per step: a time, above zero.
L=$(grep -n "rnn-forward-step" machines/h100-sxm5-80gb.xml | tail -1 | cut -d: -f1)
sed 's/rnn-forward-step="26 us"/rnn-forward-step="26 GB"/' machines/h100-sxm5-80gb.xml >"$T_TMP/rnnunit.xml"
fom_run 1 machine validate "$T_TMP/rnnunit.xml"
expect_err_contains "$T_TMP/rnnunit.xml:$L: error: found unit 'GB' in <overheads rnn-forward-step>, expected a number with a time unit"
sed 's/rnn-backward-step="32 us"/rnn-backward-step="0 us"/' machines/h100-sxm5-80gb.xml >"$T_TMP/rnnzero.xml"
fom_run 1 machine validate "$T_TMP/rnnzero.xml"
expect_err_contains "$T_TMP/rnnzero.xml:$L: error: found '0 us' in <overheads rnn-backward-step>, expected a value greater than zero"

done_testing
