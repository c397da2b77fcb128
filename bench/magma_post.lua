-- wrk script: POST /v1/responses with the fixed BENCH-style MAGMA body (bench/request.json,
-- or the file named by BENCH_BODY), over keep-alive connections (wrk's default, HTTP/1.1).
-- Headers mimic BENCH's python-requests client (magma-protocol.md §16).
--
-- Only wrk.method/body/headers are set and no request()/response() callbacks are defined, so
-- wrk keeps its precomputed-request fast path: the client costs the same for every target.
-- done() prints one machine-readable line for bench/run.

local path = os.getenv("BENCH_BODY") or "bench/request.json"
local file = assert(io.open(path, "rb"))
local body = file:read("*a")
file:close()

wrk.method = "POST"
wrk.path = "/v1/responses"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "python-requests/2.31.0"
wrk.headers["Accept"] = "*/*"
wrk.headers["Accept-Encoding"] = "gzip, deflate"
wrk.headers["Connection"] = "keep-alive"

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
