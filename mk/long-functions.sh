#!/bin/sh
# Lists the functions longer than MAX lines (default 100) in the C files
# given, as "file:line: name N lines", and exits 1 when there is one.
# A function runs from the line of its name to its closing brace in
# column 0; the name is the identifier before the first '(' of the
# declaration that ends at the opening brace in column 0.
max=${MAX:-100}
awk -v max="$max" '
FNR == 1 { sig = ""; sig_line = 0; start = 0 }
start == 0 && /^[A-Za-z_].*\(/ && !/;[ \t]*$/ { sig = $0; sig_line = FNR }
start == 0 && /^\{/ && sig_line {
    name = sig
    sub(/\(.*/, "", name)
    sub(/.*[ \t*]/, "", name)
    start = sig_line
    next
}
start && /^\}/ {
    n = FNR - start + 1
    if (n > max) {
        printf "%s:%d: %s %d lines\n", FILENAME, start, name, n
        bad = 1
    }
    start = 0; sig_line = 0
}
END { exit bad }
' "$@"
