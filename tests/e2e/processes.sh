# Shared by the end-to-end scripts that run agentvcr processes (sourced, not run): a temp
# folder `work` removed on exit with every background job stopped, `fail` printing the
# processes' logs, and `wait_for_file` for a --ready-file. The caller sets `set -euo pipefail`.
# shellcheck shell=bash

work=$(mktemp -d)
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for log in "$work"/*.log; do
    [[ -f $log ]] || continue
    echo "--- $log" >&2
    cat "$log" >&2
  done
  exit 1
}

wait_for_file() {
  for _ in $(seq 1 200); do
    [[ -s $1 ]] && return 0
    sleep 0.05
  done
  fail "$1 never appeared"
}
