#!/bin/sh
# Outputs: -o into a directory that does not exist, or one that is not
# writable, exits 3 with a message and leaves the previous file intact.
# (A kernel import killed with SIGKILL mid-way: t4001.)
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
. "$TESTS_DIR/t/hostile.sh"
TBL="$DATA/tables/small.table.txt"
GPU="$DATA/estimate/testgpu.xml"

# missing directory
hostile_run 3 ingest "$TBL" --format-out json -o "$T_TMP/no/such/dir/out.json"
expect_err_contains "$T_TMP/no/such/dir/out.json"
expect_no_output
hostile_run 3 roofline --machine "$GPU" -o "$T_TMP/no/such/dir/r.svg"
expect_err_contains "$T_TMP/no/such/dir"

# -o naming an existing directory
mkdir -p "$T_TMP/adir"
hostile_run 3 ingest "$TBL" -o "$T_TMP/adir"
expect_err_contains "$T_TMP/adir"

# a read-only directory holding a previous output: it stays as it was.
# (root ignores permissions; then a file standing where the directory
# should be gives the same "cannot write" path.)
mkdir -p "$T_TMP/ro"
echo "previous" >"$T_TMP/ro/out.json"
chmod 555 "$T_TMP/ro"
if [ "$(id -u)" -ne 0 ]; then
    hostile_run 3 ingest "$TBL" --format-out json -o "$T_TMP/ro/out.json"
    expect_err_contains "$T_TMP/ro/out.json"
else
    echo "file" >"$T_TMP/notadir"
    hostile_run 3 ingest "$TBL" --format-out json -o "$T_TMP/notadir/out.json"
    expect_err_contains "$T_TMP/notadir/out.json"
fi
if [ "$(cat "$T_TMP/ro/out.json")" = previous ]; then ok "previous output intact"; else not_ok "previous output changed"; fi
chmod 755 "$T_TMP/ro"

# a failing command does not touch a previous output either
echo "previous" >"$T_TMP/prev.json"
: >"$T_TMP/empty.json"
hostile_run 1 ingest "$T_TMP/empty.json" --format-out json -o "$T_TMP/prev.json"
if [ "$(cat "$T_TMP/prev.json")" = previous ]; then ok "output kept after a bad input"; else not_ok "output replaced after a bad input"; fi
ls "$T_TMP" | grep -v '^\(prev.json\|empty.json\|ro\|adir\|notadir\|stdout\|stderr\|left\)$' >"$T_TMP/left" || true
if [ -s "$T_TMP/left" ]; then not_ok "temporary files left: $(tr '\n' ' ' <"$T_TMP/left")"; else ok "no temporary file left behind"; fi

# report -o into a path below a file
echo x >"$T_TMP/f"
printf '<?xml version="1.0"?>\n<study name="s" baseline="a">\n<system id="a" nodes="1"/>\n<system id="b" nodes="2"/>\n<problem id="P1">\n<time system="a" per-unit="1h"/>\n<time system="b" per-unit="2h"/>\n</problem>\n</study>\n' >"$T_TMP/s.xml"
hostile_run 3 report "$T_TMP/s.xml" -o "$T_TMP/f/rep"
expect_err_contains "$T_TMP/f/rep"

# --db in a missing directory
hostile_run 3 kernels import "$DATA/kernels/h100_eltwise.csv" --db "$T_TMP/no/such/k.db" --machine x
expect_err_contains "$T_TMP/no/such/k.db"

done_testing
