#!/bin/sh
# The layering drawn in the README, checked on the includes and calls of
# src/ (run by `make check-layers`, part of `make test`):
#   cmd/ includes only core/ and run/ (a command parses and calls a pipeline);
#   report/, ingest/, store/, model/ never include run/ or cmd/;
#   report/ and model/ include no reader (ingest/) nor the store;
#   only store/ includes sqlite3.h;
#   model/ neither prints nor opens files: no stdio output or fopen, and
#   warnings are data on the result, not diag_warn;
#   no function is over 100 lines (mk/long-functions.sh).
# Prints each violation as "file:line: what" and exits 1 when there is one.
set -u
cd "$(dirname "$0")/.." || exit 2
bad=0
# violations PATTERN WHAT FILES...: grep -n PATTERN in FILES
violations() {
    pat=$1; what=$2; shift 2
    for f in "$@"; do
        [ -f "$f" ] || continue
        allowed "$f" "$what" && continue
        grep -nE "$pat" "$f" | while IFS= read -r hit; do
            echo "${f}:${hit%%:*}: $what"
        done | grep . && bad=1
    done
    return 0
}
# Allow-list, one entry per line: "FILE-GLOB WHAT".  Keep it empty: each
# entry is a function still to be split, removed with the split.
ALLOW=''
allowed() {
    printf '%s\n' "$ALLOW" | while read -r glob what; do
        # shellcheck disable=SC2254
        case "$1" in $glob) [ "$what" = "$2" ] && echo yes ;; esac
    done | grep -q yes
}
inc='^[[:space:]]*#[[:space:]]*include[[:space:]]*'
lower="src/report/*.[ch] src/ingest/*.[ch] src/store/*.[ch] src/model/*.[ch]"
# shellcheck disable=SC2086
{
violations "$inc\"(run|cmd)/|$inc\"cmd\\.h\"" "includes run/ or cmd/" $lower
violations "$inc\"(ingest|store|model|report)/" "cmd/ includes more than core/ and run/" \
    src/cmd/*.[ch]
violations "$inc\"(ingest|store)/" "includes a reader or the store" \
    src/report/*.[ch] src/model/*.[ch]
for f in src/*.[ch] src/*/*.[ch]; do
    case "$f" in src/store/*) continue ;; esac
    violations "${inc}[<\"]sqlite3\\.h" "includes sqlite3.h outside store/" "$f"
done
violations '\<(fopen|fdopen|freopen|open|printf|fprintf|vfprintf|fputs|puts|fputc|putchar|fwrite|perror|diag_warn|diag_warn_at|diag_note)[[:space:]]*\(|\<(stdout|stderr)\>' \
    "model prints" src/model/*.c
for f in src/*.c src/*/*.c; do
    allowed "$f" "function over 100 lines" && continue
    sh mk/long-functions.sh "$f" | sed 's/$/ (function over 100 lines)/' | grep . && bad=1
done
} > "${TMPDIR:-/tmp}/check-layers.$$"
if [ -s "${TMPDIR:-/tmp}/check-layers.$$" ]; then
    cat "${TMPDIR:-/tmp}/check-layers.$$"
    rm -f "${TMPDIR:-/tmp}/check-layers.$$"
    echo "check-layers: the layering of the README does not hold (see above)" >&2
    exit 1
fi
rm -f "${TMPDIR:-/tmp}/check-layers.$$"
echo "check-layers: ok"
