# Thin wrappers; the scripts are the source of truth.
.PHONY: build test test-short lint demo bench

# The version `oedl --version` prints: git describe of this checkout.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

build:
	go build -ldflags "-X github.com/oedl/oedl/internal/cli.version=$(VERSION)" -o bin/oedl ./cmd/oedl
	go build -o bin/oesim ./cmd/oesim

test:
	scripts/test

test-short:
	scripts/test -short

lint:
	gofmt -l $$(git ls-files '*.go')
	go vet ./...

demo:
	go run ./cmd/oedl demo

bench:
	scripts/bench
