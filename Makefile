# Studio. `make help` lists the targets.
GO ?= go
# staticcheck, pinned; `go run` fetches it through the module proxy on first use.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
ADDR ?= 127.0.0.1:8080
DATA ?= ./data
# -trimpath leaves the checkout's folder out of what go compiles, so that
# the build cache serves a fresh clone in any folder: without it make test
# in a new clone compiled the whole module again, with and without -race
# (about 300 s of CPU, which its runs waited for).
export GOFLAGS += -trimpath

.PHONY: help run build generate test test-postgres deps-test bench screenshots verify

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

generate: ## regenerate templ components (the generated files are committed)
	$(GO) tool templ generate -path web/templates

build: generate ## build bin/studio
	$(GO) build -o bin/studio ./cmd/studio

run: build ## build and start Studio with the demo site on http://$(ADDR)
	./bin/studio serve --addr $(ADDR) --data $(DATA) --demo

deps-test: ## install what the tests need (Chromium and axe-core for the browser tests, PostgreSQL for the conformance suite)
	@command -v pg_config >/dev/null 2>&1 && test -x "$$(pg_config --bindir)/initdb" || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
		echo "Installing PostgreSQL for the conformance suite…"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; }
	@command -v chromium >/dev/null 2>&1 || { \
		echo "Installing Chromium for the browser tests…"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
	@command -v npm >/dev/null 2>&1 || { \
		echo "Installing npm for axe-core…"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq npm >/dev/null; }
	@cd test/axe && node -e 'process.exit(require("./node_modules/axe-core/package.json").version === require("./package.json").devDependencies["axe-core"] ? 0 : 1)' 2>/dev/null || { \
		echo "Installing axe-core (test/axe/package-lock.json) for the browser tests…"; \
		npm ci --no-audit --no-fund --silent; }

# Four runs at once, and the tree's checks (verify) beside them:
#
# - The race run: every test under -race, but for the browser and scale
#   tests and the process tests (below). Four tests of a package at once
#   and three packages at once (-p 3 -parallel 4).
# - The browser and scale run, without -race, the browser tests two at a
#   time. The browser tests (headless Chromium, axe-core on every page
#   state) are bound by Chromium's CPU, not by Go's; the server code they
#   drive runs under -race in the handlers packages' tests. The AtScale tests
#   measure pages on large sites, which -race slows about 25 times and
#   smaller tests already race.
# - The process run: cmd/studio's tests that start the studio binary
#   (names ending in Process; TestProcessTestsSaySo keeps the names
#   true), without -race and sixteen at once. The code they test runs in
#   the binary, which is built without -race, so the detector would watch
#   only their setup; and they mostly wait, for a minute to come, a lease
#   to lapse, a process to start: four at a time, their waits made the
#   race run's cmd/studio the longest package of CI (700 s of 1,260).
# - The conformance suite on PostgreSQL: the store's tests and every
#   engine package's, again, each on a database of a throwaway server
#   (store/storetest); the process tests run both engines. Without -race:
#   the Go code is the code the race run checks; what differs is the
#   database. The test processes share one server (internal/testpg), each
#   with databases of its own.
#
# The browser run and the process run wait on every step for Chromium, the
# server or the binary to answer: starved of CPU they take twice their
# time, and the process tests' minutes and leases are real. The race and
# PostgreSQL runs (and verify) run under nice, on the CPU they leave.
NORACE = Browser|AtScale|Process$$
PLAIN = Browser|AtScale
PROCESS = Process$$
CONFORMANCE = ./store/... ./engine/...
#
# go test starts packages in the order it is given them, so the longest
# are named first: the short ones then fill the gaps at the end, instead of
# a long one starting last and running alone.
RACE_FIRST = ./handlers ./handlers/studio ./store ./engine/releases ./cmd/studio ./engine/scheduler ./engine/setup ./handlers/site ./engine/identity ./engine/recurrence ./handlers/mcp
PG_FIRST = ./engine/releases ./store ./engine/scheduler ./engine/jobs
#
# Each run's -json stream goes through internal/testsum, which prints what
# go test prints without -v and keeps every test's time (and every
# package's, with the instant it ended); the ten slowest of the runs close
# the output.
#
# The race run compiles SQLite's engine (modernc.org/sqlite/lib, C
# translated to Go) without the detector's checks: it is C, which the
# detector never watched when Go called it through cgo, and checking every
# memory access of its virtual machine was a quarter to a third of the
# CPU of the packages that use it most (handlers 159 core-s against 112,
# store 61 against 47). Only lib: with modernc's libc and driver compiled
# so too, the detector lost orderings it needs and reported races that
# are not there (25 in ten runs of TestNewSnapshotIsBuiltOnce; none in 40
# with lib alone). Studio's own packages, the driver and libc keep every
# check.
RACE_GCFLAGS = -gcflags='modernc.org/sqlite/lib=-race=false'
TIMES = test-artifacts/times
test: SHELL := bash
test: deps-test ## install test needs, check the tree, run every test (with -race, but for the browser, scale and process tests), and the store's and engine's on PostgreSQL
	@set -o pipefail; mkdir -p $(TIMES); rm -f $(TIMES)/*.tsv $(TIMES)/*.packages; $(GO) build -o $(TIMES)/testsum ./internal/testsum && $(GO) build -o $(TIMES)/testpg ./internal/testpg; \
	sum() { $(TIMES)/testsum -times $(TIMES)/$$1.tsv -packages $(TIMES)/$$1.packages; }; \
	(nice -n 10 $(MAKE) --no-print-directory verify >$(TIMES)/verify.log 2>&1) & verify=$$!; \
	(nice -n 10 $(GO) test -json -race $(RACE_GCFLAGS) -count=1 -timeout 18m -p 3 -parallel 4 -skip '$(NORACE)' $(RACE_FIRST) ./... 2>&1 | sum race) & race=$$!; \
	(STUDIO_TEST_DATABASE=postgres nice -n 10 $(TIMES)/testpg $(GO) test -json -count=1 -timeout 18m $(PG_FIRST) $(CONFORMANCE) 2>&1 | sum postgres) & pg=$$!; \
	($(GO) test -json -count=1 -timeout 18m -parallel 16 -run '$(PROCESS)' ./cmd/studio 2>&1 | sum process) & proc=$$!; \
	$(GO) test -json -count=1 -timeout 18m -parallel 2 -run '$(PLAIN)' ./cmd/studio ./handlers/studio ./handlers/api 2>&1 | sum browser; plain=$$?; \
	wait $$verify; verified=$$?; cat $(TIMES)/verify.log; \
	wait $$race; raced=$$?; wait $$pg; pged=$$?; wait $$proc; proced=$$?; \
	$(TIMES)/testsum -slowest 10 $(TIMES)/*.tsv; \
	if [ $$verified -ne 0 ] || [ $$plain -ne 0 ] || [ $$raced -ne 0 ] || [ $$pged -ne 0 ] || [ $$proced -ne 0 ]; then \
		echo "make test: FAILED (verify $$verified, race run $$raced, browser and scale run $$plain, process run $$proced, PostgreSQL run $$pged)"; exit 1; fi

test-postgres: deps-test ## every store and engine test on PostgreSQL, alone (make test runs them too), on one throwaway server
	mkdir -p $(TIMES) && $(GO) build -o $(TIMES)/testpg ./internal/testpg
	STUDIO_TEST_DATABASE=postgres $(TIMES)/testpg $(GO) test -count=1 -timeout 18m $(CONFORMANCE)

screenshots: deps-test ## the browser tests again, saving screenshots of each page they check (light and dark, desktop and phone) in test-artifacts/screenshots
	STUDIO_SCREENSHOTS=1 $(GO) test -count=1 -timeout 18m -parallel 2 -run 'Browser' ./cmd/studio

bench: ## run the Go benchmarks, the Schedules pages' and the public site's timing under load (no race detector)
	$(GO) test -run '^$$' -bench . -benchmem ./engine/... ./handlers/site
	STUDIO_PERF=1 $(GO) test -count=1 -run 'TestSchedulesPagesAtScale' -v ./handlers/studio | grep -E 'bytes|ok|FAIL'
	STUDIO_PERF=1 $(GO) test -count=1 -run 'TestSiteUnderLoad' -v ./handlers/site | grep -E 'req/s|gates:|ok|FAIL'
	STUDIO_PERF=1 $(GO) test -count=1 -run 'TestSiteAgainstStatic' -v ./handlers/site | grep -E 'req/s|ok|FAIL'
	STUDIO_PERF=1 $(GO) test -count=1 -run 'TestPublishCostBySiteSize' -v ./engine/scheduler | grep -E 'fixture|create|publish a|snapshot holds|ok|FAIL'
	STUDIO_PERF=1 $(GO) test -count=1 -run 'TestReleasesListAtScale' -v ./handlers/api | grep -E 'releases,|÷ 400|ok|FAIL'
	STUDIO_PERF=1 $(GO) test -count=1 -run 'TestContentListAtScale' -v ./handlers/studio | grep -E 'content list|waiting|ok|FAIL'
	STUDIO_PERF=1 $(GO) test -count=1 -run 'TestBurstOfReleasesInOneMinuteProcess' -v ./cmd/studio | grep -E 'burst|ok|FAIL'
	STUDIO_PERF=1 $(GO) test -count=1 -run 'TestBurstAcrossInstancesProcess' -v ./cmd/studio | grep -E 'instances burst|ok|FAIL'
	$(GO) test -count=1 -run '^$$' -bench 'BenchmarkClaim' -benchtime 10x ./store | grep -E 'Benchmark|ok|FAIL'

verify: ## generated files fresh, gofmt, go vet and staticcheck clean
	$(GO) tool templ generate -path web/templates >/dev/null 2>&1
	@git diff --quiet -- web/templates || { echo "templ generate changed files: commit them"; git --no-pager diff --stat -- web/templates; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
