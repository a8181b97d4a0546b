#!/bin/sh
# fom kernels import / list: every input form, dedup, names stored
# verbatim, bad rows with file:line and exit codes.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
K="$DATA/kernels"
DB="$T_TMP/k.db"

# A folder with env.json: hardware named by its "gpu" key.
mkdir -p "$T_TMP/h100"
cp "$K/h100/env.json" "$K/h100_conv.csv" "$K/h100_eltwise.csv" "$T_TMP/h100/"
fom_run 0 kernels import "$T_TMP/h100" --db "$DB"
expect_out_contains "NVIDIA H100 80GB HBM3: 284 rows (conv fp32 102, conv bf16 102, eltwise fp32 40, eltwise bf16 40)"
# DeepBench's conv training list repeats 4 shapes, and so does our table:
# 98 distinct keys of 102 rows per precision (python3 csv, set of keys).
expect_out_contains "284 rows imported, 276 new, 8 replaced"

# DeepBench's published results: one table per hw column value.  The conv
# sheet lists 4 shapes twice (DeepBench's README), so 90 distinct keys of
# 94 rows per hw and precision: the later row replaces the earlier one.
fom_run 0 kernels import "$K/deepbench_published_conv.csv" --db "$DB"
expect_out_contains "NV_V100: 188 rows (conv fp32 94, conv fp16 94)"
# 14 (hw, precision) sheets x 94 rows, 14 x 4 of them repeats.
expect_out_contains "1316 rows imported, 1260 new, 56 replaced"

# DeepBench's printed output, named on the command line.
fom_run 0 kernels import "$K/deepbench_stdout_gemm.txt" --db "$DB" --machine "H100 (stdout)"
expect_out_contains "H100 (stdout): 304 rows (gemm fp32 152, gemm fp16 152)"

# Importing the same rows again replaces them all (newer wins).
fom_run 0 kernels import "$K/deepbench_stdout_gemm.txt" --db "$DB" --machine "h100 (STDOUT)"
expect_out_contains "304 rows imported, 0 new, 304 replaced"

# A name full of SQL is data, stored and shown verbatim.
fom_run 0 kernels import "$K/h100_eltwise.csv" --db "$DB" --machine "x'); DROP TABLE kernel; --\"q\""
fom_run 0 kernels list --db "$DB" --format csv
expect_golden t4000-list-csv
fom_run 0 kernels list --db "$DB"
expect_out_contains "x'); DROP TABLE kernel; --\"q\"  eltwise    fp32             40"
if grep -Eq '^total +1920$' "$OUT"; then ok "list total 1920"; else not_ok "list total is not 1920"; fi
fom_run 0 kernels list --db "$DB" --format json
# 276 + 1260 + 304 + 2 x 40 distinct keys.
expect_json_num "sum(c['rows'] for c in d['counts'])" 1920 0
expect_json_num "[c['rows'] for c in d['counts'] if c['hw']=='NV_T4' and c['precision']=='fp16'][0]" 90 0

# Bad rows: exit 1, FILE:LINE:COL, and the db is left as it was.
printf 'm,n,k,a_t,b_t,precision,time_us\n64,64,64,N,N,fp32,3.5\n64,64,64,N,N,fp32\n' >"$T_TMP/short.csv"
fom_run 1 kernels import "$T_TMP/short.csv" --db "$DB"
expect_err_contains "short.csv:3:1: error: found 6 fields, expected 7 as in the header"
printf 'm,n,k,a_t,b_t,precision,time_us\n64,64,64,N,N,fp32,3.5\n64,64,64,N,N,fp32,-2\n' >"$T_TMP/neg.csv"
fom_run 1 kernels import "$T_TMP/neg.csv" --db "$DB"
expect_err_contains "neg.csv:3:19: error: time: found '-2', expected a positive finite number"
printf 'm,n,k,a_t,b_t,precision,time_us\n64,64,64,N,N,fp12,3.5\n' >"$T_TMP/prec.csv"
fom_run 1 kernels import "$T_TMP/prec.csv" --db "$DB"
expect_err_contains "prec.csv:2:14: error: precision: found 'fp12', expected fp64, fp32, tf32"
printf '   64   64   64   0   2   float   3.5\n' >"$T_TMP/stdout.txt"
fom_run 1 kernels import "$T_TMP/stdout.txt" --db "$DB"
expect_err_contains "stdout.txt:1:23: error: b_t: found '2', expected N, T, 0 or 1"
fom_run 0 kernels list --db "$DB" --format json
expect_json_num "sum(c['rows'] for c in d['counts'])" 1920 0

# Usage and system errors.
fom_run 2 kernels import "$K/h100_eltwise.csv"
expect_err_contains "error: missing --db DB"
fom_run 2 kernels frobnicate --db "$DB"
expect_err_contains "error: found 'frobnicate', expected import, list or shapes"
fom_run 2 kernels import --db "$DB"
expect_err_contains "no FILE given"
fom_run 3 kernels import "$T_TMP/missing.csv" --db "$DB"
expect_err_contains "cannot open '$T_TMP/missing.csv'"
fom_run 3 kernels list --db "$T_TMP/none.db"
expect_err_contains "cannot open database"
fom_run 1 kernels list --db "$K/h100_eltwise.csv"
expect_err_contains "h100_eltwise.csv: found a file that is not a SQLite database"
fom_run 0 kernels --help
expect_out_contains "usage: fom kernels import FILE... --db DB [--machine NAME]"
done_testing
