#!/bin/sh
# Values at the edges of a double: a time below the smallest positive one
# and a rate beyond the largest are named as such (not as a wrong unit); a
# ratio of 2.8e-304 prints in scientific notation (not 0.00) and its chart
# is drawn on a log axis.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
. "$TESTS_DIR/t/hostile.sh"
cd "$T_TMP" || exit 1

study() { # FILE TIME_OF_B
    printf '<?xml version="1.0"?>\n<study name="edge" baseline="a">\n<system id="a" nodes="1"/>\n<system id="b" nodes="1"/>\n<problem id="P1">\n<time system="a" per-unit="1s"/>\n<time system="b" per-unit="%s"/>\n</problem>\n</study>\n' "$2" >"$1"
}

study small.xml 1e-320s
hostile_run 1 fom small.xml
expect_err_contains "small.xml:7: error: found per-unit='1e-320s', expected a time of at least 2.2e-308 s (the value is below the smallest positive time)"
study huge.xml "1e400 h"
hostile_run 1 fom huge.xml
expect_err_contains "huge.xml:7: error: found per-unit='1e400 h', expected a time below 1.8e308 s (the value is out of range, not the unit)"

sed 's|<peak precision="bf16" unit="matrix">[^<]*</peak>|<peak precision="bf16" unit="matrix">1e300 TFLOP/s</peak>|' \
    "$DATA/machine/good.xml" >m.xml
line=$(grep -n '1e300 TFLOP/s' m.xml | cut -d: -f1)
hostile_run 1 machine validate m.xml
expect_err_contains "m.xml:$line: error: found '1e300 TFLOP/s' in <peak>, expected a rate below 1.8e308 FLOP/s (the value is out of range, not the unit)"
if grep -q "found unit" "$ERR"; then not_ok "the unit is blamed"; else ok "the unit is not blamed"; fi

# b takes 1e300 h where a takes 1 s: b's ratio is 1 / 3.6e303 = 2.78e-304
study tiny.xml 1e300h
hostile_run 0 fom tiny.xml
expect_out_contains "2.78e-304"
expect_out_contains "FOM of b = H(b) / H(a) = 2.4e-299 / 86400 = 2.778e-304"
if grep -E '^(P1 +)?b ' "$OUT" | grep -qE ' 0\.0+( |$)'; then not_ok "a ratio printed as zero"; grep -E '^(P1 +)?b ' "$OUT" | sed 's/^/# /'
else ok "no ratio printed as zero"; fi
hostile_run 0 report tiny.xml -o rep
if grep -qF "**2.778e-304**" rep/report.md; then ok "report.md prints the FOM in scientific notation"; else not_ok "report.md FOM: $(grep -o 'FOM of b[^,]*' rep/report.md)"; fi
if [ -f rep/ratios.svg ]; then
    # a log axis from 1e-304 to 1e-303 and the bars' labels
    if grep -q '> *1e-304<' rep/ratios.svg && grep -q '> *1e-303<' rep/ratios.svg; then ok "ratio chart on a log axis"
    else not_ok "ratio chart axis: $(grep -o '<text>[^<]*</text>' rep/ratios.svg | head -5 | tr '\n' ' ')"; fi
    if grep -q '> *2.78e-304<' rep/ratios.svg; then ok "ratio chart labels the bar"; else not_ok "ratio chart lacks the bar's label"; fi
else
    ok "# SKIP no gnuplot: the ratio chart is not drawn"
fi
done_testing
