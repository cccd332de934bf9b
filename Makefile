# The README's commands. `make test` is what CI runs.
.PHONY: test bench run fuzz

test:
	go test -race -timeout 20m ./...

run:
	go run ./cmd/tracebench bench

bench:
	go test -run '^$$' -bench . -benchmem ./...
