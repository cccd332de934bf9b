#!/usr/bin/env bash
# record-cpu-probe-logged.sh records the logged-probe dataset the
# recorded save-log test reads (cmd/tracebench/cli/testdata/cpu-probe-logged):
# two calibration probes (probe/, probe2/) of two llama-servers, each
# bound to a CPU of its own (as scripts/record-cpu-fleet.sh starts them),
# started fresh for each probe, with each server's log kept from its
# start. Only the log's prompt-cache lines are kept (logs/server-N.log,
# logs2/ for the second probe): the updates calibrate --server-log reads.
#
# Usage: scripts/record-cpu-probe-logged.sh LLAMA_DIR [OUT]
#   LLAMA_DIR holds llama-server-plain-metrics and tiny-llama-h256-l4.gguf
#   OUT defaults to cmd/tracebench/cli/testdata/cpu-probe-logged
# Run it on a quiet machine (load average under 1, nothing else running).
# About 3 minutes.
set -euo pipefail
llama=${1:?usage: record-cpu-probe-logged.sh LLAMA_DIR [OUT]}
out=${2:-cmd/tracebench/cli/testdata/cpu-probe-logged}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/tracebench
go build -o "$bin" ./cmd/tracebench
rm -rf "$out"/probe "$out"/probe2 "$out"/logs "$out"/logs2
logdir=$out
# shellcheck source=llama-servers.sh
. scripts/llama-servers.sh
trap stop_servers EXIT
for k in "" 2; do # two probes, each of freshly started servers
  mkdir -p "$out/logs$k"
  start_servers
  "$bin" calibrate "${targets[@]}" \
    --from cmd/tracebench/cli/testdata/llama-cpp-np4.yaml --probe-dir "$out/probe$k" --probe-budget 60s \
    --probe-max-prompt 512 --probe-seed 11 -o "$out/.fit.yaml"
  stop_servers
  for i in 0 1; do
    grep -E 'updating prompt cache|saving prompt with length|already in the cache|found better prompt|prompt cache update took' \
      "$out/.server-$i.log" >"$out/logs$k/server-$i.log"
  done
done
rm -f "$out"/.server-*.log "$out/.fit.yaml"
uptime
