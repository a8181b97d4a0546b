#!/bin/sh
# Make sure the Debian packages fom builds and runs with are present.
# Installs them with apt-get when run as root; otherwise names them.
# Prints nothing when everything is there, so it is cheap to run each build.
set -u
missing=""
need() { # need PKG-CONFIG-NAME DEBIAN-PACKAGE
    pkg-config --exists "$1" 2>/dev/null || missing="$missing $2"
}
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
need libxml-2.0 libxml2-dev
need gsl libgsl-dev
need sqlite3 libsqlite3-dev
need yajl libyajl-dev
need zlib zlib1g-dev
need cmocka libcmocka-dev
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox"
command -v sqlite3 >/dev/null 2>&1 || missing="$missing sqlite3"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
# the measuring harness (estimators/measure/) and its test: PyTorch for
# Debian's own python3, which need not be the first python3 on PATH
python3 -c 'import torch' >/dev/null 2>&1 ||
    /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || missing="$missing python3-torch"
command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing from Debian:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || true
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >&2 || {
        echo "deps: apt-get install failed for:$missing" >&2
        exit 1
    }
    exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: install them with: sudo apt-get install$missing" >&2
exit 1
