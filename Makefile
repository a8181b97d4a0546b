# fom — one non-recursive Makefile.  `make` builds ./fom after `make deps`
# has installed the Debian packages it needs (see mk/deps.sh).
.SUFFIXES:

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/fom
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/fom
CC ?= gcc
ifeq ($(origin CC),default)
CC = gcc
endif

# `make deps` (mk/deps.sh) installs the Debian packages fom needs; every
# object depends on it (order-only), so `make`, `make demo` and `make test`
# run it first, and nothing runs while the Makefile is read (make -n, make
# clean).  The flags are asked of pkg-config when first used, after deps.
PKGS = libxml-2.0 gsl sqlite3 yajl zlib
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(shell pkg-config --cflags $(PKGS) 2>/dev/null))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $$(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm)$(PKG_LIBS)
CMOCKA_CFLAGS = $(eval CMOCKA_CFLAGS := $$(shell pkg-config --cflags cmocka 2>/dev/null))$(CMOCKA_CFLAGS)
CMOCKA_LIBS = $(eval CMOCKA_LIBS := $$(shell pkg-config --libs cmocka 2>/dev/null))$(CMOCKA_LIBS)

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wno-unused-parameter -Wformat=2
BASE_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Isrc $(PKG_CFLAGS)
OPT ?= -O2 -g
CFLAGS ?=
BUILD ?= build/rel
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# compile jobs of the sanitizer build inside `make check` (the online cores)
JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

SRC := $(wildcard src/*.c src/*/*.c)
LIB_SRC := $(filter-out src/main.c,$(SRC))
UNIT_SRC := $(wildcard tests/unit/u-*.c)

OBJ = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRC))
LIB_OBJ = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRC))
UNIT_BIN = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

all: fom

fom: $(BUILD)/fom
	cp $(BUILD)/fom fom

$(BUILD)/fom: $(OBJ)
	$(CC) $(OPT) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJ) $(PKG_LIBS)

deps:
	@sh mk/deps.sh

$(BUILD)/obj/%.o: src/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(OPT) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) | deps
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CMOCKA_CFLAGS) $(OPT) $(CFLAGS) -Itests/unit -o $@ $< $(LIB_OBJ) $(CMOCKA_LIBS) $(PKG_LIBS)

-include $(OBJ:.o=.d)

units: $(UNIT_BIN)

# The layering of the README and the length of functions (mk/check-layers.sh).
check-layers:
	@sh mk/check-layers.sh

# The whole suite: the layering, unit tests (cmocka, TAP), command-line tests.
test: deps check-layers fom units
	@FOM="$(CURDIR)/fom" UNIT_DIR="$(BUILD)/tests" sh tests/run.sh

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer (hostile
# inputs get 120 s: a million nested brackets take about 25 s under ASan; a
# gzip bomb's refusal 60 s, where 10 s held alone and 13 s did beside another
# suite, and inflating the bomb's 10 GB would take minutes), then
# the command-line tests with one fom run in four under valgrind memcheck
# (mk/valgrind.mk; `make valgrind-test` puts every run under it).
check:
	$(MAKE) -j$(JOBS) BUILD=build/san OPT="$(SAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" build/san/fom units
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 HOSTILE_TIMEOUT=120 \
	  HOSTILE_FAST_S=60 FOM_UNDER_SANITIZER=1 FOM="$(CURDIR)/build/san/fom" UNIT_DIR="build/san/tests" sh tests/run.sh
	$(MAKE) valgrind-test VALGRIND_EVERY=4

# The main job: the seed's CANDLE FOM table, then the seed report and the
# H100 vs H200 real-data report (estimated from shipped traces) in reports/out/.
demo: deps fom
	./fom fom reports/candle-seed.xml
	./fom report reports/candle-seed.xml -o reports/out/candle-seed
	./fom report reports/h100-vs-h200.xml -o reports/out/h100-vs-h200
	@echo "reports written: reports/out/candle-seed/report.html reports/out/h100-vs-h200/report.html"

# The manual page is generated from the commands' --help texts (mk/man.sh),
# so it says what the binary says.
man: $(BUILD)/fom.1

$(BUILD)/fom.1: fom mk/man.sh
	@mkdir -p $(dir $@)
	sh mk/man.sh ./fom >$@.tmp && mv $@.tmp $@

install: fom $(BUILD)/fom.1
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)
	cp fom $(DESTDIR)$(BINDIR)/fom
	cp $(BUILD)/fom.1 $(DESTDIR)$(MANDIR)/man1/fom.1
	cp README.md $(DESTDIR)$(DOCDIR)/README.md
	cp -R machines estimators reports profiles $(DESTDIR)$(DATADIR)/
	rm -rf $(DESTDIR)$(DATADIR)/reports/out

clean:
	rm -rf build fom

.PHONY: all deps check-layers test check demo install clean units man

# Each area may add its own targets (bench::, validate::, fuzz::) in mk/*.mk.
include $(wildcard mk/*.mk)
