#!/bin/sh
# -o onto what is not a plain new file: a device or FIFO is written
# straight into (never replaced), a full device is exit 3, a symbolic link
# stays a link to the new contents, an existing file keeps its mode and
# hard links, a 250-character name works, a full disk keeps the old file.
. "${TESTS_DIR:-$(dirname "$0")/..}/t/lib.sh"
. "$TESTS_DIR/t/hostile.sh"
STUDY=reports/candle-seed.xml
"$FOM" fom "$ROOT/$STUDY" --format json >"$T_TMP/want.json"
cd "$T_TMP" || exit 1

# devices: nodes of its own (1,3 is the null device, 1,7 the full one), so
# that a wrong rename can never replace the system's /dev/null or /dev/full
if mknod null c 1 3 2>/dev/null && mknod full-dev c 1 7 2>/dev/null; then
    hostile_run 0 fom "$ROOT/$STUDY" --format json -o null
    if [ -c null ]; then ok "device node still a device"; else not_ok "device node replaced: $(ls -l null)"; fi
    # a full device: the write error is a system error
    hostile_run 3 fom "$ROOT/$STUDY" --format json -o full-dev
    expect_err_contains "cannot write 'full-dev': No space left on device"
    if [ -c full-dev ]; then ok "full device still a device"; else not_ok "full device replaced"; fi
else
    ok "# SKIP device nodes: mknod not permitted here"
fi

# a FIFO: its reader gets the output, the FIFO stays
mkfifo fifo
cat fifo >fifo.out &
reader=$!
hostile_run 0 fom "$ROOT/$STUDY" --format json -o fifo
if [ -p fifo ]; then ok "FIFO still a FIFO"; else not_ok "FIFO replaced"; kill $reader; fi
wait $reader
if cmp -s fifo.out want.json; then ok "FIFO reader got the output"; else not_ok "FIFO reader got something else"; fi

# a symbolic link (relative, into another folder): the link stays, its
# target gets the output and keeps its mode
mkdir sub
echo old >sub/target
chmod 640 sub/target
ln -s sub/target link
hostile_run 0 fom "$ROOT/$STUDY" --format json -o link
if [ -L link ] && [ "$(readlink link)" = sub/target ]; then ok "link kept"; else not_ok "link replaced"; fi
if cmp -s sub/target want.json; then ok "link target has the output"; else not_ok "link target not written"; fi
if [ "$(stat -c %a sub/target)" = 640 ]; then ok "target mode 640 kept"; else not_ok "target mode now $(stat -c %a sub/target)"; fi
# a dangling link: the file it names is created
ln -s sub/new dangling
hostile_run 0 fom "$ROOT/$STUDY" --format json -o dangling
if [ -L dangling ] && cmp -s sub/new want.json; then ok "dangling link: target created"; else not_ok "dangling link: $(ls -l dangling)"; fi
# a loop of links: refused
ln -s loop2 loop1
ln -s loop1 loop2
hostile_run 3 fom "$ROOT/$STUDY" -o loop1
expect_err_contains "loop1"

# mode of an existing file
echo old >private
chmod 600 private
hostile_run 0 fom "$ROOT/$STUDY" --format json -o private
if [ "$(stat -c %a private)" = 600 ] && cmp -s private want.json; then ok "mode 600 kept"; else not_ok "mode now $(stat -c %a private)"; fi

# hard links: both names see the new contents
echo old >hard
ln hard hard2
hostile_run 0 fom "$ROOT/$STUDY" --format json -o hard
if [ "$(stat -c %h hard)" = 2 ] && cmp -s hard2 want.json; then ok "hard links kept"; else not_ok "hard links: $(stat -c %h hard)"; fi
# a failing command leaves a hard-linked file as it was
echo kept >hard
: >empty.json
hostile_run 1 ingest empty.json --format-out json -o hard
if [ "$(cat hard2)" = kept ]; then ok "hard-linked file kept after a bad input"; else not_ok "hard-linked file changed"; fi

# a 250-character name (the longest most file systems take is 255)
long=$(printf '%0250d' 0 | tr 0 a)
hostile_run 0 fom "$ROOT/$STUDY" --format json -o "$long"
if cmp -s "$long" want.json; then ok "250-character name written"; else not_ok "250-character name not written"; fi

ls -a | grep '\.tmp\.' >left || true
if [ -s left ]; then not_ok "temporary files left: $(tr '\n' ' ' <left)"; else ok "no temporary file left"; fi

# a full disk: exit 3, the previous file stays, nothing else is left
if [ "$(id -u)" = 0 ] && mkdir -p full && mount -t tmpfs -o size=16k tmpfs full 2>/dev/null; then
    echo previous >full/out.json
    head -c 12000 /dev/zero >full/filler 2>/dev/null
    hostile_run 3 ingest "$ROOT/profiles/p1b3_h200_fp32_b100.json.gz" --format-out json -o full/out.json
    expect_err_contains "full/out.json"
    if [ "$(cat full/out.json)" = previous ]; then ok "full disk: previous file kept"; else not_ok "full disk: previous file changed"; fi
    if [ "$(ls -A full | tr '\n' ' ')" = "filler out.json " ]; then ok "full disk: nothing left"; else not_ok "full disk left: $(ls -A full)"; fi
    umount full
else
    ok "# SKIP full disk: cannot mount a tmpfs here (needs root)"
fi
done_testing
