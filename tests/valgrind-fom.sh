#!/bin/sh
# Runs ./fom under valgrind memcheck for `make valgrind-test`: an invalid
# access or a definite leak turns into exit status 99, which no test
# expects.  exec, so that a test's kill reaches valgrind itself.  Only
# shell builtins before the exec: some tests run fom with a PATH that
# lacks the usual tools (gnuplot missing).  FOM_VALGRIND_BIN is a private
# copy made by the make target, so a rebuild of ./fom during the long run
# cannot pull the binary from under valgrind.
# FOM_VALGRIND_EVERY=N runs one command line in about N under valgrind
# and the others as they are: which ones is fixed by the arguments' lengths
# (a hash of them), so a run is reproducible and the sample is spread over
# every script rather than the first few.
root=$(cd "${0%/*}/.." && pwd)
bin=${FOM_VALGRIND_BIN:-$root/fom}
every=${FOM_VALGRIND_EVERY:-1}
if [ "$every" -gt 1 ]; then
    h=$#
    for a in "$@"; do
        h=$(((h * 31 + ${#a}) % 1000003))
    done
    [ $((h % every)) -eq 0 ] || exec "$bin" "$@"
fi
vg=$(command -v valgrind) || vg=/usr/bin/valgrind
exec "$vg" --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q "$bin" "$@"
