# Thin wrappers; the scripts are the source of truth.
.PHONY: build test test-short lint demo bench

build:
	go build -o bin/oedl ./cmd/oedl
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
