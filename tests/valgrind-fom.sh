#!/bin/sh
# Runs ./fom under valgrind memcheck for `make valgrind-test`: an invalid
# access or a definite leak turns into exit status 99, which no test
# expects.  exec, so that a test's kill reaches valgrind itself.
root=$(cd "$(dirname "$0")/.." && pwd)
exec valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q \
    "$root/fom" "$@"
