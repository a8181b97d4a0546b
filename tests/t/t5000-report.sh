#!/bin/sh
# fom report and fom roofline: files written, numbers checked against
# independent arithmetic, honest-reporting content, names that try to inject
# markup or gnuplot commands, charts skipped without gnuplot, bad input.
. "$TESTS_DIR/t/lib.sh"
R="$DATA/report"
D="$T_TMP/out"

# with_file FILE CHECK ARGS...: run a lib.sh check on FILE instead of stdout
with_file() {
    f=$1; shift
    saved=$OUT; OUT=$f; "$@"; OUT=$saved
}
expect_file() {
    if [ -s "$1" ]; then ok "wrote $(basename "$1")"; else not_ok "missing or empty: $1"; fi
}
expect_no_file() {
    if [ -e "$1" ]; then not_ok "unexpected file $1"; else ok "no $(basename "$1")"; fi
}

# ---- the seed example ---------------------------------------------------
fom_run 0 report reports/candle-seed.xml -o "$D/seed"
for f in report.md report.html report.json ratios.svg ratios.png units-per-day.svg units-per-day.png; do
    expect_file "$D/seed/$f"
done
# Independent values (python3, exact fractions; see t2000): FOM 229125/2774,
# arithmetic mean of the ratios 125.749143836, harmonic 88.331105914.
with_file "$D/seed/report.json" expect_json_num 'd["fom"]' 82.597332372026 1e-9
with_file "$D/seed/report.json" expect_json_num 'd["mean_of_ratios"]["arithmetic"]' 125.74914383561644 1e-9
with_file "$D/seed/report.json" expect_json_num 'd["mean_of_ratios"]["harmonic"]' 88.33110591379887 1e-9
with_file "$D/seed/report.json" expect_json_num 'd["problems"][2]["units_per_day"]["A"]' 9024000 1e-12
with_file "$D/seed/report.json" expect_json_num 'len(d["breakdowns"])' 3 0
with_file "$D/seed/report.json" expect_json_num 'len(d["charts"])' 2 0
with_file "$D/seed/report.json" expect_json_num 'd["fom_ci"] is None' 1 0
# the base case named, each ratio beside its two rates, the FOM beside the
# means of ratios with the reason they differ, no invented interval
with_file "$D/seed/report.md" expect_out_contains 'Base case: **titan** (18688 nodes)'
with_file "$D/seed/report.md" expect_out_contains '| P1 | A | 94000 | 4 | 564000 | 75.45 = 564000 / 7475.2 |'
with_file "$D/seed/report.md" expect_out_contains '| P3 | A | 94000 | 0.25 | 9024000 | 241.44 = 9024000 / 37376 |'
with_file "$D/seed/report.md" expect_out_contains '= **82.597**, against an arithmetic mean of the per-problem ratios of 125.749 and a harmonic mean of 88.331'
# shares of titan's time: 1/7475.2 : 1/74752 : 1/37376 = 10 : 1 : 2 -> 76.9%, 7.7%, 15.4%
with_file "$D/seed/report.md" expect_out_contains '(P1 76.9%, P2 7.7%, P3 15.4%)'
with_file "$D/seed/report.md" expect_out_contains 'FOM confidence interval: CI unavailable. No problem has repeated measured times'
with_file "$D/seed/report.md" expect_out_contains '![Units of work per day per problem and system](units-per-day.svg)'
with_file "$D/seed/report.html" expect_out_contains '<svg'
with_file "$D/seed/report.html" expect_out_contains '<td>P2</td><td class="n">A</td>'
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$D/seed/report.json"; then
    ok "report.json is valid JSON"
else
    not_ok "report.json is not valid JSON"
fi
if head -c 8 "$D/seed/ratios.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'; then
    ok "ratios.png is a PNG"
else
    not_ok "ratios.png is not a PNG"
fi
# a second run over the same directory replaces the files
fom_run 0 report reports/candle-seed.xml -o "$D/seed"
if ls "$D/seed" | grep -q '\.tmp\.'; then not_ok "temporary files left"; else ok "no temporary files left"; fi

# ---- repeats: medians, intervals -----------------------------------------
fom_run 0 report "$R/repeats.xml" -o "$D/rep"
# medians (python3): old 10.1 h / 3.025 h, new 2.025 h / 1.01 h; nodes 100 / 50
#   ratio train-a = (24/2.025*50) / (24/10.1*100) = 10.1/2.025/2 = 2.49382716
with_file "$D/rep/report.json" expect_json_num 'd["problems"][0]["ratio"]' 2.4938271604938271 1e-9
# n = 6: the 95% order-statistic interval of a median is [min, max]
# (coverage 1 - 2/64), so the ratio range is old min / new max .. old max / new min
#   train-a: 9.5/2.2/2 = 2.15909091 .. 11/1.9/2 = 2.89473684
with_file "$D/rep/report.json" expect_json_num 'd["breakdowns"][0]["systems"]["new"]["ratio_interval"]["lo"]' 2.1590909090909092 1e-9
with_file "$D/rep/report.json" expect_json_num 'd["breakdowns"][0]["systems"]["new"]["ratio_interval"]["hi"]' 2.8947368421052633 1e-9
with_file "$D/rep/report.json" expect_json_num 'd["fom_ci"]["lo"] < d["fom"] < d["fom_ci"]["hi"]' 1 0
with_file "$D/rep/report.md" expect_out_contains '| train-a | new | 50 | 2.025 | 592.593 | 2.49 = 592.593 / 237.624 | 2.16 .. 2.89 |'
with_file "$D/rep/report.md" expect_out_contains 'percentile bootstrap over the repeated measurements (2000 resamples, fixed seed'

# ---- names that try to inject ---------------------------------------------
rm -f /tmp/fom-pwned-t5000
fom_run 0 report "$R/evil.xml" -o "$D/evil"
expect_no_file /tmp/fom-pwned-t5000
expect_file "$D/evil/ratios.svg"
if grep -qi '<script' "$D/evil/report.html" "$D/evil/ratios.svg" "$D/evil/units-per-day.svg"; then
    not_ok "a <script tag reached the HTML or SVG"
else
    ok "no <script tag in the HTML or SVG"
fi
with_file "$D/evil/report.html" expect_out_contains '&lt;script&gt;alert(1)&lt;/script&gt;'
with_file "$D/evil/report.html" expect_out_contains 'base&quot;; system(&quot;touch /tmp/fom-pwned-t5000&quot;); &quot;'
with_file "$D/evil/report.html" expect_out_contains 'P&lt;img src=x onerror=alert(2)&gt;'
with_file "$D/evil/report.html" expect_out_contains '<title>Evil &lt;script&gt;alert(&#39;study&#39;)&lt;/script&gt; `rm -rf` study</title>'
with_file "$D/evil/report.md" expect_out_contains '\`touch /tmp/fom-pwned-t5000\` '"'"' ; system\('"'"'touch /tmp/fom-pwned-t5000'"'"'\) ; '"'"
with_file "$D/evil/report.md" expect_out_contains 'Q\\n\`x\` \*\*bold\*\* \| pipe \_u\_ &amp; ^\{sup\}\_\{sub\} @ &amp;amp;'
# the SVG shows the names as text (gnuplot escapes < and &)
with_file "$D/evil/ratios.svg" expect_out_contains '&lt;script>alert(1)&lt;/script>'
# a name that opens with a quote (gnuplot would read '' as an empty string)
# (tick labels are cut at 32 bytes)
with_file "$D/evil/units-per-day.svg" expect_out_contains "<text>'; system(\"touch /tmp/fom-pwned-...</text>"
with_file "$D/evil/report.html" expect_out_contains "<td>&#39;; system(&quot;touch /tmp/fom-pwned-t5000&quot;); print &#39;</td>"
# JSON keeps the names exactly
if python3 - "$D/evil/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ids = [s["id"] for s in d["systems"]]
want = ['base"; system("touch /tmp/fom-pwned-t5000"); "', '<script>alert(1)</script>',
        "`touch /tmp/fom-pwned-t5000` ' ; system('touch /tmp/fom-pwned-t5000') ; '"]
sys.exit(0 if ids == want else 1)
PY
then ok "report.json keeps the names verbatim"; else not_ok "report.json changed the names"; fi

# ---- no gnuplot: text and JSON still written --------------------------------
# fom runs with a PATH that holds no gnuplot; the test's own tools keep theirs
NOGP="$T_TMP/fom-nogp"
printf '#!/bin/sh\nPATH=/nonexistent-dir exec "%s" "$@"\n' "$FOM" >"$NOGP"
chmod +x "$NOGP"
REAL_FOM=$FOM
FOM=$NOGP
fom_run 0 report reports/candle-seed.xml -o "$D/nogp"
expect_err_contains 'warning: charts skipped: gnuplot not found'
expect_file "$D/nogp/report.md"
expect_file "$D/nogp/report.json"
expect_no_file "$D/nogp/ratios.svg"
with_file "$D/nogp/report.md" expect_out_contains 'charts skipped: gnuplot not found'
FOM=$REAL_FOM

# ---- bad input ---------------------------------------------------------------
fom_run 1 report "$R/bad-nodes.xml" -o "$D/bad"
expect_err_contains 'bad-nodes.xml:4: error:'
expect_no_file "$D/bad"
fom_run 2 report reports/candle-seed.xml
expect_err_contains 'error: missing -o DIR'
fom_run 2 report -o "$D/x"
expect_err_contains 'error: no study file given'
fom_run 2 report reports/candle-seed.xml -o "$D/x" --bogus
expect_err_contains "unknown option '--bogus'"
: >"$T_TMP/afile"
fom_run 3 report reports/candle-seed.xml -o "$T_TMP/afile"
expect_err_contains "is not a directory"

# ---- fom roofline ------------------------------------------------------------
mkdir -p "$D"
fom_run 0 roofline --machine "$R/h100.xml" -o "$D/roof.svg"
with_file "$D/roof.svg" expect_out_contains 'arithmetic intensity [FLOP/byte]'
with_file "$D/roof.svg" expect_out_contains 'attainable rate [TFLOP/s]'
with_file "$D/roof.svg" expect_out_contains 'HBM3 3.35 TB/s'
# equal peaks share a line: bf16 and fp16 matrix are both 989.4 TFLOP/s
with_file "$D/roof.svg" expect_out_contains 'bf16, fp16 matrix 989.4 TFLOP/s'
with_file "$D/roof.svg" expect_out_contains 'fp8, int8 matrix 1.979 P(FL)OP/s'
fom_run 0 roofline --machine "$R/h100.xml" --profile "$R/p3b1_h200_fp32_b10.json.gz" -o "$D/roof.png"
if head -c 8 "$D/roof.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'; then
    ok "roof.png is a PNG"
else
    not_ok "roof.png is not a PNG"
fi
fom_run 0 roofline --machine "$R/h100.xml" --profile "$R/p3b1_h200_fp32_b10.json.gz" -o "$D/roofp.svg"
# python3 on `fom ingest --format-out json`: 20 of the 37 ops have flops, bytes and time
with_file "$D/roofp.svg" expect_out_contains '20 of 37 ops of p3b1_h200_fp32_b10.json.gz at their measured rate on NVIDIA H200'
with_file "$D/roofp.svg" expect_out_contains '>gemm<'
expect_err_contains 'the trace was measured on NVIDIA H200, not on NVIDIA H100 SXM5 80GB'
# with kernel tables the ops sit at their rates estimated for this machine
fom_run 0 roofline --machine "$R/h100.xml" --profile "$R/p3b1_h200_fp32_b10.json.gz" --kernels estimators/h100 -o "$D/roofe.svg"
with_file "$D/roofe.svg" expect_out_contains 'p3b1_h200_fp32_b10.json.gz at their estimated rate on this machine'
fom_run 2 roofline --machine "$R/h100.xml" --kernels estimators/h100 -o "$D/roofk.svg"
expect_err_contains 'error: --kernels needs --profile'
fom_run 2 roofline --machine "$R/h100.xml" -o "$D/roof.pdf"
expect_err_contains "found output '$D/roof.pdf', expected a file name ending in .svg or .png"
expect_no_file "$D/roof.pdf"
fom_run 2 roofline -o "$D/r.svg"
expect_err_contains 'error: missing --machine FILE'
fom_run 1 roofline --machine "$R/bad-machine.xml" -o "$D/r.svg"
expect_err_contains 'bad-machine.xml:4: error:'
expect_no_file "$D/r.svg"
FOM=$NOGP
fom_run 3 roofline --machine "$R/h100.xml" -o "$D/r.svg"
expect_err_contains 'gnuplot not found'
expect_no_file "$D/r.svg"
FOM=$REAL_FOM

# ---- fom machine compare --chart -----------------------------------------------
cp "$R/h100.xml" "$T_TMP/second.xml"
fom_run 0 machine compare "$R/h100.xml" "$T_TMP/second.xml" --chart "$D/cmp.svg"
with_file "$D/cmp.svg" expect_out_contains 'peak [TFLOP/s] (int8: TOP/s), log scale'
with_file "$D/cmp.svg" expect_out_contains 'bandwidth [TB/s]'
with_file "$D/cmp.svg" expect_out_contains '>NVIDIA H100 SXM5 80GB<'
fom_run 2 machine compare "$R/h100.xml" "$T_TMP/second.xml" --chart "$D/cmp.pdf"
expect_err_contains "found chart '$D/cmp.pdf', expected a file name ending in .svg or .png"
if [ -s "$OUT" ]; then not_ok "compare printed before refusing the chart name"; else ok "nothing printed before the usage error"; fi
fom_run 1 machine compare "$R/h100.xml" "$R/bad-machine.xml" --chart "$D/cmp2.svg"
expect_no_file "$D/cmp2.svg"

done_testing
