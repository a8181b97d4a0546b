#!/bin/sh
# The manual page (mk/man.sh, from the --help texts) names every option of
# every command, and make install puts fom, the page, the README and the
# data under DESTDIR/PREFIX.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"

if sh mk/man.sh "$FOM" >"$T_TMP/fom.1"; then ok "mk/man.sh writes the page"; else not_ok "mk/man.sh failed"; fi
# the page as text: troff's \- and \e back to - and \
sed -e 's/\\-/-/g' -e 's/\\e/\\/g' "$T_TMP/fom.1" >"$T_TMP/page.txt"
cmds=$("$FOM" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
if [ -n "$cmds" ]; then ok "fom --help lists commands"; else not_ok "no commands in fom --help"; fi
missing=""
for c in $cmds; do
    grep -qx "\\.SS fom $c" "$T_TMP/page.txt" || missing="$missing $c"
    for opt in $("$FOM" "$c" --help | grep -o -- '--[a-z][a-z0-9-]*\|-[a-z]\b' | sort -u); do
        grep -qF -- "$opt" "$T_TMP/page.txt" || missing="$missing $c:$opt"
    done
done
if [ -z "$missing" ]; then ok "every command and option is in the page"; else not_ok "missing from the page:$missing"; fi
if command -v groff >/dev/null 2>&1; then
    if groff -man -Tutf8 -ww -z "$T_TMP/fom.1" 2>"$T_TMP/groff.err" && [ ! -s "$T_TMP/groff.err" ]; then
        ok "groff formats the page without warnings"
    else
        not_ok "groff warns"; sed 's/^/# /' "$T_TMP/groff.err" | head -5
    fi
fi

# make install into a temporary DESTDIR with its own PREFIX; the page is
# built in a temporary build folder, fom is not rebuilt (-o fom).  It
# installs ./fom, which a sanitizer build's run may not have made.
if [ ! -x "$ROOT/fom" ]; then
    ok "# skip make install: no ./fom built"
    done_testing
    exit 0
fi
if make -s -C "$ROOT" install DESTDIR="$T_TMP/root" PREFIX=/opt/fom \
       BUILD="$T_TMP/build" -o fom >"$T_TMP/make.out" 2>&1; then
    ok "make install DESTDIR=... PREFIX=/opt/fom"
else
    not_ok "make install failed"; sed 's/^/# /' "$T_TMP/make.out" | tail -5
fi
R="$T_TMP/root/opt/fom"
for f in bin/fom share/man/man1/fom.1 share/doc/fom/README.md share/fom/machines/h100-sxm5-80gb.xml \
         share/fom/reports/README.md share/fom/estimators/deepbench/NV_V100/gemm.csv; do
    if [ -s "$R/$f" ]; then ok "installed $f"; else not_ok "not installed: $f"; fi
done
if [ ! -e "$R/share/fom/reports/out" ]; then ok "no report outputs installed"; else not_ok "reports/out installed"; fi
n=$(find "$T_TMP/root" -mindepth 1 -maxdepth 1 | wc -l)
if [ "$n" -eq 1 ] && [ -d "$T_TMP/root/opt" ]; then ok "everything under DESTDIR/opt/fom"; else not_ok "files outside PREFIX"; fi
if cmp -s "$R/share/doc/fom/README.md" README.md; then ok "README installed as is"; else not_ok "README differs"; fi
"$R/bin/fom" machine show "$R/share/fom/machines/h100-sxm5-80gb.xml" >"$OUT" 2>"$ERR"
if [ $? -eq 0 ] && grep -q "h100-sxm5-80gb" "$OUT"; then ok "the installed fom reads the installed machines"; else not_ok "installed fom fails"; fi

done_testing
