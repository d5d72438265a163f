# kruise-webhook: plain GNU make, one output directory per build flavour.
#   make            build build/kruise-webhook
#   make run        build and start the server on its embedded default (standalone)
#   make test       unit + integration + vector tests, then the same in an ASan+UBSan build
#   make bench      in-process benchmarks (never part of make test)
# V=1 shows full command lines.

STD    = -std=c11 -D_POSIX_C_SOURCE=200809L
WARN   = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
         -Wformat=2 -Wundef -Wvla -Wimplicit-fallthrough -Wcast-qual
WERROR ?= -Werror
OPT    ?= -O2 -g
PKGS   = libmicrohttpd gnutls openssl jansson yaml-0.1 libcurl
BUILD  ?= build
PYTHON ?= python3
PREFIX ?= /usr/local

BIN       = $(BUILD)/kruise-webhook
UNIT_BIN  = $(BUILD)/test/unit-tests
HARNESS   = $(BUILD)/test/vector-harness
BENCH_BIN = $(BUILD)/test/bench

# pkg-config runs once, and only after the dependency check below has had its chance to
# install what is missing (a recursively expanded variable that memoises itself).
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS)))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS)))$(PKG_LIBS)

CFLAGS  = $(STD) $(WARN) $(WERROR) $(OPT) -Iwebhook -I. $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDLIBS  = $(PKG_LIBS) -lpthread -lm

SRCS      := $(filter-out webhook/main.c,$(shell find webhook certs -name '*.c' | sort))
OBJS      := $(SRCS:%.c=$(BUILD)/obj/%.o)
TSUP_SRCS := $(shell find test/support -name '*.c' 2>/dev/null | sort)
TSUP_OBJS := $(TSUP_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_SRCS := $(sort $(wildcard test/unit/test_*.c))
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/test/unit/runner.o

ifeq ($(V),1)
Q =
else
Q = @
endif

.PHONY: all run test check unit integration vectors test-vectors asan tsan bench fuzz \
        check-src install clean deps fuzz-merge stress FORCE

all: $(BIN)

# --- dependencies -------------------------------------------------------------------------
# Missing libraries are installed through scripts/install-deps.sh (apt-get, as root); when
# that is impossible the script prints the exact command to run and the build stops.
$(BUILD)/.deps-ok:
	@mkdir -p $(@D)
	@if ! pkg-config --exists $(PKGS) 2>/dev/null || ! command -v openssl >/dev/null 2>&1 || \
	    ! $(PYTHON) -c 'import yaml' >/dev/null 2>&1; then \
	    echo "kruise-webhook: installing missing build dependencies"; \
	    scripts/install-deps.sh || exit 1; \
	fi
	@pkg-config --exists $(PKGS) || { echo "kruise-webhook: pkg-config still cannot find: $(PKGS)"; exit 1; }
	@touch $@

deps: $(BUILD)/.deps-ok

# --- compile ------------------------------------------------------------------------------
# .flags changes whenever CFLAGS change, forcing a rebuild of that flavour.
$(BUILD)/.flags: FORCE | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@echo '$(CFLAGS)' | cmp -s - $@ || echo '$(CFLAGS)' > $@

$(BUILD)/obj/%.o: %.c $(BUILD)/.flags | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -I$(BUILD)/gen -MMD -MP -c $< -o $@

$(BIN): $(OBJS) $(BUILD)/obj/webhook/main.o
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The unit runner's test list is generated from the TEST(name) lines of test/unit/test_*.c,
# so adding a test never means editing a shared list.
$(BUILD)/gen/unit_tests.inc: $(UNIT_SRCS)
	@mkdir -p $(@D)
	@sed -n 's/^TEST(\([A-Za-z0-9_]*\)).*/X(\1)/p' $(UNIT_SRCS) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/test/unit/runner.o: $(BUILD)/gen/unit_tests.inc

$(UNIT_BIN): $(UNIT_OBJS) $(TSUP_OBJS) $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(HARNESS): $(BUILD)/obj/test/harness/harness.o $(TSUP_OBJS) $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BENCH_BIN): $(BUILD)/obj/test/bench/bench.o $(TSUP_OBJS) $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# --- run ----------------------------------------------------------------------------------
run: $(BIN)
	@echo "kruise-webhook: starting standalone on https://localhost:9876 with --state examples/"
	@echo "  try: curl --cacert /tmp/kruise-webhook-certs/ca-cert.pem -H 'Content-Type: application/json' \\"
	@echo "         --data @examples/requests/pod-create.json https://localhost:9876/mutate-pod"
	exec $(BIN) --state examples/

# --- tests --------------------------------------------------------------------------------
# check runs every suite of one build flavour; test runs it for release and for ASan+UBSan.
test: check-src
	$(MAKE) check
	$(MAKE) asan

check: unit integration vectors

unit: $(UNIT_BIN)
	$(UNIT_BIN)

integration: $(BIN) $(HARNESS)
	$(PYTHON) test/integration/run.py --bin $(BIN) --harness $(HARNESS)
	$(PYTHON) test/integration/certs.py --bin $(BIN)
	$(PYTHON) test/integration/hostile.py --bin $(BIN)

vectors: $(BIN) $(HARNESS)
	$(HARNESS) --bin $(BIN) --vectors test/vectors

# The same against a real cluster: make test-vectors KUBECONFIG=~/.kube/config
test-vectors: $(BIN) $(HARNESS)
	$(HARNESS) --bin $(BIN) --vectors test/vectors $(if $(KUBECONFIG),--kubeconfig $(KUBECONFIG))

SAN_OPT = -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all
asan:
	$(MAKE) BUILD=build/asan OPT="$(SAN_OPT) -fsanitize=address,undefined" \
	    LDFLAGS="-fsanitize=address,undefined" check

tsan:
	TSAN_OPTIONS="suppressions=$(CURDIR)/test/tsan.supp $(TSAN_OPTIONS)" \
	    $(MAKE) BUILD=build/tsan OPT="$(SAN_OPT) -fsanitize=thread" LDFLAGS="-fsanitize=thread" check

# The attacks of issue 17 at full size (thousands of connections, peak memory): minutes, not
# part of make test. Needs `ulimit -n` of 4096 or more (the script raises the soft limit).
stress: $(BIN)
	$(PYTHON) test/stress/stress.py --bin $(BIN)

bench: $(BENCH_BIN)
	$(BENCH_BIN)

# Fuzzing (clang, libFuzzer + ASan + UBSan). Each target runs on a copy of its checked-in
# corpus under build/fuzz/corpus/, so a run never writes the checked-in one; `make fuzz-merge`
# is the only step that adds (minimised) new finds to test/fuzz/corpus/. FUZZ_TARGETS picks
# targets (default: all); FUZZ_SECONDS bounds each; FUZZ_JOBS runs that many processes per
# target. Every run prints the executions it made (one "execs" line per target).
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
FUZZ_SRCS    := $(wildcard test/fuzz/fuzz_*.c)
FUZZ_ALL     := $(FUZZ_SRCS:test/fuzz/%.c=%)
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_MAKE     = $(MAKE) BUILD=build/fuzz CC=clang \
                OPT="-O1 -g -fsanitize=fuzzer-no-link,address,undefined"
fuzz:
	$(FUZZ_MAKE) fuzz-run FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)"

fuzz-merge:
	$(FUZZ_MAKE) fuzz-merge-run FUZZ_TARGETS="$(FUZZ_TARGETS)"

.PHONY: fuzz-run fuzz-merge fuzz-merge-run fuzz-build
fuzz-build:
	$(FUZZ_MAKE) $(FUZZ_TARGETS:%=build/fuzz/test/%)

fuzz-run: $(FUZZ_TARGETS:%=$(BUILD)/test/%)
	@for name in $(FUZZ_TARGETS); do \
	    scripts/fuzz.sh run $(BUILD) $$name $(FUZZ_SECONDS) $(FUZZ_JOBS) || exit 1; done

fuzz-merge-run: $(FUZZ_TARGETS:%=$(BUILD)/test/%)
	@for name in $(FUZZ_TARGETS); do scripts/fuzz.sh merge $(BUILD) $$name || exit 1; done

$(BUILD)/test/fuzz_%: $(BUILD)/obj/test/fuzz/fuzz_%.o $(OBJS)
	@mkdir -p $(@D)
	$(Q)$(CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

# --- housekeeping -------------------------------------------------------------------------
check-src:
	@scripts/checksrc.sh

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/kruise-webhook

clean:
	rm -rf build
