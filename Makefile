# The README's commands. `make test` runs the README's test command.
.PHONY: test bench run fuzz

test:
	go test -race ./...

run:
	go run ./cmd/tracebench bench

bench:
	go test -run '^$$' -bench . -benchmem ./...
