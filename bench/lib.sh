# Shared by bench/run and bench/replay (sourced, not run): logging, the temp dir and the
# processes to stop on exit, private nginx instances, wrk runs and the report's metadata.
# The caller sets `here` (bench/) and `repo` before sourcing, and `set -euo pipefail`.
# shellcheck shell=bash disable=SC2154 # here, repo, wrk_threads come from the caller

tool=(python3 "$here/benchtool.py")
lua=$here/magma_post.lua

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

have_tool() {  # name: in PATH or in /usr/sbin (nginx may live there, outside a user's PATH)
  command -v "$1" >/dev/null || [[ -x /usr/sbin/$1 ]]
}

require_tools() {  # name...
  local name
  for name in "$@"; do
    have_tool "$name" || die "$name not found (scripts/bootstrap installs nginx-light and wrk)"
  done
  nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
}

check_concurrency() {  # "1 16 64" -> sets max_conc
  local c
  max_conc=0
  for c in $1; do
    [[ $c =~ ^[1-9][0-9]*$ ]] || die "BENCH_CONCURRENCY must hold positive integers, got '$c'"
    ((c > max_conc)) && max_conc=$c
  done
  ((max_conc > 0)) || die "BENCH_CONCURRENCY is empty"
}

# ---- processes and cleanup ----------------------------------------------------------------
# Sets `work` (a fresh temp dir) and `pids` (processes to stop on exit, in that order: TERM,
# up to 5 s, then KILL). BENCH_KEEP_TMP keeps the temp dir.
start_workdir() {
  work=$(mktemp -d -t agentvcr-bench.XXXXXX)
  chmod 755 "$work"  # nginx workers may run as nobody when started as root
  pids=()
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ -n ${BENCH_KEEP_TMP:-} ]]; then log "kept $work"; else rm -rf "$work"; fi
  exit "$rc"
}

forget_pid() {  # pid: drop it from the processes cleanup() stops (it ended or was waited for)
  local kept=() pid
  for pid in "${pids[@]}"; do [[ $pid == "$1" ]] || kept+=("$pid"); done
  pids=("${kept[@]}")
}

# An nginx instance in its own prefix: config, pid, error log and temp paths all inside DIR.
start_nginx() {  # name workers http_block_body -> sets nginx_pid
  local name=$1 workers=$2 body=$3 dir=$work/$1
  mkdir -p "$dir/tmp"
  cat >"$dir/nginx.conf" <<EOF
worker_processes $workers;
error_log $dir/error.log warn;
events { worker_connections 4096; multi_accept on; }
http {
  access_log off;
  server_tokens off;
  keepalive_timeout 300s;
  keepalive_requests 100000000;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
$body
}
EOF
  "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -t -q ||
    die "$name: nginx rejected $dir/nginx.conf"
  "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" \
    -g "daemon off; pid $dir/nginx.pid;" >"$dir/stdout.log" 2>&1 &
  nginx_pid=$!
  pids+=("$nginx_pid")
}

# A server block answering every request with FILE's bytes, `application/json`, for
# start_nginx. Inside nginx's single-quoted string a backslash escapes, so every backslash is
# doubled; the file must hold no ' and no $ (nginx variables).
static_answer_server() {  # port file
  local text
  text=$(python3 -c '
import sys
text = open(sys.argv[1], encoding="utf-8").read()
if "\x27" in text or "$" in text:
    sys.exit(sys.argv[1] + ": a single quote or a dollar sign cannot go in an nginx return")
sys.stdout.write(text.replace("\\", "\\\\"))' "$2") || die "no static answer from $2"
  printf '  server {
    listen 127.0.0.1:%s backlog=4096;
    location / {
      default_type application/json;
      return 200 '\''%s'\'';
    }
  }' "$1" "$text"
}

# ---- wrk ------------------------------------------------------------------------------------
# One wrk run with bench/magma_post.lua (its body or corpus comes from BENCH_BODY or
# BENCH_CORPUS in the environment), BENCH_WRK_THREADS threads capped at the connections. In the
# background and waited for, so an interrupt reaches the traps (and wrk) at once.
run_wrk() {  # name url conc seconds out
  local t=$((wrk_threads < $3 ? wrk_threads : $3)) wrk_pid rc=0
  wrk -t "$t" -c "$3" -d "${4}s" --latency -s "$lua" "$2" >"$5" 2>&1 &
  wrk_pid=$!
  pids+=("$wrk_pid")
  wait "$wrk_pid" || rc=$?
  forget_pid "$wrk_pid"
  ((rc == 0)) || { cat "$5" >&2; die "wrk failed against $1 (status $rc)"; }
  grep -q '^BENCH_RESULT ' "$5" || { cat "$5" >&2; die "wrk printed no result against $1"; }
}

wrk_requests() {  # parsed BENCH_RESULT pairs -> completed requests
  sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$1"
}

wrk_errors() {  # parsed BENCH_RESULT pairs -> non-2xx plus socket errors
  awk '{for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] ~ /^(connect|read|write|timeout|status)$/) s += kv[2] } } END { print s + 0 }' <<<"$1"
}

cpu_of() {  # pid... -> summed user+system CPU seconds, or "-" when unreadable
  "${tool[@]}" cpu "$@" 2>/dev/null || echo -
}

cpu_between() {  # before after -> seconds, or "-"
  if [[ $1 == - || $2 == - ]]; then echo -; else python3 -c "print(f'{$2 - $1:.3f}')"; fi
}

# ---- report ---------------------------------------------------------------------------------
load_note() {  # the 1-minute load average at start, flagged when the machine is busy
  python3 -c "
import sys
load, cpus = float(sys.argv[1]), int(sys.argv[2])
print(f'load average (1 min) at start: {sys.argv[1]} on {cpus} CPUs'
      + (' -- BUSY MACHINE, figures unreliable' if load > 0.5 * cpus else ''))" \
    "$1" "$(nproc)"
}

source_rev() {  # dirs... -> the short commit, "+dirty" when the dirs have local changes
  local rev
  rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo "(no commit)")
  [[ -n $(git -C "$repo" status --porcelain -- "$@" 2>/dev/null) ]] && rev+="+dirty"
  echo "$rev"
}
