#!/bin/sh
# Runs every unit test binary and every command-line test script, each of
# which prints TAP lines ("ok N - ..." / "not ok N - ..."), and ends with
# the one summary line CI reads: "N passed, N failed".
# Env: FOM (the binary under test), UNIT_DIR (built unit tests).
set -u
here=$(cd "$(dirname "$0")" && pwd)
FOM=${FOM:-$here/../fom}
UNIT_DIR=${UNIT_DIR:-$here/../build/rel/tests}
export FOM
export TESTS_DIR="$here"
export CMOCKA_MESSAGE_OUTPUT=TAP
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0
fail=0
run_one() { # name, command...
    name=$1; shift
    "$@" >"$log" 2>&1
    rc=$?
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # A crash or an early exit must not pass silently.
        f=1
        echo "not ok - $name exited with status $rc" >>"$log"
    fi
    if [ "$f" -gt 0 ] || [ "${VERBOSE:-0}" = 1 ]; then
        echo "--- $name"
        grep -v '^ok ' "$log" | sed 's/^/    /' | head -60
    fi
    printf '%-40s %4d passed, %d failed\n' "$name" "$p" "$f"
    pass=$((pass + p))
    fail=$((fail + f))
}
for t in "$UNIT_DIR"/u-*; do
    [ -x "$t" ] || continue
    run_one "$(basename "$t")" "$t"
done
for t in "$here"/t/t[0-9]*.sh; do
    [ -f "$t" ] || continue
    run_one "$(basename "$t" .sh)" sh "$t"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
