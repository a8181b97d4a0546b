# fom — one non-recursive Makefile.  `make` builds ./fom; the first run
# installs the Debian packages it needs (see mk/deps.sh).
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

# Install missing build dependencies before anything asks pkg-config.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
DEPS_STATUS := $(shell sh mk/deps.sh 1>&2 && echo ok)
ifneq ($(DEPS_STATUS),ok)
$(error build dependencies are missing; see the messages above)
endif
endif

PKGS = libxml-2.0 gsl sqlite3 yajl zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wno-unused-parameter -Wformat=2
BASE_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) -Isrc $(PKG_CFLAGS)
OPT ?= -O2 -g
CFLAGS ?=
BUILD ?= build/rel
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

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

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(OPT) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CMOCKA_CFLAGS) $(OPT) $(CFLAGS) -Itests/unit -o $@ $< $(LIB_OBJ) $(CMOCKA_LIBS) $(PKG_LIBS)

-include $(OBJ:.o=.d)

units: $(UNIT_BIN)

# The whole suite: unit tests (cmocka, TAP) then command-line tests.
test: fom units
	@FOM="$(CURDIR)/fom" UNIT_DIR="$(BUILD)/tests" sh tests/run.sh

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer (hostile
# inputs get 120 s: a million nested brackets take about 25 s under ASan), then
# the command-line tests with fom under valgrind memcheck (mk/valgrind.mk).
check:
	$(MAKE) BUILD=build/san OPT="$(SAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" build/san/fom units
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 HOSTILE_TIMEOUT=120 \
	  FOM="$(CURDIR)/build/san/fom" UNIT_DIR="build/san/tests" sh tests/run.sh
	$(MAKE) valgrind-test

# The main job: the seed's CANDLE FOM table, then the seed report and the
# H100 vs H200 real-data report (estimated from shipped traces) in reports/out/.
demo: fom
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

.PHONY: all test check demo install clean units man

# Each area may add its own targets (bench::, validate::, fuzz::) in mk/*.mk.
include $(wildcard mk/*.mk)
