#!/bin/sh
# The store under concurrent use: first imports started together into a
# new db all succeed (one creates the schema, the others queue behind its
# write lock); a reader during a long import sees the last committed state
# at once; a first import onto a full disk leaves no file behind.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
DB="$T_TMP/k.db"

# 30 first imports at once, each under its own machine name.
i=1
while [ $i -le 30 ]; do
    "$FOM" kernels import "$DATA/kernels/h100_eltwise.csv" --db "$DB" --machine "m$i" \
        >"$T_TMP/o$i" 2>"$T_TMP/e$i" &
    i=$((i + 1))
done
wait
bad=0
i=1
while [ $i -le 30 ]; do
    if ! grep -q "80 rows imported, 80 new" "$T_TMP/o$i" || [ -s "$T_TMP/e$i" ]; then
        bad=$((bad + 1)); sed 's/^/# /' "$T_TMP/e$i" | head -3
    fi
    i=$((i + 1))
done
if [ $bad -eq 0 ]; then ok "30 concurrent first imports all succeeded"; else not_ok "$bad of 30 concurrent first imports failed"; fi
if [ "$(sqlite3 "$DB" 'SELECT count(*) FROM hardware; SELECT count(*) FROM kernel' | tr '\n' ' ')" = "30 2400 " ]; then
    ok "all 30 tables are in the db"
else
    not_ok "db holds $(sqlite3 "$DB" 'SELECT count(*) FROM hardware') tables"
fi
if [ "$(sqlite3 "$DB" 'PRAGMA journal_mode')" = wal ]; then ok "db journal is WAL"; else not_ok "db journal is not WAL"; fi

# A reader while a long import holds the write lock.
fom_run 0 kernels list --db "$DB" --format csv
cp "$OUT" "$T_TMP/before.csv"
# The two readers' time with no writer: the bound below scales with it, as
# a fom run takes seconds under valgrind or the sanitizers.
b0=$(date +%s)
"$FOM" kernels list --db "$DB" --format csv >/dev/null 2>&1
"$FOM" estimate --profile "$DATA/estimate/small.profile.json" --machine "$DATA/estimate/testgpu.xml" \
    --kernels "$DB" --format json >/dev/null 2>&1
base=$(($(date +%s) - b0))
awk 'BEGIN { print "m,n,k,a_t,b_t,precision,time_us";
             for (i = 1; i <= 300000; i++) printf "%d,%d,%d,N,T,bf16,%.3f\n", i, 64, 128, 5 + i / 1000 }' \
    >"$T_TMP/big.csv"
"$FOM" kernels import "$T_TMP/big.csv" --db "$DB" --machine big >"$T_TMP/big.out" 2>&1 &
pid=$!
# The import is writing once its pages spill into the WAL file.
i=0
while [ ! -s "$DB-wal" ] && [ $i -lt 2000 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.01; i=$((i + 1))
done
if kill -0 $pid 2>/dev/null; then ok "long import is writing"; else not_ok "import ended before the reader ran"; fi
start=$(date +%s)
fom_run 0 kernels list --db "$DB" --format csv
if cmp -s "$OUT" "$T_TMP/before.csv"; then
    ok "reader sees the last committed state"
else
    not_ok "reader saw something else"; head -3 "$OUT" | sed 's/^/# /'
fi
fom_run 0 estimate --profile "$DATA/estimate/small.profile.json" --machine "$DATA/estimate/testgpu.xml" \
    --kernels "$DB" --format json
took=$(($(date +%s) - start))
if [ $took -le $((2 * base + 3)) ] && kill -0 $pid 2>/dev/null; then
    ok "readers did not wait for the import ($took s, $base s without it)"
else
    not_ok "readers waited (or the import ended first): $took s, $base s without the import"
fi
# A second writer queues behind the first and then succeeds.
fom_run 0 kernels import "$DATA/kernels/h100_eltwise.csv" --db "$DB" --machine queued
expect_out_contains "80 rows imported, 80 new"
wait $pid
if grep -q "300000 rows imported" "$T_TMP/big.out"; then ok "long import committed"; else not_ok "long import failed"; sed 's/^/# /' "$T_TMP/big.out"; fi

# A new db on a full disk: exit 3 and no file left.
if [ "$(id -u)" = 0 ] && mkdir -p "$T_TMP/full" && mount -t tmpfs -o size=64k tmpfs "$T_TMP/full" 2>/dev/null; then
    fom_run 3 kernels import "$T_TMP/big.csv" --db "$T_TMP/full/k.db" --machine big
    expect_err_contains "k.db"
    if [ -z "$(ls -A "$T_TMP/full")" ]; then ok "full disk: nothing left behind"; else not_ok "full disk left: $(ls -A "$T_TMP/full")"; fi
    umount "$T_TMP/full"
else
    echo "# skipped: full-disk db test needs root and tmpfs mounts (mount -t tmpfs failed)"
    ok "# SKIP full-disk db test: cannot mount a tmpfs here"
fi
# A WAL db on read-only media (a read-only bind mount, where SQLite cannot
# create its shared-memory file) is still read.
if [ "$(id -u)" = 0 ] && mkdir -p "$T_TMP/ro" && mount --bind "$T_TMP" "$T_TMP/ro" 2>/dev/null; then
    if mount -o remount,ro,bind "$T_TMP/ro" 2>/dev/null; then
        fom_run 0 kernels list --db "$T_TMP/ro/k.db" --format csv
        expect_out_contains "queued,eltwise,bf16,40"
    else
        ok "# SKIP read-only db test: cannot remount read-only here"
    fi
    umount "$T_TMP/ro"
else
    ok "# SKIP read-only db test: needs root and bind mounts"
fi
done_testing
