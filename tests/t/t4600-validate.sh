#!/bin/sh
# The estimator against measured step times (tests/validate.py, the data in
# tests/data/validate/): each case group's worst |error| stays within the
# regression guard set from `make validate`.  One TAP line per group.
. "$(dirname "$0")/lib.sh"
python3 "$TESTS_DIR/validate.py" --guard
