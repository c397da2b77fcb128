#!/usr/bin/env bash
# Records the demo into a fresh archive, then runs the GoogleTest replay fixture example
# against it, the way a user's test suite would point it at their own archive.
set -euo pipefail
agentvcr=$1
fixtures=$2
test_binary=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$agentvcr" demo --db "$work/demo.sqlite" --fixtures "$fixtures" >/dev/null
AGENTVCR=$agentvcr AGENTVCR_ARCHIVE=$work/demo.sqlite "$test_binary"
