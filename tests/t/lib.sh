# Shared helpers for command-line tests.  Each test prints TAP lines.
# Usage in a test:
#   . "$TESTS_DIR/t/lib.sh"
#   fom_run 0 fom machine show machines/h100-sxm5-80gb.xml
#   expect_golden machine-show-h100      # compares stdout with t/golden/NAME.out
#   expect_err_contains "file.xml:3: error:"
set -u
TESTS_DIR=${TESTS_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
ROOT=$(cd "$TESTS_DIR/.." && pwd)
FOM=${FOM:-$ROOT/fom}
GOLDEN="$TESTS_DIR/t/golden"
DATA="$TESTS_DIR/data"
T_N=0
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT
OUT="$T_TMP/stdout"
ERR="$T_TMP/stderr"
cd "$ROOT" || exit 1

ok() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
not_ok() { T_N=$((T_N + 1)); echo "not ok $T_N - $*"; }

# fom_run EXPECTED_STATUS args... : runs $FOM args, checks the exit status.
fom_run() {
    want=$1; shift
    T_DESC="fom $*"
    "$FOM" "$@" >"$OUT" 2>"$ERR"
    T_RC=$?
    if [ "$T_RC" -eq "$want" ]; then
        ok "exit $want: $T_DESC"
    else
        not_ok "exit $T_RC (expected $want): $T_DESC"
        sed 's/^/# stderr: /' "$ERR" | head -10
    fi
}

# expect_golden NAME: stdout equals t/golden/NAME.out exactly.
# With UPDATE_GOLDEN=1 the golden file is (re)written instead.
expect_golden() {
    g="$GOLDEN/$1.out"
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        mkdir -p "$GOLDEN"; cp "$OUT" "$g"
    fi
    if [ -f "$g" ] && cmp -s "$OUT" "$g"; then
        ok "stdout matches $1.out"
    else
        not_ok "stdout differs from $1.out"
        [ -f "$g" ] && diff -u "$g" "$OUT" | head -30 | sed 's/^/# /'
    fi
}

# expect_golden_err NAME: stderr equals t/golden/NAME.err exactly.
expect_golden_err() {
    g="$GOLDEN/$1.err"
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        mkdir -p "$GOLDEN"; cp "$ERR" "$g"
    fi
    if [ -f "$g" ] && cmp -s "$ERR" "$g"; then
        ok "stderr matches $1.err"
    else
        not_ok "stderr differs from $1.err"
        [ -f "$g" ] && diff -u "$g" "$ERR" | head -30 | sed 's/^/# /'
    fi
}

expect_out_contains() {
    if grep -qF -- "$1" "$OUT"; then ok "stdout has '$1'"; else not_ok "stdout lacks '$1'"; head -20 "$OUT" | sed 's/^/# /'; fi
}

expect_err_contains() {
    if grep -qF -- "$1" "$ERR"; then ok "stderr has '$1'"; else not_ok "stderr lacks '$1'"; sed 's/^/# /' "$ERR" | head -10; fi
}

# expect_json_num EXPR WANT TOL : python3 evaluates EXPR on the parsed stdout
# (as variable d) and compares with WANT within relative tolerance TOL.
expect_json_num() {
    if python3 - "$OUT" "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = float(eval(sys.argv[2]))
want = float(sys.argv[3]); tol = float(sys.argv[4])
ok = abs(got - want) <= tol * abs(want) if want else abs(got) <= tol
print("# %s = %r (want %r)" % (sys.argv[2], got, want))
sys.exit(0 if ok else 1)
PY
    then ok "json $1 = $2"; else not_ok "json $1 != $2"; fi
}

done_testing() { echo "1..$T_N"; }
