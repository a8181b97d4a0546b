#!/bin/sh
# Runs ./fom under valgrind memcheck for `make valgrind-test`: an invalid
# access or a definite leak turns into exit status 99, which no test
# expects.  exec, so that a test's kill reaches valgrind itself.  Only
# shell builtins before the exec: some tests run fom with a PATH that
# lacks the usual tools (gnuplot missing).  FOM_VALGRIND_BIN is a private
# copy made by the make target, so a rebuild of ./fom during the long run
# cannot pull the binary from under valgrind.
root=$(cd "${0%/*}/.." && pwd)
vg=$(command -v valgrind) || vg=/usr/bin/valgrind
exec "$vg" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q \
    "${FOM_VALGRIND_BIN:-$root/fom}" "$@"
