#!/bin/sh
# An import killed with SIGKILL in the middle of its transaction leaves
# the previous database intact: the uncommitted frames in SQLite's WAL
# file are ignored by the next reader.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
DB="$T_TMP/k.db"

fom_run 0 kernels import "$DATA/kernels/h100_eltwise.csv" --db "$DB" --machine before
fom_run 0 kernels list --db "$DB" --format csv
cp "$OUT" "$T_TMP/before.csv"

# 300k generated gemm rows: several seconds of inserts to kill into.
awk 'BEGIN { print "m,n,k,a_t,b_t,precision,time_us";
             for (i = 1; i <= 300000; i++) printf "%d,%d,%d,N,T,bf16,%.3f\n", i, 64, 128, 5 + i / 1000 }' \
    >"$T_TMP/big.csv"
"$FOM" kernels import "$T_TMP/big.csv" --db "$DB" --machine big >/dev/null 2>&1 &
pid=$!
# Wait (at most ~20 s) for WAL frames that show the transaction is
# writing, let it write a little more, then kill.
i=0
while [ ! -s "$DB-wal" ] && [ $i -lt 2000 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.01; i=$((i + 1))
done
sleep 0.3
if [ -s "$DB-wal" ] && kill -9 $pid 2>/dev/null; then
    ok "import killed while writing its WAL"
else
    not_ok "import finished or never started a transaction before the kill"
fi
wait $pid 2>/dev/null

fom_run 0 kernels list --db "$DB" --format csv
if cmp -s "$OUT" "$T_TMP/before.csv"; then
    ok "database unchanged by the killed import"
else
    not_ok "database changed by the killed import"
    diff "$T_TMP/before.csv" "$OUT" | head -5 | sed 's/^/# /'
fi
if [ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ]; then
    ok "integrity_check ok"
else
    not_ok "integrity_check failed"
fi
# The db takes new imports after the crash.
fom_run 0 kernels import "$DATA/kernels/h100_eltwise.csv" --db "$DB" --machine after
expect_out_contains "80 rows imported, 80 new, 0 replaced"
done_testing
