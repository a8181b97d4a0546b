#!/bin/sh
# chromium-check.sh HTML PNG MIN_CHARTS: render HTML with headless Chromium
# into PNG (1200 x 3000) and check that the page is not blank and that
# its charts were drawn: enough distinct colours, enough non-white pixels,
# and saturated (chart-coloured) pixels, which text and tables alone lack.
# The HTML must hold at least MIN_CHARTS <svg> elements.
# Installs the Debian package chromium when it is missing and we are root.
# Exit: 0 checks passed, 1 a check failed, 77 Chromium is not available.
set -u
html=$1; png=$2; min_charts=${3:-1}

find_chromium() {
    for c in chromium chromium-browser google-chrome; do
        if command -v "$c" >/dev/null 2>&1; then echo "$c"; return 0; fi
    done
    return 1
}

browser=$(find_chromium) || browser=""
if [ -z "$browser" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "# chromium missing: installing the Debian package (this takes a while)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq chromium >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; }
    browser=$(find_chromium) || browser=""
fi
if [ -z "$browser" ]; then
    echo "# chromium is not installed and could not be installed"
    exit 77
fi

n_svg=$(grep -o '<svg' "$html" | wc -l)
if [ "$n_svg" -lt "$min_charts" ]; then
    echo "# $html holds $n_svg <svg> elements, expected at least $min_charts"
    exit 1
fi

profile=$(mktemp -d)
rm -f "$png"
# a private profile directory keeps runs independent; --no-sandbox because
# tests may run as root in a container
timeout 180 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$profile" --window-size=1200,3000 --screenshot="$png" \
    "file://$(cd "$(dirname "$html")" && pwd)/$(basename "$html")" >"$profile.log" 2>&1
rc=$?
if [ ! -s "$png" ]; then
    echo "# chromium wrote no screenshot (status $rc):"
    tail -5 "$profile.log" | sed 's/^/#   /'
    rm -rf "$profile" "$profile.log"
    exit 1
fi
rm -rf "$profile" "$profile.log"

# Decode the PNG by hand (zlib + scanline filters) and count pixels.
python3 - "$png" <<'PY'
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("# not a PNG"); sys.exit(1)
pos, idat, w = 8, [], 0
while pos < len(data):
    n, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif typ == b"IDAT":
        idat.append(body)
    pos += 12 + n
if depth != 8 or ctype not in (2, 6) or interlace:
    print("# unexpected PNG layout: depth %d colour type %d interlace %d" % (depth, ctype, interlace))
    sys.exit(1)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(b"".join(idat))
stride = w * bpp
prev = bytearray(stride)
colours, nonwhite, saturated = set(), 0, 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:
        for i in range(bpp, stride):
            line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f == 3:
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
    elif f == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pr) & 255
    prev = line
    if y % 2:
        continue    # every other row is plenty for counting
    for x in range(0, stride, bpp * 2):
        r, g, b = line[x], line[x + 1], line[x + 2]
        colours.add((r, g, b))
        if r < 240 or g < 240 or b < 240:
            nonwhite += 1
        if max(r, g, b) - min(r, g, b) > 60:
            saturated += 1
sampled = (h // 2) * (w // 2)
print("# screenshot %dx%d: %d distinct colours, %.1f%% non-white, %d saturated samples"
      % (w, h, len(colours), 100.0 * nonwhite / sampled, saturated))
ok = len(colours) >= 16 and nonwhite >= 0.01 * sampled and saturated >= 2000
sys.exit(0 if ok else 1)
PY
