// Recorder ingest: exchanges per second that store::Recorder takes from the network threads and
// commits to SQLite, and what the archive costs on disk per byte of traffic. Google Benchmark;
// each iteration records a fresh archive of `range(0)` exchanges and waits for the last commit.
//
//   magma/const  : bench/request.json and bench/response.json (2 KB each, re-serialised),
//                  each with its own request_id: memory, tools and attributes repeat every step
//   magma/grow   : the same with a history that grows by one entry per step, as an episode's
//                  memory does (every memory distinct: blobs cannot be shared)
//   http         : 2 KB bodies on a path that is not MAGMA: the raw recording alone
//
// The recorder runs with `agentvcr record`'s options. Counters: exchanges/s from opening the
// archive through to the index (close() returns once every exchange is indexed);
// captured_per_second, exchanges/s from the first submit until the last one was committed as
// relayed (what a caller waiting on --durability full sees; opening the archive is left out);
// and archive bytes (main file + WAL after close) per byte of request and response bodies.
//
//   catch_up/magma : the index thread's cost alone. magma/const traffic is captured while the
//                  index is held back (it indexes a chunk, then sleeps), then close() lets it
//                  catch up at full speed. Counters per exchange it had left: catch_up_us, the
//                  wall time of close(), and catch_up_cpu_us, the process's CPU meanwhile (the
//                  index and decoding threads, and the WAL checkpointer; a reader stays open so
//                  that closing the recorder does not checkpoint the whole WAL).

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include "agentvcr/protocol/exchange.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/recorder.hpp"

namespace {

namespace fs = std::filesystem;
namespace protocol = agentvcr::protocol;
namespace store = agentvcr::store;
using Ordered = nlohmann::ordered_json;

/// `agentvcr record`'s default --index-share: the index thread takes a quarter of a core while
/// exchanges keep arriving, and catches up once they stop.
constexpr double kIndexShareOfRecord = 0.25;

enum class Traffic { MagmaConstantMemory, MagmaGrowingMemory, PlainHttp };

/// Index share that holds the index back for the whole capture: after its first chunk it sleeps
/// a thousand times what the chunk took, until close() wakes it.
constexpr double kIndexHeldBack = 0.001;

std::string readFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream content;
  content << file.rdbuf();
  return content.str();
}

std::vector<protocol::Exchange> makeTraffic(Traffic traffic, std::size_t count) {
  const Ordered request = Ordered::parse(readFile(AGENTVCR_BENCH_DIR "/request.json"));
  const Ordered response = Ordered::parse(readFile(AGENTVCR_BENCH_DIR "/response.json"));
  std::vector<protocol::Exchange> exchanges;
  exchanges.reserve(count);
  Ordered history = request["inputs"][0]["memory"]["history"];
  for (std::size_t i = 0; i < count; ++i) {
    protocol::Exchange ex;
    ex.client_address = "127.0.0.1:50000";
    ex.method = "POST";
    ex.http_version = 11;
    ex.status = 200;
    ex.request_headers = {{"Host", "agent:8000"},
                          {"Content-Type", "application/json"},
                          {"User-Agent", "python-requests/2.31.0"}};
    ex.response_headers = {{"content-type", "application/json"}, {"server", "uvicorn"}};
    ex.response_from_upstream = true;
    ex.started_ns = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(i) * 1'000'000;
    // Latencies spread as a live agent's do (0.1 to 5 ms), so indexes over them see inserts
    // in any order rather than one key appended to.
    const auto spread = static_cast<std::int64_t>((i * 2'654'435'761ULL) % 4'900'000);
    ex.upstream_first_byte_ns = ex.started_ns + 50'000 + spread;
    ex.ended_ns = ex.upstream_first_byte_ns + 50'000;
    ex.outcome = protocol::ExchangeOutcome::Complete;
    const std::string id = "bench-" + std::to_string(i);
    if (traffic == Traffic::PlainHttp) {
      ex.target = "/other/" + std::to_string(i);
      ex.request_body = std::string(2048, 'q') + id;
      ex.response_body = std::string(2048, 'a') + id;
    } else {
      Ordered body = request;
      body["request_id"] = id;
      if (traffic == Traffic::MagmaGrowingMemory) {
        history.push_back({{"author", "USER"}, {"content", "step " + std::to_string(i)}});
        body["inputs"][0]["memory"]["history"] = history;
      }
      Ordered answer = response;
      answer[0]["request_id"] = id;
      ex.target = "/v1/responses";
      ex.request_body = body.dump(-1, ' ', true);
      ex.response_body = answer.dump();
    }
    exchanges.push_back(std::move(ex));
  }
  return exchanges;
}

/// CPU seconds the process has used so far, all threads.
double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

store::SessionInfo benchSession() {
  store::SessionInfo session;
  session.name = "ingest";
  session.mode = "record";
  session.upstream = "http://agent:8000";
  session.listen = "127.0.0.1:0";
  return session;
}

void recordTraffic(benchmark::State& state, Traffic traffic) {
  const auto count = static_cast<std::size_t>(state.range(0));
  const std::vector<protocol::Exchange> traffic_template = makeTraffic(traffic, count);
  std::size_t body_bytes = 0;
  for (const auto& ex : traffic_template) {
    body_bytes += ex.request_body.size() + ex.response_body.size();
  }
  const fs::path dir = fs::temp_directory_path() / "agentvcr-ingest-bench";
  double archive_bytes = 0;
  double capture_seconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string db = (dir / "archive.sqlite").string();
    std::vector<protocol::Exchange> exchanges = traffic_template;
    const store::SessionInfo session = benchSession();
    state.ResumeTiming();

    store::RecorderOptions options;
    options.index_share_under_load = kIndexShareOfRecord;
    store::Recorder recorder(db, session, options);
    const auto started = std::chrono::steady_clock::now();
    std::promise<void> last_committed;
    for (std::size_t i = 0; i < count; ++i) {
      // The last exchange is submitted as under --durability full: its caller waits for the
      // commit, so the writer commits the final batch at once rather than after its window.
      std::function<void()> on_committed;
      if (i + 1 == count) {
        on_committed = [&last_committed] { last_committed.set_value(); };
      }
      while (!recorder.trySubmit(exchanges[i], on_committed)) {
        std::this_thread::yield();  // the queue is full: the writer is the bottleneck
      }
    }
    last_committed.get_future().wait();
    capture_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    recorder.close();

    state.PauseTiming();
    archive_bytes = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
      archive_bytes += static_cast<double>(entry.file_size());
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * count));
  state.counters["captured_per_second"] =
      static_cast<double>(state.iterations() * count) / capture_seconds;
  state.counters["archive_per_body_byte"] = archive_bytes / static_cast<double>(body_bytes);
  state.counters["body_bytes_per_exchange"] =
      static_cast<double>(body_bytes) / static_cast<double>(count);
  fs::remove_all(dir);
}

void BM_IndexCatchUpMagma(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  const std::vector<protocol::Exchange> traffic_template =
      makeTraffic(Traffic::MagmaConstantMemory, count);
  const fs::path dir = fs::temp_directory_path() / "agentvcr-catch-up-bench";
  double wall_seconds = 0;
  double cpu_seconds = 0;
  double caught_up = 0;
  for (auto _ : state) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string db = (dir / "archive.sqlite").string();
    std::vector<protocol::Exchange> exchanges = traffic_template;
    store::RecorderOptions options;
    options.index_share_under_load = kIndexHeldBack;
    store::Recorder recorder(db, benchSession(), options);
    for (std::size_t i = 0; i < count; ++i) {
      while (!recorder.trySubmit(exchanges[i])) {
        std::this_thread::yield();
      }
    }
    // Captured, and the index asleep: its count no longer moves.
    std::uint64_t indexed = 0;
    for (int still = 0; still < 3;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const store::RecorderStats stats = recorder.stats();
      const bool captured = stats.written + stats.write_errors == count;
      still = captured && stats.indexed == indexed ? still + 1 : 0;
      indexed = stats.indexed;
    }
    if (recorder.stats().write_errors != 0) {
      state.SkipWithError("exchanges not captured: see the [store.write] lines");
      break;
    }
    const store::ArchiveReader reader(db);  // keeps close() from checkpointing the whole WAL
    const auto started = std::chrono::steady_clock::now();
    const double cpu_started = processCpuSeconds();
    recorder.close();
    cpu_seconds += processCpuSeconds() - cpu_started;
    wall_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    caught_up += static_cast<double>(count - indexed);
  }
  state.counters["caught_up_per_run"] = caught_up / static_cast<double>(state.iterations());
  state.counters["catch_up_us"] = wall_seconds * 1e6 / caught_up;
  state.counters["catch_up_cpu_us"] = cpu_seconds * 1e6 / caught_up;
  fs::remove_all(dir);
}

void BM_IngestMagmaConstantMemory(benchmark::State& state) {
  recordTraffic(state, Traffic::MagmaConstantMemory);
}

void BM_IngestMagmaGrowingMemory(benchmark::State& state) {
  recordTraffic(state, Traffic::MagmaGrowingMemory);
}

void BM_IngestPlainHttp(benchmark::State& state) {
  recordTraffic(state, Traffic::PlainHttp);
}

}  // namespace

BENCHMARK(BM_IngestMagmaConstantMemory)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_IngestMagmaGrowingMemory)->Arg(2000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_IngestPlainHttp)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_IndexCatchUpMagma)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);
BENCHMARK_MAIN();
