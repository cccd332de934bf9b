#!/usr/bin/env bash
# record-cpu-native.sh records the native-API dataset the recorded slot
# test reads (cmd/tracebench/cli/testdata/cpu-native): one llama-server
# bound to a CPU of its own, replayed with --api native so that every
# result names the slot the server ran it on, for a workload whose slot
# choice matters (4 system prompts, 4 slots).
#
# Usage: scripts/record-cpu-native.sh LLAMA_DIR [OUT]
#   LLAMA_DIR holds llama-server-plain-metrics and tiny-llama-h256-l4.gguf
#   OUT defaults to cmd/tracebench/cli/testdata/cpu-native
# Run it on a quiet machine (load average under 1). About 1 minute.
set -euo pipefail
llama=${1:?usage: record-cpu-native.sh LLAMA_DIR [OUT]}
out=${2:-cmd/tracebench/cli/testdata/cpu-native}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/tracebench
go build -o "$bin" ./cmd/tracebench
mkdir -p "$out"
taskset -c 1 "$llama/llama-server-plain-metrics" -m "$llama/tiny-llama-h256-l4.gguf" --alias tiny-llama \
  --host 127.0.0.1 --port 18092 -np 4 -t 1 -fa off --metrics -c 8192 >"$out/.server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
until curl -sf http://127.0.0.1:18092/health >/dev/null; do sleep 0.2; done
uptime
# 4 system prompts of 384 words, 16 questions each, at 2 req/s: requests
# overlap a little, so both the prefix match and the least recently used
# slot decide.
"$bin" replay --target http://127.0.0.1:18092 --dialect llamacpp --api native \
  --workload shared-prefix -p groups=4 -p prompts_per_group=16 -p system_len=384 -p question_len=32 \
  -p output_len=32 --rate 2 --max-requests 64 --seed 9 --out "$out/run-native.jsonl"
rm -f "$out/.server.log"
uptime
