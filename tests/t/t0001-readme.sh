#!/bin/sh
# Every ./fom example in README.md runs and exits 0 (continuation lines
# joined), so the README cannot drift from the program.
. "$TESTS_DIR/t/lib.sh"

python3 - "$ROOT/README.md" >"$T_TMP/examples" <<'PY'
import sys
lines, cur, inblock = [], "", False
for line in open(sys.argv[1]):
    if line.startswith("```"):
        inblock = not inblock
        continue
    if not inblock:
        continue
    line = line.rstrip("\n")
    cur += line.rstrip("\\").strip() + " " if cur else (line.rstrip("\\") + " " if line.startswith("./fom ") else "")
    if cur and not line.endswith("\\"):
        lines.append(cur.split("  #")[0].split(" #")[0].strip())
        cur = ""
print("\n".join(lines))
PY
n=$(grep -c . "$T_TMP/examples")
if [ "$n" -ge 5 ]; then ok "README has $n fom examples"; else not_ok "README has only $n fom examples"; fi
while IFS= read -r cmd; do
    # outputs go to the test's own directory, not the work tree
    cmd=$(printf '%s' "$cmd" | sed "s|-o reports/out/|-o $T_TMP/|; s|^\./fom |\"\$FOM\" |")
    if eval "$cmd" >"$OUT" 2>"$ERR"; then ok "README: $cmd"; else not_ok "README: $cmd"; sed 's/^/# /' "$ERR" | head -5; fi
done <"$T_TMP/examples"

done_testing
