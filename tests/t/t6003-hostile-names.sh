#!/bin/sh
# SQL text in kernel names, hardware names and file names is stored and
# shown verbatim (prepared statements only); paths with spaces, quotes,
# semicolons and dollar signs work for every command's file arguments and
# -o.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
. "$TESTS_DIR/t/hostile.sh"

EVIL="x'); DROP TABLE kernel; --"
D="$T_TMP/dir with space 'q' \"dq\" ; \$HOME"
mkdir -p "$D"
DB="$D/k's \"db\".db"

# hardware name from --machine and from a published CSV's hw column
hostile_run 0 kernels import "$DATA/kernels/h100_eltwise.csv" --db "$DB" --machine "$EVIL"
printf 'hw,precision,app,m,n,k,a_t,b_t,time_ms,tflops\n%s,fp32,,64,64,64,N,N,0.01,1\n"a,""b"";DELETE FROM kernel",fp32,,64,64,128,N,N,0.02,1\n' \
    "Robert'); DROP TABLE kernel;--" >"$D/pub 'evil'.csv"
hostile_run 0 kernels import "$D/pub 'evil'.csv" --db "$DB"
hostile_run 0 kernels list --db "$DB" --format json
if python3 - "$OUT" "$EVIL" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d if isinstance(d, list) else next(v for v in d.values() if isinstance(v, list))
names = {r.get('hw') or r.get('hardware') or r.get('machine') for r in rows}
want = {sys.argv[2], "Robert'); DROP TABLE kernel;--", 'a,"b";DELETE FROM kernel'}
print('# names: %r' % sorted(n for n in names if n))
sys.exit(0 if want <= names else 1)
PY
then ok "hardware names with SQL stored verbatim"; else not_ok "hardware names with SQL not stored verbatim"; fi
# the table survived: the first import's rows are still there
n_elt=$(grep -c . "$DATA/kernels/h100_eltwise.csv")
hostile_run 0 kernels list --db "$DB" --format csv
if grep -F -- "$EVIL" "$OUT" | grep -q eltwise; then ok "kernel table intact after the evil names"; else not_ok "eltwise rows of '$EVIL' gone"; fi
# and it can be read back by the estimator under that name
hostile_run 0 estimate --profile "$DATA/estimate/small.profile.json" --machine "$DATA/estimate/testgpu.xml" --kernels "$DB"

# every command with its files in the evil directory
cp "$DATA/estimate/small.profile.json" "$D/p 'x' \"y\".json"
cp "$DATA/estimate/testgpu.xml" "$D/m 'x' \"y\".xml"
printf '<?xml version="1.0"?>\n<study name="s" baseline="a">\n<system id="a" nodes="1"/>\n<system id="b" nodes="2"/>\n<problem id="P1">\n<time system="a" per-unit="1h"/>\n<time system="b" per-unit="2h"/>\n</problem>\n</study>\n' >"$D/s 'x' \"y\".xml"
cp "$DATA/tables/small.table.txt" "$D/t 'x' \"y\".txt"
hostile_run 0 ingest "$D/t 'x' \"y\".txt" --format-out json -o "$D/out 'x' \"y\".json"
if [ -s "$D/out 'x' \"y\".json" ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$D/out 'x' \"y\".json"; then
    ok "ingest -o into a quoted path"; else not_ok "ingest -o into a quoted path"; fi
hostile_run 0 ingest "$D/out 'x' \"y\".json"
hostile_run 0 estimate --profile "$D/p 'x' \"y\".json" --machine "$D/m 'x' \"y\".xml" --kernels "$DB" --format csv
hostile_run 0 machine validate "$D/m 'x' \"y\".xml"
hostile_run 0 machine show "$D/m 'x' \"y\".xml"
hostile_run 0 machine compare "$D/m 'x' \"y\".xml" "$DATA/machine/good.xml"
hostile_run 0 fom "$D/s 'x' \"y\".xml" --format json
hostile_run 0 roofline --machine "$D/m 'x' \"y\".xml" -o "$D/r 'x' \"y\".svg"
if [ -s "$D/r 'x' \"y\".svg" ]; then ok "roofline -o into a quoted path"; else not_ok "no roofline svg"; fi
hostile_run 0 report "$D/s 'x' \"y\".xml" -o "$D/rep 'x' \"y\""
if [ -s "$D/rep 'x' \"y\"/report.html" ]; then ok "report -o into a quoted directory"; else not_ok "no report.html"; fi
# a missing file with such a name is named in the message
hostile_run 3 ingest "$D/missing 'x'.json"
expect_err_contains "missing 'x'.json"

done_testing
