#!/bin/sh
# Runs every unit test binary and every command-line test script, each of
# which prints TAP lines ("ok N - ..." / "not ok N - ..." and a plan
# "1..N"), and ends with the one summary line CI reads: "N passed, N
# failed", with ", N skipped" when a test was skipped ("ok N # skip ...").
# A file fails when it exits non-zero, or when its plan is missing or does
# not match the tests it ran (it died half-way).
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
skip=0
SKIP_RE='^ok [0-9]*[^#]*#[[:space:]]*[Ss][Kk][Ii][Pp]'
run_one() { # name, command...
    name=$1; shift
    "$@" >"$log" 2>&1
    rc=$?
    all=$(grep -c '^ok ' "$log")
    s=$(grep -cE "$SKIP_RE" "$log")
    p=$((all - s))
    f=$(grep -c '^not ok ' "$log")
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | tail -1)
    ran=$((all + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # A crash or an early exit must not pass silently.
        f=1
        echo "not ok - $name exited with status $rc" >>"$log"
    elif [ -z "$plan" ]; then
        f=$((f + 1))
        echo "not ok - $name printed no plan (1..N): it stopped before its end" >>"$log"
    elif [ "$plan" -ne "$ran" ]; then
        f=$((f + 1))
        echo "not ok - $name planned $plan tests but ran $ran" >>"$log"
    fi
    if [ "$f" -gt 0 ] || [ "${VERBOSE:-0}" = 1 ]; then
        echo "--- $name"
        grep -v '^ok ' "$log" | sed 's/^/    /' | head -60
    fi
    if [ "$s" -gt 0 ]; then
        printf '%-40s %4d passed, %d failed, %d skipped\n' "$name" "$p" "$f" "$s"
        grep -E "$SKIP_RE" "$log" | sed 's/^/    /'
    else
        printf '%-40s %4d passed, %d failed\n' "$name" "$p" "$f"
    fi
    pass=$((pass + p))
    fail=$((fail + f))
    skip=$((skip + s))
}
for t in "$UNIT_DIR"/u-*; do
    [ -x "$t" ] || continue
    run_one "$(basename "$t")" "$t"
done
for t in "$here"/t/t[0-9]*.sh; do
    [ -f "$t" ] || continue
    run_one "$(basename "$t" .sh)" sh "$t"
done
if [ "$skip" -gt 0 ]; then
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
