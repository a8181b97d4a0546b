#!/bin/sh
# The estimator against measured step times (tests/validate.py, the data in
# tests/data/validate/): each case group's worst |error| stays within the
# regression guard set from `make validate`.  One TAP line per group.
. "$(dirname "$0")/lib.sh"
# Under valgrind the 734 estimates, each loading the shipped tables, take
# over an hour; the same commands run under the sanitizers and in make test,
# and the estimator's own paths are under valgrind in t4500 and t4503.
if [ "${FOM_UNDER_VALGRIND:-0}" = 1 ]; then
    ok "# SKIP validation under valgrind: the same estimates run in make test and under the sanitizers"
    done_testing
    exit 0
fi
# Under the sanitizers one case in eight of each group: the estimates' memory
# safety over every kind of trace, in an eighth of the time (the guards hold
# on a subset; one in four took 35 minutes of the suite on 3,578 cases)
if [ "${FOM_UNDER_SANITIZER:-0}" = 1 ]; then
    python3 "$TESTS_DIR/validate.py" --guard --every 8
else
    python3 "$TESTS_DIR/validate.py" --guard
fi
