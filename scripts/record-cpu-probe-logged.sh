#!/usr/bin/env bash
# record-cpu-probe-logged.sh records the logged-probe dataset the
# recorded save-log test reads (cmd/tracebench/cli/testdata/cpu-probe-logged):
# a calibration probe of two fresh llama-servers, each bound to a CPU of
# its own (as scripts/record-cpu-fleet.sh starts them), with each
# server's log kept from its start. Only the log's prompt-cache lines are
# kept (logs/server-N.log): the updates calibrate --server-log reads.
#
# Usage: scripts/record-cpu-probe-logged.sh LLAMA_DIR [OUT]
#   LLAMA_DIR holds llama-server-plain-metrics and tiny-llama-h256-l4.gguf
#   OUT defaults to cmd/tracebench/cli/testdata/cpu-probe-logged
# Run it on a quiet machine (load average under 1, nothing else running).
# About 2 minutes.
set -euo pipefail
llama=${1:?usage: record-cpu-probe-logged.sh LLAMA_DIR [OUT]}
out=${2:-cmd/tracebench/cli/testdata/cpu-probe-logged}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/tracebench
go build -o "$bin" ./cmd/tracebench
rm -rf "$out/probe" "$out/logs"
mkdir -p "$out/logs"
logdir=$out
# shellcheck source=llama-servers.sh
. scripts/llama-servers.sh
trap stop_servers EXIT
start_servers
"$bin" calibrate "${targets[@]}" \
  --from cmd/tracebench/cli/testdata/llama-cpp-np4.yaml --probe-dir "$out/probe" --probe-budget 60s \
  --probe-max-prompt 512 --probe-seed 11 -o "$out/.fit.yaml"
stop_servers
for i in 0 1; do
  grep -E 'updating prompt cache|saving prompt with length|already in the cache|found better prompt|prompt cache update took' \
    "$out/.server-$i.log" >"$out/logs/server-$i.log"
done
rm -f "$out"/.server-*.log "$out/.fit.yaml"
uptime
