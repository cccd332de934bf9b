# The README's commands. `make test` runs the README's test command;
# `make bench` runs the main job (`tracebench bench`), `make gobench` the
# Go benchmarks.
.PHONY: test bench run gobench install

test:
	go test -race ./...

install:
	go install ./cmd/tracebench

bench:
	go run ./cmd/tracebench bench

run: bench

gobench:
	go test -run '^$$' -bench . -benchmem ./...
