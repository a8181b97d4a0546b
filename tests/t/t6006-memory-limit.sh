#!/bin/sh
# Memory exhaustion under an address-space limit (ulimit -v): a 64 MB
# string in each JSON reader (Kineto, TF timeline, saved profile) and a
# 64 MB line in a kernel table are exit 3 with a message, never a crash or
# a partial result, and nothing is kept: no output, no temporary, no rows.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
. "$TESTS_DIR/t/hostile.sh"
# The limit: fom and its libraries map about 55 MB before reading
# anything (measured with ulimit -v on Debian 12), so 120 MB lets a small
# input through and stops a reader that must hold the 64 MB string twice
# (yajl's buffer doubles past it).
LIMIT_KB=120000
# AddressSanitizer's shadow memory and valgrind's own heap need far more
# address space than the limit, so neither can start under it: the limit
# is tested on the plain build (make test), not under make check.
if [ "${FOM_UNDER_VALGRIND:-0}" = 1 ] || [ "${FOM_UNDER_SANITIZER:-0}" = 1 ]; then
    ok "# SKIP address-space limits: the sanitizer and valgrind builds need more address space than the limit"
    done_testing
    exit 0
fi
BIG=$((64 << 20))
cd "$T_TMP" || exit 1
blob() { head -c "$BIG" /dev/zero | tr '\0' "$1"; }

limited() { # WANT args... : fom under the limit
    want=$1; shift
    (ulimit -v $LIMIT_KB && exec "$FOM" "$@") >"$OUT" 2>"$ERR"
    T_RC=$?
    if [ "$T_RC" -eq "$want" ]; then ok "exit $want under ulimit -v $LIMIT_KB: fom $*"
    else not_ok "exit $T_RC (expected $want) under ulimit -v $LIMIT_KB: fom $*"; sed 's/^/# stderr: /' "$ERR" | head -5; fi
}
nothing_kept() { # what
    left=$(ls -A | grep -v '^\(stdout\|stderr\|in\..*\)$' | tr '\n' ' ')
    if [ -z "$left" ]; then ok "$1: nothing kept"; else not_ok "$1: left $left"; fi
}

# the limit itself lets a small input through
limited 0 ingest "$ROOT/tests/data/tfprof/tf1_timeline_gpu_matmul.json" --format-out json -o small.json
rm -f small.json

{ printf '{"traceEvents":[{"ph":"X","cat":"kernel","pid":1,"tid":1,"ts":1,"dur":2,"name":"'
  blob A; printf '"}]}'; } >in.kineto.json
limited 3 ingest in.kineto.json --format kineto --format-out json -o out.json
expect_err_contains "out of memory"
nothing_kept "kineto"
rm -f in.kineto.json

{ printf '{"traceEvents":[{"args":{"name":"/job:localhost/replica:0/task:0/device:GPU:0 Compute"},"pid":1,"name":"process_name","ph":"M"},'
  printf '{"ph":"X","cat":"Op","pid":1,"tid":0,"ts":1,"dur":2,"name":"'; blob B; printf '"}]}'; } >in.tf.json
limited 3 ingest in.tf.json --format tf-timeline --format-out json -o out.json
expect_err_contains "out of memory"
nothing_kept "tf-timeline"
rm -f in.tf.json

{ printf '{"format":"profile-json","ops":[{"name":"'; blob C; printf '"}]}'; } >in.profile.json
limited 3 ingest in.profile.json --format-out csv -o out.csv
expect_err_contains "out of memory"
nothing_kept "saved profile"
rm -f in.profile.json

# a kernel table whose second data line does not fit: the import fails
# as a whole (before, getline's failure read as the end of the file and
# the first row was imported)
"$FOM" kernels import "$DATA/kernels/h100_eltwise.csv" --db k.db --machine before >/dev/null
{ printf 'm,n,k,a_t,b_t,precision,time_us\n1,2,3,N,N,fp32,4\n'; blob 1; printf '\n5,6,7,N,N,fp32,8\n'; } >in.big.csv
limited 3 kernels import in.big.csv --db k.db --machine big
expect_err_contains "in.big.csv"
if [ "$(sqlite3 k.db "SELECT count(*) FROM hardware WHERE name = 'big'")" = 0 ]; then
    ok "kernel table: no rows kept"
else
    not_ok "kernel table: rows of the failed import kept"
fi
done_testing
