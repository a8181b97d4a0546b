#!/bin/sh
# report.html in a real browser: headless Chromium renders the page to PNG;
# the page must not be blank and its inline SVG charts must be drawn.
# Skipped (with an ok line saying so) when Chromium cannot be installed.
. "$TESTS_DIR/t/lib.sh"
D="$T_TMP/out"

fom_run 0 report "$DATA/report/repeats.xml" -o "$D"
n_charts=$(python3 -c 'import json,sys; print(sum(1 for c in json.load(open(sys.argv[1]))["charts"]))' "$D/report.json")
if [ "$n_charts" -ge 2 ]; then ok "report.json lists $n_charts charts"; else not_ok "report.json lists $n_charts charts"; fi

sh "$TESTS_DIR/chromium-check.sh" "$D/report.html" "$D/page.png" "$n_charts" >"$T_TMP/check" 2>&1
rc=$?
sed 's/^#*/#/' "$T_TMP/check"
case $rc in
0) ok "Chromium renders report.html with its $n_charts charts (not blank)" ;;
77) ok "# skipped: chromium could not be installed" ;;
*) not_ok "report.html looks blank or lacks its charts in Chromium" ;;
esac

# the check itself must be able to fail: a page with empty charts is blank
if [ "$rc" != 77 ]; then
    printf '<!DOCTYPE html><html><body><p>x</p><svg></svg><svg></svg></body></html>\n' >"$T_TMP/blank.html"
    if sh "$TESTS_DIR/chromium-check.sh" "$T_TMP/blank.html" "$T_TMP/blank.png" 2 >/dev/null 2>&1; then
        not_ok "the browser check accepts a blank page"
    else
        ok "the browser check rejects a blank page"
    fi
fi

done_testing
