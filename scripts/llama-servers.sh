# llama-servers.sh is sourced by the recording scripts: it starts and
# stops the CPU fleet's two llama-servers (b7099's plain-metrics build,
# the tiny model, 4 slots, one thread each, each bound to a CPU of its
# own, ports 18090 and 18091). Set llama (the LLAMA_DIR) and logdir (where
# each server's log goes, .server-N.log) before calling start_servers.
pids=()
start_servers() {
  pids=()
  for i in 0 1; do
    taskset -c "$i" "$llama/llama-server-plain-metrics" -m "$llama/tiny-llama-h256-l4.gguf" --alias tiny-llama \
      --host 127.0.0.1 --port $((18090 + i)) -np 4 -t 1 -fa off --metrics -c 8192 >"$logdir/.server-$i.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1; do
    until curl -sf "http://127.0.0.1:$((18090 + i))/health" >/dev/null; do sleep 0.2; done
  done
}
stop_servers() {
  kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}
targets=(--target http://127.0.0.1:18090 --target http://127.0.0.1:18091)
