-- wrk script: POST to BENCH_PATH (default /v1/responses; bench/run's a2a workload posts to /)
-- over keep-alive connections (wrk's default, HTTP/1.1), with headers that mimic BENCH's
-- python-requests client (magma-protocol.md §16). The body is
--
-- * bench/request.json, or the file named by BENCH_BODY (bench/run): one fixed body. Only
--   wrk.method/body/headers are set and no request()/response() callbacks are defined, so wrk
--   keeps its precomputed-request fast path: the client costs the same for every target;
-- * or, when BENCH_CORPUS names a file (bench/replay; bench/run's grow and a2a workloads),
--   each of its lines in turn: a request() callback cycles through requests formatted once in
--   init(), each thread starting at its own offset. It costs the client a Lua call per
--   request, the same for every target.
--
-- done() prints one machine-readable line for bench/run and bench/replay.

local corpus_path = os.getenv("BENCH_CORPUS")
local path = os.getenv("BENCH_BODY") or "bench/request.json"
local body = ""
local request_path = os.getenv("BENCH_PATH")
if not request_path or request_path == "" then
  request_path = "/v1/responses"
end
if not corpus_path or corpus_path == "" then
  local file = assert(io.open(path, "rb"))
  body = file:read("*a")
  file:close()
end

wrk.method = "POST"
wrk.path = request_path
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "python-requests/2.31.0"
wrk.headers["Accept"] = "*/*"
wrk.headers["Accept-Encoding"] = "gzip, deflate"
-- BENCH_CLOSE=1: a connection per request (`Connection: close`; wrk connects again).
wrk.headers["Connection"] = os.getenv("BENCH_CLOSE") == "1" and "close" or "keep-alive"

if corpus_path and corpus_path ~= "" then
  local threads_made = 0
  local requests = {}
  local next_index = 0

  function setup(thread)
    thread:set("thread_number", threads_made)
    threads_made = threads_made + 1
  end

  function init(args)
    local bodies = {}
    for line in io.lines(corpus_path) do
      if line ~= "" then
        bodies[#bodies + 1] = line
      end
    end
    assert(#bodies > 0, corpus_path .. ": no request bodies")
    for i, line in ipairs(bodies) do
      requests[i] = wrk.format("POST", request_path, wrk.headers, line)
    end
    -- Threads start spread over the corpus (thread_number is set before init runs).
    next_index = ((thread_number or 0) * 7919) % #requests
  end

  function request()
    next_index = next_index % #requests + 1
    return requests[next_index]
  end
end

-- BENCH_DELAY_MS paces each connection: it waits that long after every answer (bench/fleet
-- holds a steady load with it while PostgreSQL is away).
local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "")
if delay_ms and delay_ms > 0 then
  function delay()
    return delay_ms
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  -- Latencies in microseconds. Field order is fixed; bench/run parses "key=value" pairs.
  io.write(string.format(
    "BENCH_RESULT requests=%d duration_us=%d bytes=%d p50_us=%d p90_us=%d p99_us=%d " ..
    "mean_us=%.1f max_us=%d connect=%d read=%d write=%d timeout=%d status=%d\n",
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.mean, latency.max, e.connect, e.read, e.write, e.timeout, e.status))
end
