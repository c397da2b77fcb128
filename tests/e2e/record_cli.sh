#!/usr/bin/env bash
# End to end with real processes: `agentvcr mock magma` behind `agentvcr record`, driven
# with curl. SIGTERM must drain the queue; the archive must hold every exchange, the session
# must be closed, and the caller's secret must not be on disk.
set -euo pipefail
agentvcr=$1
fixtures=$2
# shellcheck source=tests/e2e/processes.sh
source "$(dirname "$0")/processes.sh"

"$agentvcr" mock magma --script "$fixtures/demo/agent-script.json" --listen 127.0.0.1:0 \
  --ready-file "$work/agent.url" >"$work/agent.log" 2>&1 &
wait_for_file "$work/agent.url"

"$agentvcr" record --upstream "$(cat "$work/agent.url")" --listen 127.0.0.1:0 \
  --db "$work/archive.sqlite" --threads 2 --ready-file "$work/proxy.url" \
  >"$work/record.log" 2>&1 &
record_pid=$!
wait_for_file "$work/proxy.url"
proxy=$(cat "$work/proxy.url")

[[ $(curl -sf "$proxy/health") == '{"status":"ready"}' ]] || fail "health through the proxy"

body='{"request_id": "e2e-1", "inputs": [{"id": 0, "instruction": {"type": "user", "content": "Please press sw1"}, "tools": [{"name": "press_button", "description": "Press a button.", "arguments": {"id": {"description": "Button", "type": "str"}}}], "attributes": {"objects": ["sw0", "sw1"], "known_robots": ["panda"]}, "memory": {"history": []}, "num_outputs": 1, "extra_keys": {"inference_mode": true}}]}'
answer=$(curl -sf -H 'Content-Type: application/json' -H 'Authorization: Bearer e2e-secret-token' \
  --data "$body" "$proxy/v1/responses") || fail "POST /v1/responses through the proxy"
[[ $answer == *'"name":"press_button"'* ]] || fail "unexpected answer: $answer"

kill -TERM "$record_pid"
wait "$record_pid" || fail "agentvcr record exited with $?"
grep -q "2 exchanges written" "$work/record.log" || fail "record did not report its writes"

count=$(sqlite3 "$work/archive.sqlite" "SELECT COUNT(*) FROM exchanges")
[[ $count == 2 ]] || fail "expected 2 exchanges, found $count"
ended=$(sqlite3 "$work/archive.sqlite" "SELECT ended_ns IS NOT NULL FROM sessions")
[[ $ended == 1 ]] || fail "session not closed after SIGTERM"
[[ $(sqlite3 "$work/archive.sqlite" "PRAGMA integrity_check") == ok ]] || fail "integrity"
if grep -qa "e2e-secret-token" "$work"/archive.sqlite*; then
  fail "the Authorization secret reached the disk"
fi
"$agentvcr" ls --db "$work/archive.sqlite" | grep -q "agentvcr-scripted-demo" ||
  fail "ls does not show the agent identity"

# No source path is compiled in: a copy of the binary away from any fixtures refuses the demo
# and names --fixtures; an installed layout (bin/ next to share/agentvcr/fixtures) finds them.
mkdir -p "$work/lonely" "$work/prefix/bin" "$work/prefix/share/agentvcr"
cp "$agentvcr" "$work/lonely/agentvcr"
status=0
env -u AGENTVCR_FIXTURES "$work/lonely/agentvcr" demo --db "$work/lonely.sqlite" \
  >"$work/lonely.log" 2>&1 || status=$?
[[ $status == 2 ]] || fail "demo without fixtures exited with $status, not 2"
grep -q -- "--fixtures" "$work/lonely.log" || fail "demo without fixtures does not name --fixtures"
# mock a2a says where it looked, and takes the fixtures root as demo does.
status=0
env -u AGENTVCR_FIXTURES "$work/lonely/agentvcr" mock a2a --no-auth >"$work/lonely-a2a.log" 2>&1 ||
  status=$?
[[ $status == 2 ]] || fail "mock a2a without fixtures exited with $status, not 2"
grep -q -- "looked in \$AGENTVCR_FIXTURES (not set), .*/lonely and each folder above it" \
  "$work/lonely-a2a.log" || fail "mock a2a without fixtures does not say where it looked"
env -u AGENTVCR_FIXTURES "$work/lonely/agentvcr" mock a2a --no-auth --fixtures "$fixtures" \
  --listen 127.0.0.1:0 --ready-file "$work/lonely.url" >"$work/lonely-root.log" 2>&1 &
lonely_pid=$!
wait_for_file "$work/lonely.url"
kill -TERM "$lonely_pid"
wait "$lonely_pid" || fail "mock a2a --fixtures ROOT exited with $?"
grep -q "quota on: .* --no-quota turns it off" "$work/lonely-root.log" ||
  fail "the magisterium banner does not say its quota is on"
cp "$agentvcr" "$work/prefix/bin/agentvcr"
ln -s "$(cd "$fixtures" && pwd)" "$work/prefix/share/agentvcr/fixtures"
env -u AGENTVCR_FIXTURES "$work/prefix/bin/agentvcr" mock a2a --profile standard \
  --listen 127.0.0.1:0 --ready-file "$work/installed.url" >"$work/installed.log" 2>&1 &
installed_pid=$!
wait_for_file "$work/installed.url"
kill -TERM "$installed_pid"
wait "$installed_pid" || fail "the installed mock a2a exited with $?"
echo "record_cli: ok"
