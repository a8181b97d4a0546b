#!/bin/sh
# A report folder is replaced as a whole: charts of an earlier study do not
# stay beside a new report; a folder holding other files is refused; a
# report that fails half-way (a full disk) leaves the previous one whole.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
R="$DATA/report"
D="$T_TMP/rep"

fom_run 0 report "$R/repeats.xml" -o "$D"
ls "$D" | sort >"$T_TMP/first.ls"
# the earlier study drew a breakdown chart per problem; the seed draws none
if grep -q '^breakdown-1.svg$' "$T_TMP/first.ls" || grep -q '^ratios.svg$' "$T_TMP/first.ls"; then
    ok "first report written"
else
    not_ok "first report lacks its charts: $(tr '\n' ' ' <"$T_TMP/first.ls")"
fi
fom_run 0 report reports/candle-seed.xml -o "$D"
"$FOM" report reports/candle-seed.xml -o "$T_TMP/fresh" >/dev/null 2>&1
if [ "$(ls "$D" | sort)" = "$(ls "$T_TMP/fresh" | sort)" ]; then
    ok "replaced folder holds exactly the new report's files"
else
    not_ok "replaced folder: $(ls "$D" | tr '\n' ' ')"
fi
if cmp -s "$D/report.json" "$T_TMP/fresh/report.json"; then ok "report.json is the new study's"; else not_ok "report.json differs"; fi
ls -a "$T_TMP" | grep '\.tmp\.' >"$T_TMP/left" || true
if [ -s "$T_TMP/left" ]; then not_ok "left beside: $(tr '\n' ' ' <"$T_TMP/left")"; else ok "nothing left beside the folder"; fi

# a folder with files the report does not write is refused, untouched
mkdir -p "$T_TMP/home"
echo mine >"$T_TMP/home/notes.txt"
fom_run 2 report reports/candle-seed.xml -o "$T_TMP/home"
expect_err_contains "holds 'notes.txt', which this command does not write"
if [ "$(ls "$T_TMP/home")" = notes.txt ]; then ok "foreign folder untouched"; else not_ok "foreign folder changed"; fi

# a link to a report folder stays a link; the folder it names is replaced
ln -s rep "$T_TMP/link"
fom_run 0 report "$R/repeats.xml" -o "$T_TMP/link"
if [ -L "$T_TMP/link" ] && [ -f "$D/report.json" ] && grep -q repeat "$D/report.json"; then
    ok "report through a link"
else
    not_ok "report through a link"
fi

# a full disk half-way: the previous report stays whole
if [ "$(id -u)" = 0 ] && mkdir -p "$T_TMP/full" && mount -t tmpfs -o size=1m tmpfs "$T_TMP/full" 2>/dev/null; then
    fom_run 0 report reports/candle-seed.xml -o "$T_TMP/full/rep"
    cp -r "$T_TMP/full/rep" "$T_TMP/before"
    used=$(du -sk "$T_TMP/full" | cut -f1)
    # leave room for about half of a second report
    head -c $(((1024 - used - 70) * 1024)) /dev/zero >"$T_TMP/full/filler" 2>/dev/null
    fom_run 3 report "$R/repeats.xml" -o "$T_TMP/full/rep"
    expect_err_contains "No space left on device"
    if diff -r "$T_TMP/before" "$T_TMP/full/rep" >/dev/null; then ok "full disk: previous report whole"; else not_ok "full disk: previous report changed"; fi
    if [ "$(ls -A "$T_TMP/full" | tr '\n' ' ')" = "filler rep " ]; then ok "full disk: nothing left"; else not_ok "full disk left: $(ls -A "$T_TMP/full")"; fi
    umount "$T_TMP/full"
else
    echo "# full-disk report test skipped: mounting a tmpfs needs root (this run: uid $(id -u))"
    ok "# SKIP full-disk report: cannot mount a tmpfs here"
fi
done_testing
