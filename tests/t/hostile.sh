# Helpers for the hostile-input tests (t6*-hostile-*.sh), sourced after
# lib.sh.  Every run is bounded by a wall-clock timeout: a hang fails the
# test instead of blocking the suite.  Under valgrind (make valgrind-test)
# and the sanitizers (make check) HOSTILE_TIMEOUT and HOSTILE_FAST_S (the
# bound on refusing a gzip bomb) are raised and FOM_SKIP_BIG=1 skips the benchmark-sized
# inputs.
HOSTILE_TIMEOUT=${HOSTILE_TIMEOUT:-20}

# hostile_run WANT args... : like fom_run, under timeout; a signal or a
# timeout is reported as such.
hostile_run() {
    want=$1; shift
    T_DESC="fom $*"
    timeout "$HOSTILE_TIMEOUT" "$FOM" "$@" >"$OUT" 2>"$ERR"
    T_RC=$?
    if [ "$T_RC" -eq "$want" ]; then
        ok "exit $want: $T_DESC"
    elif [ "$T_RC" -eq 124 ]; then
        not_ok "timed out after $HOSTILE_TIMEOUT s: $T_DESC"
    elif [ "$T_RC" -gt 128 ]; then
        not_ok "killed by signal $((T_RC - 128)): $T_DESC"
    else
        not_ok "exit $T_RC (expected $want): $T_DESC"
        sed 's/^/# stderr: /' "$ERR" | head -10
    fi
}

# expect_quiet_err: stderr holds exactly one line (no message spray).
expect_err_lines() {
    n=$(wc -l <"$ERR")
    if [ "$n" -le "$1" ]; then ok "stderr has $n lines (<= $1)"; else not_ok "stderr has $n lines, expected <= $1"; head -5 "$ERR" | sed 's/^/# /'; fi
}

expect_no_output() {
    if [ -s "$OUT" ]; then not_ok "output despite the error"; else ok "no output on error"; fi
}
