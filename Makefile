# alertd: `make run` serves the demo on the embedded store; `make test` runs
# every test (it starts a throwaway PostgreSQL first, installing it if needed);
# `make test-short` runs the fast tier, without PostgreSQL.
GO      ?= go
export PATH := $(PATH):/usr/local/go/bin
PKGS    ?= ./...

# A release build is static (CGO off) and stamped with the version and
# commit that `alertd version` prints; set GOOS/GOARCH to cross-build.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: run build release image test test-short test-portable cross bench lint fuzz clean screenshots

run:
	$(GO) run ./cmd/alertd serve --demo

build:
	$(GO) build -o bin/alertd ./cmd/alertd

release:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/alertd ./cmd/alertd
	@bin/alertd version 2>/dev/null || true

image:
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t alertd:$(VERSION) .

# Every test, with -race: unit and actor tests, the store contract suite on
# both stores, the in-process end-to-end suite (e2e/) on both stores, the
# browser tests (e2e/browser) and the few subprocess tests of cmd/alertd.
# PostgreSQL comes from scripts/testpg.sh, which prepares a throwaway server
# and prints its URL; Chromium from scripts/testchromium.sh and etcd (the
# cluster provider tests start their own) from scripts/testetcd.sh (Debian's
# packages, installed when missing); the kubernetes provider, left out of the
# default build, is tested with -tags kubernetes.
test:
	@bash scripts/testchromium.sh >/dev/null && bash scripts/testetcd.sh >/dev/null && \
	  url=$$(bash scripts/testpg.sh | tail -n 1) && \
	  echo "test database: $$url" && \
	  ALERTD_TEST_DATABASE_URL="$$url" $(GO) test -race -count=1 -timeout 20m $(PKGS)
	$(GO) test -race -count=1 -tags wsportable ./edge/ws/
	$(GO) test -count=1 -tags kubernetes -run 'Kubernetes|Provider' ./engine/cluster/

# The WebSocket tests against the portable transport (the one macOS and
# Windows use), on this machine.
test-portable:
	$(GO) test -race -count=1 -tags wsportable ./edge/ws/

# The other operating systems build (the portable transport stands in for
# epoll there).
cross:
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...
	GOOS=darwin $(GO) vet ./edge/ws/
	GOOS=windows $(GO) vet ./edge/ws/

# The fast tier: no PostgreSQL, no end-to-end, browser or subprocess tests, no -race.
test-short:
	$(GO) test -short -count=1 $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)
	$(GO) run ./bench/cmd/restbench -out bench/results
	$(GO) run ./bench/cmd/fanoutbench -out bench/results
	$(GO) run ./bench/cmd/webhookbench -out bench/results
	$(GO) run ./bench/cmd/searchbench -out bench/results

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo "gofmt: files above need formatting"; exit 1)
	$(GO) vet $(PKGS)

# Every fuzz target of the module, FUZZTIME each (default 10s).
fuzz:
	bash scripts/fuzz.sh

# The README's pictures of the dashboard and the console, from the demo's data.
screenshots:
	@bash scripts/testchromium.sh >/dev/null
	ALERTD_SCREENSHOTS=$(CURDIR)/docs $(GO) test -count=1 -run TestREADMEScreenshots ./e2e/browser/

clean:
	rm -rf bin data
