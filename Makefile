# kruise-webhook: plain GNU make, one output directory per build flavour.
#   make            build build/kruise-webhook
#   make run        build and start the server standalone on loopback (ARGS=... adds flags)
#   make test       unit + integration + vector + end-to-end tests, then the same in an
#                   ASan+UBSan build
#   make bench      in-process benchmarks (never part of make test)
#   make bench-http the same server over HTTPS beside a Go webhook and nginx (wrk)
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
# Every suite runs under the loopback guard: a server a test starts that listens on anything but
# 127.0.0.1/::1 is refused and fails the suite (test/guard/loopback-only).
GUARD_SO  = $(BUILD)/test/loopback-only.so
GUARD     = test/guard/loopback-only $(abspath $(GUARD_SO))
STORM_BIN = $(BUILD)/test/status-storm
REGEX_PROBE = $(BUILD)/test/regex-probe
PTCHECK_BIN = $(BUILD)/test/podtemplate-check
MANIFESTS_TOOL = $(BUILD)/tools/manifests

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

.PHONY: all run test check unit integration vectors test-vectors e2e asan tsan bench bench-http bench-rss fuzz \
        check-src install clean deps fuzz-merge stress crds manifests image oracle diff diff-short \
        diff-long regexdiff regexdiff-short diff-podtemplate kruise-manager FORCE

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
# so adding a test never means editing a shared list; each test carries its file (its suite).
$(BUILD)/gen/unit_tests.inc: $(UNIT_SRCS) Makefile
	@mkdir -p $(@D)
	@for f in $(UNIT_SRCS); do \
	    sed -n "s/^TEST(\([A-Za-z0-9_]*\)).*/X($$(basename $$f .c), \1)/p" $$f; done > $@.tmp
	@mv $@.tmp $@

$(BUILD)/obj/test/unit/runner.o: $(BUILD)/gen/unit_tests.inc

# The Go-type model (webhook/gocompat/types/*.gotypes) is compiled into the program as C string
# literals, one per line, each file opened by a "# file: <name>" line for error messages.
GOTYPES := $(sort $(wildcard webhook/gocompat/types/*.gotypes))
$(BUILD)/gen/gotypes.inc: $(GOTYPES)
	@mkdir -p $(@D)
	@for f in $(GOTYPES); do echo "\"# file: $$(basename $$f)\","; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/",/' $$f; done > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/webhook/gocompat/gotype.o: $(BUILD)/gen/gotypes.inc

# kruise-manager's scheme (webhook/k8s/scheme.txt) likewise, one C string per group version.
$(BUILD)/gen/scheme.inc: webhook/k8s/scheme.txt
	@mkdir -p $(@D)
	@sed -e 's/^/"/' -e 's/$$/",/' $< > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/webhook/k8s/scheme.o: $(BUILD)/gen/scheme.inc

$(UNIT_BIN): $(UNIT_OBJS) $(TSUP_OBJS) $(BUILD)/obj/tools/webhookconfigs.o $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(HARNESS): $(BUILD)/obj/test/harness/harness.o $(TSUP_OBJS) $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The C side of make diff-podtemplate (test/podtemplate/podtemplate_check.c).
$(PTCHECK_BIN): $(BUILD)/obj/test/podtemplate/podtemplate_check.o $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(STORM_BIN): $(BUILD)/obj/test/storm/status_storm.o $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The generator of the CRDs and the webhook configurations, and the manifests' facts
# (tools/manifests.c, tools/webhookconfigs.c), linked with the program.
$(MANIFESTS_TOOL): $(BUILD)/obj/tools/manifests.o $(BUILD)/obj/tools/webhookconfigs.o $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The C side of make regexdiff: reads patterns and texts, answers what the regex engine says.
$(REGEX_PROBE): $(BUILD)/obj/test/regexdiff/probe/probe.o $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BENCH_BIN): $(BUILD)/obj/test/bench/bench.o $(TSUP_OBJS) $(OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# A plain shared object whatever the flavour: it is preloaded into sanitized and Python
# processes alike.
$(GUARD_SO): test/guard/loopback_only.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(STD) -D_GNU_SOURCE $(WARN) $(WERROR) -O2 -fPIC -shared -o $@ $< -ldl

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# --- run ----------------------------------------------------------------------------------
# A laptop, not a Pod: every listener on loopback and the example state. These are the
# binary's environment variables, so the environment overrides them and ARGS (flags) override
# both: make run ARGS='--bind-address 0.0.0.0 --log-format text'.
# /metrics shares the health port (one listener when both name the same address), not the
# binary's :8080: localhost:8080 is where kubectl sends requests when it has no kubeconfig,
# and a kubectl run by mistake must get "connection refused", not answers from this server.
run: export WEBHOOK_STATE ?= examples/
run: export WEBHOOK_BIND_ADDRESS ?= 127.0.0.1
run: export WEBHOOK_HEALTH_ADDR ?= 127.0.0.1:8000
run: export WEBHOOK_METRICS_ADDR ?= $(WEBHOOK_HEALTH_ADDR)
run: $(BIN)
	@echo "kruise-webhook: standalone with WEBHOOK_STATE=$$WEBHOOK_STATE" \
	    "WEBHOOK_BIND_ADDRESS=$$WEBHOOK_BIND_ADDRESS WEBHOOK_HEALTH_ADDR=$$WEBHOOK_HEALTH_ADDR" \
	    "WEBHOOK_METRICS_ADDR=$$WEBHOOK_METRICS_ADDR (its \"listening\" line says where it listens;" \
	    "a port in use: make run ARGS='--port 9443', or WEBHOOK_HEALTH_ADDR=127.0.0.1:8100 make run)"
	@echo "  try: curl --cacert /tmp/kruise-webhook-certs/ca-cert.pem -H 'Content-Type: application/json' \\"
	@echo "         --data @examples/requests/pod-create.json https://localhost:9876/mutate-pod"
	exec $(BIN) $(ARGS)

# --- tests --------------------------------------------------------------------------------
# check runs every suite of one build flavour; test runs it for release and for ASan+UBSan.
test: check-src
	$(MAKE) check
	$(MAKE) asan

check: unit integration vectors manifests e2e diff-short regexdiff-short

unit: $(UNIT_BIN) $(GUARD_SO)
	$(GUARD) $(UNIT_BIN)

integration: $(BIN) $(HARNESS) $(UNIT_BIN) $(STORM_BIN) $(GUARD_SO)
	$(GUARD) $(PYTHON) test/integration/run.py --bin $(BIN) --harness $(HARNESS) --unit $(UNIT_BIN)
	$(GUARD) $(PYTHON) test/integration/certs.py --bin $(BIN)
	$(GUARD) $(PYTHON) test/integration/writeback.py --storm $(STORM_BIN)
	$(GUARD) $(PYTHON) test/integration/pub.py --bin $(BIN)
	$(GUARD) $(PYTHON) test/integration/workloadspread.py --bin $(BIN)
	$(GUARD) $(PYTHON) test/integration/hostile.py --bin $(BIN)
	$(GUARD) $(PYTHON) test/integration/frictions.py --bin $(BIN)
	$(GUARD) $(PYTHON) test/integration/explain.py --bin $(BIN)

# test/vectors: the shared cases, kept identical to the specification's; test/diff-vectors: the
# cases the differential run found (make diff); test/handler-vectors: upstream's own _test.go
# tables as requests, answered by upstream's handlers (test/oracle/upstream-tests/record.py, then
# kwh-oracle port); all in the same format.
vectors: $(BIN) $(HARNESS) $(GUARD_SO)
	$(GUARD) $(HARNESS) --bin $(BIN) --vectors test/vectors
	$(GUARD) $(HARNESS) --bin $(BIN) --vectors test/diff-vectors
	$(GUARD) $(HARNESS) --bin $(BIN) --vectors test/handler-vectors

# manifests/ rendered with kubectl's kustomize and checked against the program's tables; the
# CRDs regenerated and compared with the checked-in ones; RBAC against the calls the server makes.
# Then the Helm chart with Helm (test/manifests/chart.py): helm lint, and helm template equal
# to manifests/ (Helm is built once with Go into build/gotools/; without Go, one skip line).
manifests: $(BIN) $(MANIFESTS_TOOL) $(GUARD_SO)
	$(GUARD) $(PYTHON) test/manifests/check.py --bin $(BIN) --tool $(MANIFESTS_TOOL)
	$(GUARD) $(PYTHON) test/manifests/chart.py --bin $(BIN) --tool $(MANIFESTS_TOOL)

# Writes manifests/crds/ from the Go-type model (tools/manifests.c), and copies them into the
# Helm chart (scripts/chart-files.sh); writes the webhook configurations of manifests/base/ and
# of the chart from the route table, with the entries of the routes that the Deployment's flags
# serve (tools/webhookconfigs.c); make manifests checks that this was done.
crds: $(MANIFESTS_TOOL)
	mkdir -p manifests/crds
	env -i $(MANIFESTS_TOOL) crds manifests/crds
	scripts/chart-files.sh
	env -i $(MANIFESTS_TOOL) webhooks manifests/base/deployment.yaml manifests/base \
	    charts/kruise-webhook/templates

# The same against a real cluster: make test-vectors KUBECONFIG=~/.kube/config
test-vectors: $(BIN) $(HARNESS) $(GUARD_SO)
	$(GUARD) $(HARNESS) --bin $(BIN) --vectors test/vectors $(if $(KUBECONFIG),--kubeconfig $(KUBECONFIG))

# End to end behind a real kube-apiserver and etcd (K8S_DIR/start.sh, or KUBE_APISERVER and
# ETCD), the vectors included; then the Helm chart installed and uninstalled with Helm on an
# API server of its own (test/e2e/helm.py); one "skipped" line when those cannot be had. It
# runs in the sanitizer pass too: only there do the API machinery's paths (relists, an API
# server that goes away and comes back, real conversion traffic) run under ASan+UBSan.
K8S_DIR ?= ../shared/k8s
e2e: $(BIN) $(HARNESS) $(GUARD_SO) kruise-manager
	$(GUARD) $(PYTHON) test/e2e/run.py --bin $(BIN) --harness $(HARNESS) --k8s $(K8S_DIR) \
	    --kruise-manager $(KM_DIR)/kruise-manager
	$(GUARD) $(PYTHON) test/e2e/helm.py --k8s $(K8S_DIR)

SAN_OPT = -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all
asan:
	$(MAKE) BUILD=build/asan OPT="$(SAN_OPT) -fsanitize=address,undefined" \
	    LDFLAGS="-fsanitize=address,undefined" check

tsan:
	TSAN_OPTIONS="suppressions=$(CURDIR)/test/tsan.supp $(TSAN_OPTIONS)" \
	    $(MAKE) BUILD=build/tsan OPT="$(SAN_OPT) -fsanitize=thread" LDFLAGS="-fsanitize=thread" check

# --- upstream as the oracle ----------------------------------------------------------------
# make oracle builds build/oracle/kwh-oracle (test/oracle, Go: upstream OpenKruise's own webhook
# handlers at the pinned commit, and the differential runner); without Go, the module proxy or
# upstream's code it says so in one line and the targets below skip. KRUISE_SRC names a copy of
# upstream's repository when the module proxy does not serve the commit (scripts/oracle.sh).
# make diff SEED=n CASES=n sends generated cases to both servers; each unexplained difference is
# shrunk and written under $(BUILD)/diff/vectors/ (ready for test/diff-vectors/); known
# departures are listed in test/oracle/departures.json. diff-short is the part of make test.
# One oracle for every build flavour (it is Go, built once): build/oracle whatever BUILD is.
ORACLE_DIR ?= build/oracle
ORACLE     = $(ORACLE_DIR)/kwh-oracle
SEED      ?= 1
CASES     ?= 2000
DIFF_ONLY ?=
oracle:
	@scripts/oracle.sh $(ORACLE_DIR)

diff: $(BIN) oracle
	@if [ -x $(ORACLE) ]; then \
	    $(ORACLE) scheme | cmp -s - webhook/k8s/scheme.txt || { \
	        echo "diff: webhook/k8s/scheme.txt is not kruise-manager's scheme (kwh-oracle scheme)"; \
	        exit 1; }; \
	    $(ORACLE) diff --bin $(BIN) --seed $(SEED) --cases $(CASES) --out $(BUILD)/diff \
	        $(if $(DIFF_ONLY),--only $(DIFF_ONLY)); \
	else echo "diff: skipped: no oracle (make oracle says why)"; fi

diff-short:
	$(MAKE) diff CASES=150
	$(MAKE) diff-podtemplate CASES=2000

# Pod template validation at the function level (no served path exposes the whole template
# yet): kwh-oracle podtemplate generates SEED-seeded templates, validates them with upstream's
# convertor.ConvertPodTemplateSpec + ValidatePodTemplateSpec and compares with
# $(PTCHECK_BIN); differences go to $(BUILD)/diff/podtemplate/, with a tally of the rules hit.
# Then the same templates as Pods with metadata (WorkloadSpread's ValidatePodSpec).
diff-podtemplate: $(PTCHECK_BIN) oracle
	@if [ -x $(ORACLE) ]; then \
	    $(ORACLE) podtemplate diff --bin $(PTCHECK_BIN) --seed $(SEED) --cases $(CASES) \
	        --out $(BUILD)/diff/podtemplate && \
	    $(ORACLE) podtemplate diff -pods --bin $(PTCHECK_BIN) --seed $(SEED) --cases $(CASES) \
	        --out $(BUILD)/diff/podtemplate-pods; \
	else echo "diff-podtemplate: skipped: no oracle (make oracle says why)"; fi

# make kruise-manager builds upstream's own kruise-manager from its main.go at the same commit
# (scripts/kruise-manager.sh) for the e2e migration scenario that runs it; without Go, the
# module proxy or upstream's code it says so in one line and that scenario is skipped. Built
# once for every build flavour, like the oracle.
KM_DIR ?= build/kruise-manager
kruise-manager:
	@scripts/kruise-manager.sh $(KM_DIR)

diff-long:
	$(MAKE) diff CASES=20000

# Go 1.23's regexp (upstream's release) against ours on generated patterns: acceptance, error
# messages, parse trees and MatchString (test/regexdiff, scripts/regexdiff.sh). The short run is
# part of make test; without Go 1.23.9 both say "skipped" in one line.
REGEXDIFF_N    ?= 1000000
REGEXDIFF_SEED ?= 1
regexdiff: $(REGEX_PROBE)
	scripts/regexdiff.sh $(REGEX_PROBE) $(REGEXDIFF_N) $(REGEXDIFF_SEED)

regexdiff-short:
	$(MAKE) regexdiff REGEXDIFF_N=20000

# The attacks of issue 17 at full size (thousands of connections, peak memory): minutes, not
# part of make test. Needs `ulimit -n` of 4096 or more (the script raises the soft limit).
stress: $(BIN)
	$(PYTHON) test/stress/stress.py --bin $(BIN)

bench: $(BENCH_BIN)
	$(BENCH_BIN)

# Over HTTPS, side by side in one run (test/bench/http.sh; its header explains the table): nginx's
# static answer (the ceiling), this build, upstream OpenKruise's own webhook path (the oracle with
# kruise's informer cache over a real kube-apiserver) and the Go webhook peer of ../shared/bench.
# Its tools are installed like the libraries above when missing. ROUNDS (3) rounds, medians.
BENCH_DIR ?= ../shared/bench
ROUNDS    ?= 3
bench-http: $(BIN) oracle
	@if ! command -v wrk >/dev/null 2>&1 || ! command -v nginx >/dev/null 2>&1 || \
	    ! command -v jq >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then \
	    echo "kruise-webhook: installing the benchmark tools"; \
	    scripts/install-deps.sh bench || exit 1; \
	fi
	ROUNDS=$(ROUNDS) BENCH_DIR=$(BENCH_DIR) K8S_DIR=$(K8S_DIR) test/bench/http.sh $(BIN) $(ORACLE)

# Resident memory under the loads of issue 28 (test/bench/rss.sh: wrk -t2 -c32 on /convert with the
# 100-StatefulSet review, then /mutate-pod): idle, peak, 1 s and 3 s after, and where the peak is.
bench-rss: $(BIN)
	@command -v wrk >/dev/null 2>&1 || scripts/install-deps.sh bench || exit 1
	test/bench/rss.sh $(BIN) $(or $(SECONDS_PER_LOAD),10)

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

# --- the container image --------------------------------------------------------------------
# Built by docker or podman, whichever is installed, from the Dockerfile; the tag is the one
# manifests/ deploys. Base images come from Docker Hub (debian:12, debian:12-slim).
VERSION := $(shell sed -n 's/^\#define WH_VERSION "\(.*\)"/\1/p' webhook/config/config.h)
IMAGE   ?= kruise-webhook:$(VERSION)
ENGINE  ?= $(shell command -v docker 2>/dev/null || command -v podman 2>/dev/null)
image:
	@if [ -z "$(ENGINE)" ]; then \
	    echo "make image: neither docker nor podman is installed"; exit 1; fi
	$(ENGINE) build -t $(IMAGE) .

# --- housekeeping -------------------------------------------------------------------------
check-src:
	@scripts/checksrc.sh

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/kruise-webhook

clean:
	rm -rf build
