#!/usr/bin/env bash
# record-cpu-fleet.sh records the CPU-fleet dataset the recorded-fleet test
# reads (cmd/tracebench/cli/testdata/cpu-fleet): a calibration probe of two
# llama-servers, each bound to a CPU of its own, then one cold run per
# policy (both servers restarted before each, so every policy starts on
# empty slots and an empty host prompt cache), then a second probe of the
# same servers (probe2/: two probes of one server must agree).
#
# Usage: scripts/record-cpu-fleet.sh LLAMA_DIR [OUT]
#   LLAMA_DIR holds llama-server-plain-metrics and tiny-llama-h256-l4.gguf
#   OUT defaults to cmd/tracebench/cli/testdata/cpu-fleet
# Run it on a quiet machine (load average under 1, nothing else running):
# the servers' step times are what the dataset records. About 8 minutes.
set -euo pipefail
llama=${1:?usage: record-cpu-fleet.sh LLAMA_DIR [OUT]}
out=${2:-cmd/tracebench/cli/testdata/cpu-fleet}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/tracebench
go build -o "$bin" ./cmd/tracebench
mkdir -p "$out"
rm -rf "$out/probe" "$out/probe2" "$out"/run-*.jsonl
logdir=$out
# shellcheck source=llama-servers.sh
. scripts/llama-servers.sh
trap stop_servers EXIT
probe() { # probe DIR SEED
  start_servers
  "$bin" calibrate "${targets[@]}" --from cmd/tracebench/cli/testdata/llama-cpp-np4.yaml \
    --probe-dir "$1" --probe-budget 60s --probe-max-prompt 512 --probe-seed "$2" -o "$out/.fit.yaml"
  stop_servers
}
probe "$out/probe" 11
# The workload: prefix-aware routing matters (4 system prompts of 384
# words, 32 questions each: one request moves a run's hit rate by under a
# point), 128 requests at 2 req/s, below the two servers' capacity.
for p in round-robin least-request prefix-cache cache-aware; do
  start_servers
  "$bin" replay "${targets[@]}" --policy "$p" --workload shared-prefix -p groups=4 -p prompts_per_group=32 \
    -p system_len=384 -p question_len=32 -p output_len=32 --rate 2 --max-requests 128 --seed 5 \
    --out "$out/run-$p.jsonl"
  stop_servers
done
probe "$out/probe2" 13
rm -f "$out"/.server-*.log "$out/.fit.yaml"
uptime
