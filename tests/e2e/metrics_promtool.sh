#!/usr/bin/env bash
# End to end with real processes: every command that takes --metrics-listen (mock magma, record
# in front of it, replay of what record wrote, mock a2a) serves GET /metrics after some traffic,
# and Debian's promtool, an independent reader of the format, accepts each exposition.
set -euo pipefail
agentvcr=$1
fixtures=$2
promtool=$3
# shellcheck source=tests/e2e/processes.sh
source "$(dirname "$0")/processes.sh"

# The URL of the metrics listener a command printed in its log.
metrics_url() {
  for _ in $(seq 1 200); do
    url=$(grep -o 'metrics at http://[^ ]*' "$1" | cut -d' ' -f3 || true)
    [[ -n $url ]] && echo "$url" && return 0
    sleep 0.05
  done
  fail "no metrics address in $1"
}

# Scrapes `url` into $work/$name-metrics.log (printed on failure), has promtool check it, and
# requires each series given.
check_scrape() {
  local name=$1 url=$2
  shift 2
  curl -sf "$url" >"$work/$name-metrics.log" || fail "GET $url"
  "$promtool" check metrics <"$work/$name-metrics.log" >"$work/$name.promtool.log" 2>&1 ||
    fail "promtool rejects the $name metrics: $(cat "$work/$name.promtool.log")"
  for series in "$@"; do
    grep -qF "$series" "$work/$name-metrics.log" || fail "$name metrics lack $series"
  done
}

"$agentvcr" mock magma --script "$fixtures/demo/agent-script.json" --listen 127.0.0.1:0 \
  --metrics-listen 127.0.0.1:0 --ready-file "$work/agent.url" >"$work/agent.log" 2>&1 &
wait_for_file "$work/agent.url"

"$agentvcr" record --upstream "$(cat "$work/agent.url")" --listen 127.0.0.1:0 \
  --db "$work/archive.sqlite" --threads 2 --chaos-header --metrics-listen 127.0.0.1:0 \
  --ready-file "$work/proxy.url" >"$work/record.log" 2>&1 &
wait_for_file "$work/proxy.url"
proxy=$(cat "$work/proxy.url")

body='{"request_id": "m-1", "inputs": [{"id": 0, "instruction": {"type": "user", "content": "Please press sw1"}, "tools": [{"name": "press_button", "description": "Press a button.", "arguments": {"id": {"description": "Button", "type": "str"}}}], "attributes": {"objects": ["sw0", "sw1"], "known_robots": ["panda"]}, "memory": {"history": []}, "num_outputs": 1, "extra_keys": {"inference_mode": true}}]}'
curl -sf "$proxy/health" >/dev/null || fail "health through the proxy"
curl -sf -H 'Content-Type: application/json' --data "$body" "$proxy/v1/responses" >/dev/null ||
  fail "POST /v1/responses through the proxy"
status=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Agentvcr-Chaos: error' \
  -H 'Content-Type: application/json' --data "$body" "$proxy/v1/responses")
[[ $status == 500 ]] || fail "the forced chaos error answered $status"

check_scrape record "$(metrics_url "$work/record.log")" \
  'agentvcr_exchanges_total{route="responses",status="200"} 1' \
  'agentvcr_exchanges_total{route="health",status="200"} 1' \
  'agentvcr_chaos_faults_total{kind="error"} 1' \
  'agentvcr_agent_think_seconds_bucket{route="responses",le="+Inf"} 1' \
  'agentvcr_recorder_queue_depth' 'agentvcr_index_lag_seconds' 'process_cpu_seconds_total'
check_scrape agent "$(metrics_url "$work/agent.log")" \
  'agentvcr_exchanges_total{route="responses",status="200"} 1'

kill -TERM %2
wait %2 || fail "agentvcr record exited with $?"

"$agentvcr" replay --db "$work/archive.sqlite" --listen 127.0.0.1:0 --on-miss http \
  --metrics-listen 127.0.0.1:0 --ready-file "$work/replay.url" >"$work/replay.log" 2>&1 &
wait_for_file "$work/replay.url"
replay=$(cat "$work/replay.url")
curl -sf -H 'Content-Type: application/json' --data "$body" "$replay/v1/responses" >/dev/null ||
  fail "replayed POST /v1/responses"
status=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
  --data "${body/Please press sw1/Something never asked}" "$replay/v1/responses")
[[ $status == 503 ]] || fail "a replay miss answered $status"
check_scrape replay "$(metrics_url "$work/replay.log")" \
  'agentvcr_replay_inputs_total{route="responses",result="hit"} 1' \
  'agentvcr_replay_inputs_total{route="responses",result="miss"} 1'

"$agentvcr" mock a2a --profile standard --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
  --ready-file "$work/a2a.url" >"$work/a2a.log" 2>&1 &
wait_for_file "$work/a2a.url"
curl -s -H 'Content-Type: application/json' \
  --data '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"no-such-task"}}' \
  "$(cat "$work/a2a.url")/api/v1/a2a" >/dev/null
check_scrape a2a "$(metrics_url "$work/a2a.log")" \
  'agentvcr_a2a_calls_total{method="tasks/get",code="-32001"} 1'
echo "metrics of record, replay, mock magma and mock a2a pass promtool"
