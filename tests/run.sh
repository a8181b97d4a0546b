#!/bin/sh
# Runs every unit test binary and every command-line test script, each of
# which prints TAP lines ("ok N - ..." / "not ok N - ..." and a plan
# "1..N"), and ends with the one summary line CI reads: "N passed, N
# failed", with ", N skipped" when a test was skipped ("ok N # skip ...").
# A file fails when it exits non-zero, or when its plan is missing or does
# not match the tests it ran (it died half-way).
# Files run TEST_JOBS at a time (default: the online cores; each file is
# one process, so the suite's wall time is its CPU time over the cores);
# every file writes its own log and the report lists them in a fixed
# order, each with its wall seconds, whatever order they finished in.
# Env: FOM (the binary under test), UNIT_DIR (built unit tests), TEST_JOBS.
set -u
here=$(cd "$(dirname "$0")" && pwd)

FOM=${FOM:-$here/../fom}
UNIT_DIR=${UNIT_DIR:-$here/../build/rel/tests}

# One file: `run.sh --one DIR NAME` runs the unit test binary or the script
# NAME and writes DIR/NAME.log (its output), DIR/NAME.rc (exit status) and
# DIR/NAME.s (wall seconds).  Names alone pass through xargs, so paths
# with blanks in them stay whole.
if [ "${1:-}" = --one ]; then
    dir=$2; name=$3
    t0=$(date +%s)
    case $name in
    u-*) "$UNIT_DIR/$name" >"$dir/$name.log" 2>&1 ;;
    *) sh "$here/t/$name.sh" >"$dir/$name.log" 2>&1 ;;
    esac
    echo $? >"$dir/$name.rc"
    echo $(($(date +%s) - t0)) >"$dir/$name.s"
    exit 0
fi

export FOM UNIT_DIR
export TESTS_DIR="$here"
export CMOCKA_MESSAGE_OUTPUT=TAP
jobs=${TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0
fail=0
skip=0
SKIP_RE='^ok [0-9]*[^#]*#[[:space:]]*[Ss][Kk][Ii][Pp]'

# The list: one name per line.  The validation (the longest file by far)
# starts first so that the others fill the remaining cores around it.
list=$dir/list
: >"$list"
for t in "$here"/t/t4600*.sh "$here"/t/t[0-9]*.sh; do
    [ -f "$t" ] || continue
    n=$(basename "$t" .sh)
    grep -qx "$n" "$list" || echo "$n" >>"$list"
done
for t in "$UNIT_DIR"/u-*; do
    [ -x "$t" ] || continue
    basename "$t" >>"$list"
done
xargs -P "$jobs" -n 1 sh "$here/run.sh" --one "$dir" <"$list"

report() { # name
    name=$1
    log=$dir/$name.log
    rc=$(cat "$dir/$name.rc" 2>/dev/null || echo 127)
    secs=$(cat "$dir/$name.s" 2>/dev/null || echo 0)
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
        printf '%-40s %4d passed, %d failed, %d skipped (%d s)\n' "$name" "$p" "$f" "$s" "$secs"
        grep -E "$SKIP_RE" "$log" | sed 's/^/    /'
    else
        printf '%-40s %4d passed, %d failed (%d s)\n' "$name" "$p" "$f" "$secs"
    fi
    pass=$((pass + p))
    fail=$((fail + f))
    skip=$((skip + s))
}
# units first, then the scripts in their numbered order
for n in $(grep '^u-' "$list") $(grep '^t[0-9]' "$list" | sort); do
    report "$n"
done
if [ "$skip" -gt 0 ]; then
    echo "$pass passed, $fail failed, $skip skipped"
else
    echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
