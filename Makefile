# alertd: `make run` serves the demo on the embedded store; `make test` runs
# every test (it starts a throwaway PostgreSQL first, installing it if needed).
GO      ?= go
export PATH := $(PATH):/usr/local/go/bin
PKGS    ?= ./...

.PHONY: run build test test-short bench lint fuzz clean

run:
	$(GO) run ./cmd/alertd serve --demo

build:
	$(GO) build -o bin/alertd ./cmd/alertd

# The tests need a PostgreSQL server for the store contract suite and the
# end-to-end runs on both stores; scripts/testpg.sh prepares one and prints its URL.
test:
	@url=$$(bash scripts/testpg.sh | tail -n 1) && \
	  echo "test database: $$url" && \
	  ALERTD_TEST_DATABASE_URL="$$url" $(GO) test -race -count=1 -timeout 20m $(PKGS)

test-short:
	$(GO) test -count=1 $(PKGS)

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

clean:
	rm -rf bin data
