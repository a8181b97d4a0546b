#!/bin/sh
# fom report: the summary says what a node is (devices per node, from the
# machine file), "1 node" is singular, and a log axis starts at a labelled
# tick.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

cat >"$T_TMP/s.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<study name="nodes" baseline="one">
  <system id="one" nodes="1" machine="$ROOT/machines/h100-sxm5-80gb.xml"/>
  <system id="four" nodes="4" machine="$ROOT/machines/hgx-h200-8gpu.xml"/>
  <system id="bare" nodes="3"/>
  <problem id="P1">
    <time system="one" per-unit="10h"/>
    <time system="four" per-unit="2h"/>
    <time system="bare" per-unit="50h"/>
  </problem>
</study>
XML
fom_run 0 report "$T_TMP/s.xml" -o "$T_TMP/r"
MD="$T_TMP/r/report.md"
for want in "Base case: **one** (1 node of 1 x NVIDIA H100 80GB HBM3)" \
            "| one (base) | 1 node of 1 x NVIDIA H100 80GB HBM3 |" \
            "| four | 4 nodes of 8 x NVIDIA H200 |" \
            "| bare | 3 nodes |" \
            "System **one**: 1 node of 1 x NVIDIA H100 80GB HBM3;"; do
    if grep -qF -- "$want" "$MD"; then ok "report.md has '$want'"; else not_ok "report.md lacks '$want'"; fi
done
if grep -q "[^0-9]1 nodes" "$MD"; then not_ok "report.md says '1 nodes'"; else ok "no '1 nodes'"; fi
if grep -qF "1 node of 1 x NVIDIA H100 80GB HBM3" "$T_TMP/r/report.html"; then ok "report.html says what a node is"; else not_ok "report.html lacks the node"; fi

# units per day span 1.2 (bare: 3 x 24/50) to 48 (four: 4 x 24/2) on a log
# axis: its first tick label is a power of ten at or below the smallest bar
if [ -f "$T_TMP/r/units-per-day.svg" ]; then
    first=$(sed -n 's|.*<text>\([0-9.e+]*\)</text>.*|\1|p' "$T_TMP/r/units-per-day.svg" | head -1)
    if python3 -c "import math,sys; v=float(sys.argv[1]); sys.exit(0 if v <= 1.2 and abs(math.log10(v) - round(math.log10(v))) < 1e-9 else 1)" "$first"; then
        ok "log axis labelled from its first tick ($first)"
    else
        not_ok "first tick label '$first'"
    fi
else
    ok "# skip: no gnuplot"
fi

done_testing
