#include "agentvcr/store/recorder.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>

#include "agentvcr/protocol/http_message.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/schema.hpp"
#include "archive_indexer.hpp"
#include "archive_writer.hpp"
#include "store_test_support.hpp"
#include "thread_niceness.hpp"
#include "yielding_vfs.hpp"

namespace agentvcr::store {
namespace {

using agentvcr::testing::threadNicenessByName;
using protocol::Json;
using testing::a2aSend;
using testing::a2aTask;
using testing::callOutput;
using testing::errorOutput;
using ::testing::HasSubstr;
using testing::httpExchange;
using testing::input;
using testing::magmaExchange;
using testing::memoryOf;
using testing::queryInt;
using testing::request;
using testing::sayOutput;
using testing::submit;
using testing::TempDir;
using testing::testOptions;
using testing::testSession;

/// Holds the archive's write lock from a separate connection until released: the writer then
/// blocks in BEGIN IMMEDIATE (its busy timeout is long) and the queue backs up.
class WriteLock {
 public:
  explicit WriteLock(const std::string& path) : db_(path, SQLite::OPEN_READWRITE, 60000) {
    db_.exec("BEGIN IMMEDIATE");
  }

  ~WriteLock() { release(); }

  WriteLock(const WriteLock&) = delete;
  WriteLock& operator=(const WriteLock&) = delete;

  SQLite::Database& db() { return db_; }

  void release() {
    if (held_) {
      held_ = false;
      db_.exec("ROLLBACK");
    }
  }

 private:
  SQLite::Database db_;
  bool held_ = true;
};

/// CPU time each thread of this process has had so far, in nanoseconds, by thread name.
std::multimap<std::string, std::uint64_t> threadRuntimeByName() {
  std::multimap<std::string, std::uint64_t> runtime;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    std::uint64_t on_cpu_ns = 0;
    if (!name.empty() && std::ifstream(task.path() / "schedstat") >> on_cpu_ns) {
      runtime.emplace(name, on_cpu_ns);
    }
  }
  return runtime;
}

/// Creates the archive at `path`, then adds `trigger` to it (an insert it makes fail).
void archiveWithTrigger(const std::string& path, const std::string& trigger) {
  { Recorder first(path, testSession("first"), testOptions()); }
  SQLite::Database(path, SQLite::OPEN_READWRITE).exec(trigger);
}

class RecorderTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string path_ = dir_.file("archive.sqlite");
};

TEST_F(RecorderTest, HeadersComeBackAsRelayedWhateverTheirCharacters) {
  Recorder recorder(path_, testSession("headers"), testOptions());
  protocol::Exchange ex = httpExchange("GET", "/h");
  ex.request_headers = {{"X-Quote", "say \"hi\" \\ there"},
                        {"X-Tab", "a\tb"},
                        {"X-Utf8", "caf\xc3\xa9"},
                        {"X-Empty", ""}};
  ex.response_headers = {{"X-Latin1", "caf\xe9"}};  // obs-text, not UTF-8
  submit(recorder, ex);
  recorder.flush();

  ArchiveReader reader(path_);
  std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 10);
  ASSERT_EQ(rows.size(), 1u);
  std::optional<ExchangeRow> row = reader.exchange(rows[0].id);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->request_headers, ex.request_headers);
  ASSERT_EQ(row->response_headers.size(), 1u);
  EXPECT_EQ(row->response_headers[0].value, "caf\xef\xbf\xbd");  // stored as valid JSON text
}

TEST_F(RecorderTest, ABatchIsNumberedInTheOrderItsRequestsBegan) {
  // A caller's next request, relayed by another thread, can reach the capture before the
  // exchange that answered it.
  RecorderOptions options = testOptions();
  options.batch_window = std::chrono::milliseconds{60000};  // one batch unless flushed
  options.live_order = true;
  Recorder recorder(path_, testSession("order"), options);
  const protocol::Exchange answered = httpExchange("POST", "/first");
  const protocol::Exchange next = httpExchange("POST", "/next");
  ASSERT_LT(answered.started_ns, next.started_ns);
  submit(recorder, next);
  submit(recorder, answered);
  recorder.flush();

  ArchiveReader reader(path_);
  std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].target, "/first");
  EXPECT_EQ(rows[0].seq, 0);
  EXPECT_EQ(rows[1].target, "/next");
}

/// Polls `stats().written` until it reaches `count`; false after 10 s.
bool writtenReaches(const Recorder& recorder, std::uint64_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (recorder.stats().written < count) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/// A live capture that commits at once, holding exchanges back for at most `hold`.
RecorderOptions liveOrder(std::chrono::milliseconds hold) {
  RecorderOptions options = testOptions();
  options.batch_window = std::chrono::milliseconds{1};
  options.live_order = true;
  options.live_order_hold = hold;
  return options;
}

/// An exchange begun now, as the relay stamps it.
protocol::Exchange begunNow(const std::string& target) {
  protocol::Exchange exchange = httpExchange("POST", target);
  exchange.started_ns = protocol::nowNs();
  return exchange;
}

TEST_F(RecorderTest, AnExchangeWaitsWhileARequestThatBeganBeforeItIsInFlight) {
  // A slow step began first; a quick one that began after it is answered first. Threading
  // must see the slow step first: it may have been the first to see an answer both could take.
  Recorder recorder(path_, testSession("held"), liveOrder(std::chrono::minutes{10}));
  protocol::Exchange slow = begunNow("/slow");
  Recorder::InFlight slow_in_flight = recorder.requestBegan(slow.started_ns);
  protocol::Exchange quick = begunNow("/quick");
  Recorder::InFlight quick_in_flight = recorder.requestBegan(quick.started_ns);
  submit(recorder, quick);
  quick_in_flight = {};
  EXPECT_EQ(recorder.stats().in_flight, 1u);

  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(recorder.stats().written, 0u) << "captured while an earlier request was in flight";
  submit(recorder, slow);
  slow_in_flight = {};
  EXPECT_TRUE(writtenReaches(recorder, 2));  // no flush: the slow request's end moves it
  recorder.flush();

  ArchiveReader reader(path_);
  std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].target, "/slow");
  EXPECT_EQ(rows[1].target, "/quick");
}

TEST_F(RecorderTest, ARequestInFlightLongerThanTheHoldHoldsNothingBack) {
  Recorder recorder(path_, testSession("stream"), liveOrder(std::chrono::milliseconds{100}));
  // A long stream: still in flight when the test ends.
  const Recorder::InFlight stream = recorder.requestBegan(protocol::nowNs());
  submit(recorder, begunNow("/after-the-stream-began"));
  EXPECT_TRUE(writtenReaches(recorder, 1));
  submit(recorder, begunNow("/once-the-stream-is-old"));
  EXPECT_TRUE(writtenReaches(recorder, 2));
}

TEST_F(RecorderTest, FlushAndCloseDoNotWaitForRequestsInFlight) {
  RecorderOptions options = liveOrder(std::chrono::minutes{10});
  options.batch_window = testOptions().batch_window;  // flush, not the window, commits
  Recorder recorder(path_, testSession("flush"), options);
  const Recorder::InFlight never_answered = recorder.requestBegan(protocol::nowNs());
  submit(recorder, begunNow("/one"));
  const auto started = std::chrono::steady_clock::now();
  recorder.flush();
  EXPECT_EQ(recorder.stats().written, 1u);
  submit(recorder, begunNow("/two"));
  recorder.close();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::minutes{1});
  EXPECT_EQ(ArchiveReader(path_).exchanges(recorder.sessionId(), 0, 10).size(), 2u);
}

TEST_F(RecorderTest, AQueueFullOfHeldExchangesEndsTheHold) {
  // A slow request began first; the answers that began after it wait for it, until they fill
  // the queue by bytes. Then every connection with an answer to hand over waits for room: the
  // hold ends there, as it ends at a full batch, and not live_order_hold later.
  RecorderOptions options = liveOrder(std::chrono::minutes{10});
  options.queue_byte_limit = 1'000'000;
  Recorder recorder(path_, testSession("full"), options);
  const protocol::Exchange slow = begunNow("/slow");
  Recorder::InFlight slow_in_flight = recorder.requestBegan(slow.started_ns);

  // 100 KB answers: ten fill the queue, the eleventh finds no room.
  int accepted = 0;
  protocol::Exchange next;
  Recorder::InFlight next_in_flight;  // the relay keeps it until its exchange is queued
  for (int i = 0; i < 20; ++i) {
    next = begunNow("/answer/" + std::to_string(i));
    next.response_body = std::string(100'000, 'r');
    next_in_flight = recorder.requestBegan(next.started_ns);
    if (!recorder.trySubmit(next)) {
      break;
    }
    ++accepted;
  }
  ASSERT_EQ(accepted, 10);
  ASSERT_EQ(recorder.stats().refused_full, 1u);

  // The refused connection retries as the relay does; the queue makes room long before the
  // hold (ten minutes) would have let the held answers go.
  const auto refused_at = std::chrono::steady_clock::now();
  while (!recorder.trySubmit(next)) {
    ASSERT_LT(std::chrono::steady_clock::now() - refused_at, std::chrono::seconds(10))
        << "the queue stayed full while the slow request was in flight";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  next_in_flight = {};
  EXPECT_TRUE(writtenReaches(recorder, 10));
  EXPECT_EQ(recorder.stats().in_flight, 1u);  // the slow request still is

  protocol::Exchange slow_answer = slow;
  submit(recorder, slow_answer);
  slow_in_flight = {};
  recorder.flush();
  EXPECT_EQ(recorder.stats().written, 12u);  // nothing lost
}

/// A wall clock that a test steps, as NTP or an operator would: protocol::nowNs() plus an
/// offset.
class SteppedClock {
 public:
  explicit SteppedClock(std::chrono::nanoseconds offset) : offset_ns_(offset.count()) {}

  std::int64_t now() const { return protocol::nowNs() + offset_ns_.load(); }

  void step(std::chrono::nanoseconds by) { offset_ns_ += by.count(); }

  std::function<std::int64_t()> function() {
    return [this] { return now(); };
  }

 private:
  std::atomic<std::int64_t> offset_ns_;
};

TEST_F(RecorderTest, ABackwardClockStepDoesNotHoldAnAnsweredExchangeBack) {
  // The request began; then the wall clock stepped back a minute, and the answer came. By the
  // recorded clock the request now begins in the future: no deadline may wait for that.
  SteppedClock wall(std::chrono::minutes{1});
  RecorderOptions options = liveOrder(std::chrono::minutes{10});
  options.clock = wall.function();
  Recorder recorder(path_, testSession("backward"), options);
  protocol::Exchange answered = httpExchange("POST", "/answered");
  answered.started_ns = wall.now();
  Recorder::InFlight mark = recorder.requestBegan(answered.started_ns);
  wall.step(-std::chrono::minutes{1});
  submit(recorder, answered);
  mark = {};
  EXPECT_TRUE(writtenReaches(recorder, 1)) << "held for the length of the clock step";
}

TEST_F(RecorderTest, AForwardClockStepDoesNotEndTheHoldEarly) {
  // A slow request began; the wall clock stepped a minute forward; a quick request began and
  // was answered before the slow one. The slow one has been in flight for well under the hold,
  // whatever the recorded clock says: it still comes first.
  SteppedClock wall(-std::chrono::minutes{1});
  RecorderOptions options = liveOrder(std::chrono::seconds{30});
  options.clock = wall.function();
  Recorder recorder(path_, testSession("forward"), options);
  protocol::Exchange slow = httpExchange("POST", "/slow");
  slow.started_ns = wall.now();
  Recorder::InFlight slow_in_flight = recorder.requestBegan(slow.started_ns);
  wall.step(std::chrono::minutes{1});
  protocol::Exchange quick = httpExchange("POST", "/quick");
  quick.started_ns = wall.now();
  Recorder::InFlight quick_in_flight = recorder.requestBegan(quick.started_ns);
  submit(recorder, quick);
  quick_in_flight = {};
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(recorder.stats().written, 0u) << "captured while an earlier request was in flight";
  submit(recorder, slow);
  slow_in_flight = {};
  recorder.flush();

  std::vector<ExchangeRow> rows = ArchiveReader(path_).exchanges(recorder.sessionId(), 0, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].target, "/slow");
  EXPECT_EQ(rows[1].target, "/quick");
}

TEST_F(RecorderTest, TheSessionIsStampedByTheRecordedClock) {
  SteppedClock wall(-std::chrono::hours{24});
  RecorderOptions options = testOptions();
  options.clock = wall.function();
  const std::int64_t before = wall.now();
  Recorder recorder(path_, testSession("stamped"), options);
  recorder.close();
  const std::int64_t after = wall.now();
  const std::optional<SessionRow> session = ArchiveReader(path_).session(recorder.sessionId());
  ASSERT_TRUE(session);
  EXPECT_GE(session->started_ns, before);
  ASSERT_TRUE(session->ended_ns);
  EXPECT_LE(*session->ended_ns, after);
}

TEST_F(RecorderTest, FlushMakesExchangesVisibleToAConcurrentReader) {
  Recorder recorder(path_, testSession("visible"), testOptions());
  ArchiveReader reader(path_);  // opened while the recorder runs

  protocol::Exchange ex = httpExchange("POST", "/echo?x=1", "ping", 201, "pong");
  ex.request_headers.push_back({"X-Trace", "t-1"});
  ex.http_version = 10;
  const std::int64_t started = ex.started_ns;
  submit(recorder, ex);
  submit(recorder, httpExchange("GET", "/two"));
  recorder.flush();

  std::optional<SessionRow> session = reader.session(recorder.sessionId());
  ASSERT_TRUE(session.has_value());
  EXPECT_EQ(session->name, "visible");
  EXPECT_EQ(session->mode, "record");
  EXPECT_EQ(session->upstream, "http://127.0.0.1:8000");
  EXPECT_EQ(session->listen, "127.0.0.1:8080");
  EXPECT_GT(session->started_ns, 0);
  EXPECT_FALSE(session->ended_ns.has_value());  // still running
  EXPECT_EQ(session->exchange_count, 2);

  std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 100);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].seq, 0);
  EXPECT_EQ(rows[1].seq, 1);
  EXPECT_FALSE(rows[0].has_payload);
  EXPECT_EQ(rows[0].request_body_size, 4);

  std::optional<ExchangeRow> row = reader.exchange(rows[0].id);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->method, "POST");
  EXPECT_EQ(row->target, "/echo?x=1");
  EXPECT_EQ(row->http_version, 10u);
  EXPECT_EQ(row->status, 201);
  EXPECT_EQ(row->request_body, "ping");
  EXPECT_EQ(row->response_body, "pong");
  EXPECT_EQ(row->request_headers.back().name, "X-Trace");
  EXPECT_EQ(row->request_headers.back().value, "t-1");
  EXPECT_EQ(row->client_address, "127.0.0.1:53412");
  EXPECT_TRUE(row->response_from_upstream);
  EXPECT_EQ(row->started_ns, started);
  EXPECT_EQ(row->upstream_first_byte_ns, started + 100'000);
  EXPECT_EQ(row->ended_ns, started + 200'000);
  EXPECT_EQ(row->outcome, protocol::outcomeName(protocol::ExchangeOutcome::Complete));
  EXPECT_FALSE(row->error.has_value());
  EXPECT_EQ(row->protocol, "http");

  // More writes become visible to the same reader.
  submit(recorder, httpExchange("GET", "/three"));
  recorder.flush();
  EXPECT_EQ(reader.exchanges(recorder.sessionId(), 0, 100).size(), 3u);
}

TEST_F(RecorderTest, ReaderIsNotBlockedByAnOpenWriteTransaction) {
  Recorder recorder(path_, testSession(), testOptions());
  submit(recorder, httpExchange("GET", "/committed"));
  recorder.flush();

  ArchiveReader reader(path_);
  WriteLock lock(path_);
  lock.db().exec(
      "INSERT INTO sessions (name, mode, upstream, listen, started_ns) "
      "VALUES ('uncommitted', 'record', '', '', 1)");
  // Reads during the open write see the committed state only, without waiting.
  EXPECT_EQ(reader.sessions().size(), 1u);
  EXPECT_EQ(reader.exchanges(recorder.sessionId(), 0, 10).size(), 1u);

  // The recorder's next batch waits for the lock, then commits.
  submit(recorder, httpExchange("GET", "/after"));
  lock.release();
  recorder.flush();
  EXPECT_EQ(reader.exchanges(recorder.sessionId(), 0, 10).size(), 2u);
}

TEST_F(RecorderTest, ManyExchangesAreWrittenInFewerBatches) {
  RecorderOptions options = testOptions();
  options.max_batch = 100;
  options.batch_window = std::chrono::milliseconds{10000};  // batches fill up before committing
  Recorder recorder(path_, testSession(), options);
  constexpr int kCount = 1000;
  for (int i = 0; i < kCount; ++i) {
    submit(recorder, httpExchange("GET", "/n/" + std::to_string(i)));
  }
  recorder.flush();

  RecorderStats stats = recorder.stats();
  EXPECT_EQ(stats.submitted, static_cast<std::uint64_t>(kCount));
  EXPECT_EQ(stats.written, static_cast<std::uint64_t>(kCount));
  EXPECT_EQ(stats.write_errors, 0u);
  EXPECT_GE(stats.batches, static_cast<std::uint64_t>(kCount / 100));
  EXPECT_LT(stats.batches, static_cast<std::uint64_t>(kCount));

  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges"), kCount);
  // seq is dense and follows submission order.
  EXPECT_EQ(queryInt(path_, "SELECT max(seq) FROM exchanges"), kCount - 1);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges WHERE target <> '/n/' || seq"), 0);
}

TEST_F(RecorderTest, FullQueueRefusesWithoutLosingAnything) {
  RecorderOptions options = testOptions();
  options.queue_capacity = 4;
  options.max_batch = 2;
  options.batch_window = std::chrono::seconds(30);  // the writer takes only full batches
  Recorder recorder(path_, testSession(), options);
  WriteLock lock(path_);  // the writer stalls on its first batch

  std::vector<std::string> accepted;
  auto submit = [&](int i, protocol::Exchange& ex) {
    ex = httpExchange("POST", "/q/" + std::to_string(i), "body");
    if (!recorder.trySubmit(ex)) {
      return false;
    }
    accepted.push_back("/q/" + std::to_string(i));
    return true;
  };
  // A full batch wakes the writer, which takes it and blocks on the lock: from then on the
  // queue only fills.
  protocol::Exchange ex;
  ASSERT_TRUE(submit(0, ex));
  ASSERT_TRUE(submit(1, ex));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (recorder.stats().queued > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(recorder.stats().queued, 0u);

  protocol::Exchange refused;
  bool was_refused = false;
  for (int i = 2; i < 100 && !was_refused; ++i) {
    if (!submit(i, ex)) {
      was_refused = true;
      refused = std::move(ex);
    }
  }
  ASSERT_TRUE(was_refused);
  // The batch the writer holds, then exactly the queue's capacity.
  EXPECT_EQ(accepted.size(), options.max_batch + options.queue_capacity);
  // A refused exchange is left intact for the caller to retry.
  EXPECT_EQ(refused.target, "/q/" + std::to_string(accepted.size()));
  EXPECT_EQ(refused.request_body, "body");
  EXPECT_FALSE(recorder.trySubmit(refused));
  EXPECT_EQ(recorder.stats().refused_full, 2u);

  lock.release();
  recorder.flush();
  EXPECT_EQ(recorder.stats().written, accepted.size());
  const std::string refused_target = refused.target;
  ASSERT_TRUE(recorder.trySubmit(refused));  // moves from it
  recorder.flush();

  ArchiveReader reader(path_);
  std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 1000);
  ASSERT_EQ(rows.size(), accepted.size() + 1);
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    EXPECT_EQ(rows[i].target, accepted[i]);
  }
  EXPECT_EQ(rows.back().target, refused_target);
  EXPECT_EQ(recorder.stats().write_errors, 0u);
}

TEST_F(RecorderTest, QueuedBodiesAreBoundedInBytesToo) {
  RecorderOptions options = testOptions();
  options.queue_byte_limit = 100'000;
  options.max_batch = 1;
  options.batch_window = std::chrono::seconds(30);
  Recorder recorder(path_, testSession(), options);
  WriteLock lock(path_);  // the writer stalls on its first exchange

  protocol::Exchange first = httpExchange("POST", "/big/0", std::string(30'000, 'a'));
  ASSERT_TRUE(recorder.trySubmit(first));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (recorder.stats().queued > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(recorder.stats().queued, 0u);  // the writer holds it, blocked on the lock

  // 30 KB each: three fit under 100 KB, the fourth would not (far below queue_capacity).
  int accepted = 1;
  protocol::Exchange next;
  for (int i = 1; i < 10; ++i) {
    next = httpExchange("POST", "/big/" + std::to_string(i), std::string(30'000, 'b'));
    if (!recorder.trySubmit(next)) {
      break;
    }
    ++accepted;
  }
  EXPECT_EQ(accepted, 4);
  EXPECT_EQ(recorder.stats().refused_full, 1u);
  EXPECT_EQ(next.request_body.size(), 30'000u);  // left intact for a retry

  lock.release();
  recorder.flush();
  // Taken by the writer, the bytes are free again; one exchange alone may exceed the limit.
  protocol::Exchange huge = httpExchange("POST", "/huge", std::string(200'000, 'c'));
  ASSERT_TRUE(recorder.trySubmit(next));
  recorder.flush();
  ASSERT_TRUE(recorder.trySubmit(huge));
  recorder.flush();
  EXPECT_EQ(recorder.stats().written, 6u);
}

TEST_F(RecorderTest, ConcurrentProducersLoseNothing) {
  RecorderOptions options = testOptions();
  options.queue_capacity = 16;
  options.max_batch = 8;
  Recorder recorder(path_, testSession(), options);
  constexpr int kThreads = 4;
  constexpr int kEach = 250;
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&recorder, t] {
      for (int i = 0; i < kEach; ++i) {
        protocol::Exchange ex =
            httpExchange("GET", "/p/" + std::to_string(t) + "/" + std::to_string(i));
        while (!recorder.trySubmit(ex)) {
          std::this_thread::yield();  // back-pressure: the caller waits
        }
      }
    });
  }
  for (std::thread& p : producers) {
    p.join();
  }
  recorder.flush();
  EXPECT_EQ(recorder.stats().written, static_cast<std::uint64_t>(kThreads * kEach));
  EXPECT_EQ(queryInt(path_, "SELECT count(DISTINCT target) FROM exchanges"), kThreads * kEach);
}

TEST_F(RecorderTest, CloseDrainsTheQueueAndEndsTheSession) {
  RecorderOptions options = testOptions();
  options.max_batch = 1000;
  options.batch_window = std::chrono::milliseconds{60000};
  Recorder recorder(path_, testSession(), options);
  for (int i = 0; i < 50; ++i) {
    submit(recorder, httpExchange("GET", "/c/" + std::to_string(i)));
  }
  recorder.close();  // no flush: close alone must write everything

  EXPECT_EQ(recorder.stats().written, 50u);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges"), 50);
  EXPECT_GT(queryInt(path_, "SELECT ended_ns FROM sessions"), 0);

  protocol::Exchange late = httpExchange("GET", "/late");
  EXPECT_FALSE(recorder.trySubmit(late));
  EXPECT_EQ(late.target, "/late");
  EXPECT_EQ(recorder.stats().refused_closed, 1u);
  EXPECT_EQ(recorder.stats().refused_full, 0u);
  recorder.flush();  // returns at once
  recorder.close();  // idempotent
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges"), 50);
}

TEST_F(RecorderTest, DestructorClosesAndDrains) {
  {
    RecorderOptions options = testOptions();
    options.batch_window = std::chrono::milliseconds{60000};
    Recorder recorder(path_, testSession(), options);
    submit(recorder, httpExchange("GET", "/d"));
  }
  ArchiveReader reader(path_);
  std::vector<SessionRow> sessions = reader.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_TRUE(sessions[0].ended_ns.has_value());
  EXPECT_EQ(sessions[0].exchange_count, 1);
}

TEST_F(RecorderTest, FlushWithNothingPendingReturns) {
  Recorder recorder(path_, testSession(), testOptions());
  recorder.flush();
  EXPECT_EQ(recorder.stats().batches, 0u);
}

TEST_F(RecorderTest, AFailingInsertDoesNotLoseTheRestOfTheBatch) {
  archiveWithTrigger(
      path_,
      "CREATE TRIGGER refuse_boom BEFORE INSERT ON exchanges WHEN NEW.target = '/boom' "
      "BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
  RecorderOptions options = testOptions();
  options.batch_window = std::chrono::milliseconds{60000};  // all three in one batch
  Recorder recorder(path_, testSession("second"), options);
  ::testing::internal::CaptureStderr();
  submit(recorder, httpExchange("GET", "/a"));
  submit(recorder, httpExchange("GET", "/boom"));
  submit(recorder, httpExchange("GET", "/c"));
  recorder.flush();
  const std::string log = ::testing::internal::GetCapturedStderr();

  RecorderStats stats = recorder.stats();
  EXPECT_EQ(stats.written, 2u);
  EXPECT_EQ(stats.write_errors, 1u);
  EXPECT_THAT(log, HasSubstr("[store.write]"));
  EXPECT_THAT(log, HasSubstr("/boom"));

  ArchiveReader reader(path_);
  std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].target, "/a");
  EXPECT_EQ(rows[0].seq, 0);
  EXPECT_EQ(rows[1].target, "/c");
  EXPECT_EQ(rows[1].seq, 1);  // seq stays dense
  EXPECT_EQ(reader.session(recorder.sessionId())->exchange_count, 2);
}

TEST_F(RecorderTest, RecordsTheAgentIdentity) {
  Recorder recorder(path_, testSession(), testOptions());
  const std::string info =
      R"({"protocol_version":"2.0","agent_id":"full-history-agent","agent_version":"2.0.0",)"
      R"("specialized_coaching":[],"coaching_resume":false,"coaching_session_version":null,)"
      R"("coaching_unavailable_reason":null,"capabilities":{"inference":true,"coaching":false}})";
  recorder.recordAgentIdentity(R"({"status":"ready"})", info);
  recorder.flush();

  ArchiveReader reader(path_);
  std::optional<SessionRow> session = reader.session(recorder.sessionId());
  ASSERT_TRUE(session.has_value());
  EXPECT_EQ(session->agent_health.value_or(""), R"({"status":"ready"})");
  EXPECT_EQ(session->agent_info.value_or(""), info);
  EXPECT_EQ(session->agent_id.value_or(""), "full-history-agent");
  EXPECT_EQ(session->agent_version.value_or(""), "2.0.0");
  EXPECT_EQ(session->exchange_count, 0);
}

TEST_F(RecorderTest, AnInvalidInfoBodyIsStoredWithoutIdentity) {
  Recorder recorder(path_, testSession(), testOptions());
  recorder.recordAgentIdentity("", "not json");
  recorder.flush();
  ArchiveReader reader(path_);
  std::optional<SessionRow> session = reader.session(recorder.sessionId());
  ASSERT_TRUE(session.has_value());
  EXPECT_FALSE(session->agent_health.has_value());
  EXPECT_EQ(session->agent_info.value_or(""), "not json");
  EXPECT_FALSE(session->agent_id.has_value());
}

TEST_F(RecorderTest, FailedExchangesAreCountedAndKeepTheirError) {
  Recorder recorder(path_, testSession(), testOptions());
  protocol::Exchange ex = httpExchange("GET", "/slow", "", 504, "");
  ex.outcome = protocol::ExchangeOutcome::UpstreamTimeout;
  ex.error = "[proxy.upstream.timeout] no answer";
  ex.upstream_first_byte_ns = 0;
  ex.response_from_upstream = false;
  submit(recorder, ex);
  recorder.flush();

  ArchiveReader reader(path_);
  std::vector<ExchangeRow> rows = reader.exchanges(recorder.sessionId(), 0, 10);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, protocol::outcomeName(protocol::ExchangeOutcome::UpstreamTimeout));
  EXPECT_EQ(rows[0].error.value_or(""), "[proxy.upstream.timeout] no answer");
  EXPECT_FALSE(rows[0].upstream_first_byte_ns.has_value());
  EXPECT_FALSE(rows[0].response_from_upstream);
  EXPECT_EQ(reader.session(recorder.sessionId())->failed_exchange_count, 1);
}

TEST_F(RecorderTest, FullDurabilityRecordsToo) {
  RecorderOptions options = testOptions();
  options.durability = Durability::Full;
  Recorder recorder(path_, testSession(), options);
  submit(recorder, httpExchange("GET", "/durable"));
  recorder.flush();
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges"), 1);
}

TEST_F(RecorderTest, CommitCallbackRunsOnceTheExchangeIsReadableAndSkipsTheBatchWindow) {
  RecorderOptions options = testOptions();
  options.batch_window = std::chrono::milliseconds(60'000);  // only a waiter can cut it short
  Recorder recorder(path_, testSession(), options);
  std::promise<std::int64_t> seen;
  auto exchange = httpExchange("GET", "/committed");
  const auto submitted = std::chrono::steady_clock::now();
  ASSERT_TRUE(recorder.trySubmit(exchange, [&] {
    seen.set_value(queryInt(path_, "SELECT count(*) FROM exchanges WHERE target = '/committed'"));
  }));
  auto future = seen.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(future.get(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - submitted, std::chrono::seconds(10));
}

TEST_F(RecorderTest, CommitCallbacksRunInSubmissionOrder) {
  Recorder recorder(path_, testSession(), testOptions());
  std::mutex mutex;
  std::vector<int> order;
  for (int i = 0; i < 50; ++i) {
    auto exchange = httpExchange("GET", "/n" + std::to_string(i));
    while (!recorder.trySubmit(exchange, [&, i] {
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(i);
    })) {
      recorder.flush();
    }
  }
  recorder.close();
  ASSERT_EQ(order.size(), 50u);
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
}

ReplayMissRow missOf(const std::string& request_id, std::int64_t position) {
  ReplayMissRow miss;
  miss.at_ns = testing::nextTimeNs();
  miss.route = "responses";
  miss.request_id = request_id;
  miss.position = position;
  miss.input = R"({"id":3,"instruction":{"content":"press sw1","type":"user"}})";
  miss.differences = R"(["/instruction/content","/memory/history/2"])";
  miss.policy = "error";
  return miss;
}

TEST_F(RecorderTest, RecordsReplayMissesInOrder) {
  RecorderOptions options = testOptions();
  options.batch_window = std::chrono::milliseconds{60000};  // one batch with the exchange
  Recorder recorder(path_, testSession("replay"), options);
  ReplayMissRow first = missOf("r-1", 2);
  first.id = 77;            // ignored: set by the archive
  first.session_id = 1234;  // ignored: the recorder's session
  first.source_id = 3;
  first.closest_step_id = 41;
  first.replay_key = 0xF00D'0000'0000'0001ULL;  // above 2^63: stored as a negative integer
  ReplayMissRow second = missOf("", 0);
  second.route = "coaching";
  second.input = R"({"run_id":"x"})";
  second.differences = "[]";
  second.policy = "forward";
  second.replay_key = 7;
  ASSERT_TRUE(recorder.tryRecordReplayMiss(first));
  submit(recorder, httpExchange("GET", "/health"));
  ASSERT_TRUE(recorder.tryRecordReplayMiss(second));
  recorder.flush();

  ArchiveReader reader(path_);
  std::vector<ReplayMissRow> misses = reader.replayMisses(recorder.sessionId());
  ASSERT_EQ(misses.size(), 2u);
  const ReplayMissRow& a = misses[0];
  EXPECT_LT(a.id, misses[1].id);
  EXPECT_NE(a.id, 77);
  EXPECT_EQ(a.session_id, recorder.sessionId());
  EXPECT_EQ(a.at_ns, first.at_ns);
  EXPECT_EQ(a.route, "responses");
  EXPECT_EQ(a.request_id, "r-1");
  EXPECT_EQ(a.position, 2);
  EXPECT_EQ(a.source_id, std::optional<std::int64_t>(3));
  EXPECT_EQ(a.replay_key, 0xF00D'0000'0000'0001ULL);
  EXPECT_EQ(a.input, first.input);
  EXPECT_EQ(a.closest_step_id, std::optional<std::int64_t>(41));
  EXPECT_EQ(a.differences, first.differences);
  EXPECT_EQ(a.policy, "error");
  EXPECT_LT(queryInt(path_, "SELECT replay_key FROM replay_misses WHERE request_id = 'r-1'"), 0);

  const ReplayMissRow& b = misses[1];
  EXPECT_EQ(b.session_id, recorder.sessionId());
  EXPECT_EQ(b.route, "coaching");
  EXPECT_EQ(b.request_id, "");
  EXPECT_EQ(b.position, 0);
  EXPECT_FALSE(b.source_id.has_value());
  EXPECT_FALSE(b.closest_step_id.has_value());
  EXPECT_EQ(b.replay_key, 7u);
  EXPECT_EQ(b.input, R"({"run_id":"x"})");
  EXPECT_EQ(b.differences, "[]");
  EXPECT_EQ(b.policy, "forward");

  // Misses are not exchanges.
  RecorderStats stats = recorder.stats();
  EXPECT_EQ(stats.submitted, 1u);
  EXPECT_EQ(stats.written, 1u);
  EXPECT_EQ(stats.write_errors, 0u);
  std::optional<SessionRow> session = reader.session(recorder.sessionId());
  ASSERT_TRUE(session.has_value());
  EXPECT_EQ(session->exchange_count, 1);
  EXPECT_EQ(session->failed_exchange_count, 0);
  EXPECT_EQ(reader.counts().exchanges, 1);
  EXPECT_TRUE(reader.replayMisses(recorder.sessionId() + 1).empty());
}

TEST_F(RecorderTest, ReplayMissesAreRefusedLikeExchanges) {
  RecorderOptions options = testOptions();
  options.queue_capacity = 2;
  options.max_batch = 1;
  options.batch_window = std::chrono::seconds(30);
  Recorder recorder(path_, testSession(), options);
  WriteLock lock(path_);  // the writer stalls on its first batch

  // A full batch wakes the writer, which takes it and blocks on the lock.
  ASSERT_TRUE(recorder.tryRecordReplayMiss(missOf("r-0", 0)));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (recorder.stats().queued > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(recorder.stats().queued, 0u);
  ASSERT_TRUE(recorder.tryRecordReplayMiss(missOf("r-1", 0)));
  ASSERT_TRUE(recorder.tryRecordReplayMiss(missOf("r-2", 0)));
  EXPECT_FALSE(recorder.tryRecordReplayMiss(missOf("r-3", 0)));
  protocol::Exchange ex = httpExchange("GET", "/full");
  EXPECT_FALSE(recorder.trySubmit(ex));  // misses and exchanges share the queue
  EXPECT_EQ(recorder.stats().refused_full, 2u);

  lock.release();
  recorder.close();
  EXPECT_FALSE(recorder.tryRecordReplayMiss(missOf("r-4", 0)));
  EXPECT_EQ(recorder.stats().refused_closed, 1u);
  EXPECT_EQ(recorder.stats().submitted, 0u);

  ArchiveReader reader(path_);
  std::vector<ReplayMissRow> misses = reader.replayMisses(recorder.sessionId());
  ASSERT_EQ(misses.size(), 3u);
  EXPECT_EQ(misses[0].request_id, "r-0");
  EXPECT_EQ(misses[1].request_id, "r-1");
  EXPECT_EQ(misses[2].request_id, "r-2");
  EXPECT_EQ(reader.session(recorder.sessionId())->exchange_count, 0);
}

TEST_F(RecorderTest, AFailingReplayMissIsLoggedAndTheBatchCommits) {
  archiveWithTrigger(
      path_,
      "CREATE TRIGGER refuse_miss BEFORE INSERT ON replay_misses WHEN NEW.request_id = 'boom' "
      "BEGIN SELECT RAISE(ABORT, 'miss refused'); END");
  RecorderOptions options = testOptions();
  options.batch_window = std::chrono::milliseconds{60000};  // all in one batch
  Recorder recorder(path_, testSession("second"), options);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(recorder.tryRecordReplayMiss(missOf("ok-1", 0)));
  ASSERT_TRUE(recorder.tryRecordReplayMiss(missOf("boom", 0)));
  submit(recorder, httpExchange("GET", "/a"));
  ASSERT_TRUE(recorder.tryRecordReplayMiss(missOf("ok-2", 0)));
  recorder.flush();
  const std::string log = ::testing::internal::GetCapturedStderr();

  EXPECT_THAT(log, HasSubstr("[store.write] replay miss"));
  EXPECT_THAT(log, HasSubstr("boom"));
  EXPECT_EQ(recorder.stats().written, 1u);
  EXPECT_EQ(recorder.stats().write_errors, 0u);
  ArchiveReader reader(path_);
  std::vector<ReplayMissRow> misses = reader.replayMisses(recorder.sessionId());
  ASSERT_EQ(misses.size(), 2u);
  EXPECT_EQ(misses[0].request_id, "ok-1");
  EXPECT_EQ(misses[1].request_id, "ok-2");
  EXPECT_EQ(reader.exchanges(recorder.sessionId(), 0, 10).size(), 1u);
}

TEST_F(RecorderTest, TwoRecordersShareOneArchive) {
  Recorder a(path_, testSession("a"), testOptions());
  Recorder b(path_, testSession("b"), testOptions());
  for (int i = 0; i < 20; ++i) {
    submit(a, httpExchange("GET", "/a/" + std::to_string(i)));
    submit(b, httpExchange("GET", "/b/" + std::to_string(i)));
  }
  a.close();
  b.close();
  ArchiveReader reader(path_);
  EXPECT_EQ(reader.exchanges(a.sessionId(), 0, 100).size(), 20u);
  EXPECT_EQ(reader.exchanges(b.sessionId(), 0, 100).size(), 20u);
  EXPECT_EQ(a.stats().write_errors + b.stats().write_errors, 0u);
}

/// What the index holds for an archive, independent of row ids: per step its exchange, depth,
/// parent step and conversation's first exchange; then the first session's counters and a
/// search.
std::string indexShape(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  std::string shape;
  SQLite::Statement steps(db, R"sql(
    SELECT s.exchange_id, s.depth, coalesce(p.exchange_id, 0),
      (SELECT min(r.exchange_id) FROM steps r WHERE r.conversation_id = s.conversation_id),
      c.say, c.internal_step_count
    FROM steps s JOIN candidates c ON c.step_id = s.id
    LEFT JOIN candidates pc ON pc.id = s.parent_candidate_id
    LEFT JOIN steps p ON p.id = pc.step_id
    ORDER BY s.exchange_id, s.position)sql");
  while (steps.executeStep()) {
    for (int i = 0; i < steps.getColumnCount(); ++i) {
      shape += steps.getColumn(i).getString() + " ";
    }
    shape += "\n";
  }
  SQLite::Statement sessions(db, R"sql(
    SELECT id, exchange_count, step_count, candidate_count, internal_step_count,
      conversation_count FROM sessions WHERE id = 1)sql");
  while (sessions.executeStep()) {
    for (int i = 0; i < sessions.getColumnCount(); ++i) {
      shape += sessions.getColumn(i).getString() + " ";
    }
    shape += "\n";
  }
  shape += "search: " +
           db.execAndGet("SELECT count(*) FROM search_steps WHERE search_steps MATCH 'turn'")
               .getString();
  return shape;
}

/// Leaves the archive as a recorder killed before indexing would: exchanges captured, nothing
/// derived from them.
void forgetTheIndex(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec(R"sql(
    DELETE FROM search_steps; DELETE FROM search_candidates; DELETE FROM search_internal_steps;
    DELETE FROM search_a2a_calls; DELETE FROM stream_events; DELETE FROM a2a_calls;
    DELETE FROM internal_steps; DELETE FROM candidates; DELETE FROM steps;
    DELETE FROM conversations; DELETE FROM blobs;
    UPDATE exchanges SET indexed = 0, magma_request_id = NULL, request_valid = NULL,
      response_valid = NULL, findings = NULL, decoder_version = 0;
    UPDATE sessions SET step_count = 0, candidate_count = 0, internal_step_count = 0,
      conversation_count = 0)sql");
}

/// Records one conversation of three turns and a separate one.
void recordConversations(const std::string& path) {
  Recorder recorder(path, testSession("killed"), testOptions());
  for (int turn = 0; turn < 3; ++turn) {
    const std::string rid = "r" + std::to_string(turn);
    submit(recorder, magmaExchange(request(rid, {input(1, "user", "turn " + std::to_string(turn),
                                                       memoryOf("a", 2 * turn))}),
                                   Json::array({sayOutput(rid, 1, 0, memoryOf("a", 2 * turn + 1),
                                                          "said " + std::to_string(turn))})));
  }
  submit(recorder, magmaExchange(request("other", {input(1, "user", "turn x", memoryOf("b", 0))}),
                                 Json::array({sayOutput("other", 1, 0, memoryOf("b", 1), "x")})));
}

TEST_F(RecorderTest, TheNextRecorderIndexesWhatAKilledOneLeftUnindexed) {
  recordConversations(path_);
  const std::string indexed = indexShape(path_);
  ASSERT_THAT(indexed, HasSubstr("search: 4"));
  forgetTheIndex(path_);
  ASSERT_EQ(queryInt(path_, "SELECT count(*) FROM steps"), 0);

  Recorder next(path_, testSession("next"), testOptions());
  next.close();
  EXPECT_EQ(next.stats().indexed, 4u) << "what the killed recorder left";
  EXPECT_EQ(next.stats().index_read_back, 4u);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges WHERE indexed = 0"), 0);
  EXPECT_EQ(indexShape(path_), indexed);
}

TEST_F(RecorderTest, IndexPendingExchangesDoesWhatTheNextRecorderWould) {
  recordConversations(path_);
  const std::string indexed = indexShape(path_);
  forgetTheIndex(path_);
  EXPECT_EQ(indexPendingExchanges(path_), 4u);
  EXPECT_EQ(indexShape(path_), indexed);
  EXPECT_EQ(indexPendingExchanges(path_), 0u) << "nothing is indexed twice";
}

/// Every row indexing writes or changes, in id order: the exchanges, what was derived from them,
/// the text the search tables hold, and the sessions' counters.
std::string indexedRows(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  std::string rows;
  auto dump = [&](const std::string& sql) {
    rows += sql + "\n";
    SQLite::Statement q(db, sql);
    while (q.executeStep()) {
      for (int i = 0; i < q.getColumnCount(); ++i) {
        rows += q.getColumn(i).getString() + "|";
      }
      rows += "\n";
    }
  };
  for (const char* table : {"exchanges", "blobs", "conversations", "steps", "candidates",
                            "internal_steps", "a2a_calls", "stream_events", "search_steps",
                            "search_candidates", "search_internal_steps", "search_a2a_calls"}) {
    dump(std::string("SELECT rowid, * FROM ") + table + " ORDER BY rowid");
  }
  dump(R"sql(SELECT exchange_count, step_count, candidate_count, internal_step_count,
      conversation_count, error_candidate_count, failed_exchange_count, invalid_exchange_count
    FROM sessions ORDER BY id)sql");
  return rows;
}

/// Traffic of every kind the index derives rows from: a MAGMA conversation (with a tool call,
/// an error candidate, a secret header and a header that is not UTF-8), an invalid MAGMA
/// request, A2A calls (one streamed) and plain HTTP, which the capture indexes itself.
std::vector<protocol::Exchange> trafficOfEveryKind() {
  std::vector<protocol::Exchange> traffic;
  for (int turn = 0; turn < 3; ++turn) {
    const std::string rid = "r" + std::to_string(turn);
    traffic.push_back(magmaExchange(
        request(rid,
                {input(1, "user", "turn " + std::to_string(turn), memoryOf("a", 2 * turn), 3)}),
        Json::array({sayOutput(rid, 1, 0, memoryOf("a", 2 * turn + 1), "said"),
                     callOutput(rid, 1, 1, memoryOf("b", turn), "sw1"),
                     errorOutput(rid, 1, 2, memoryOf("c", turn))})));
  }
  traffic.back().request_headers.push_back({"Authorization", "Bearer secret"});
  traffic.back().response_headers.push_back({"X-Latin1", "caf\xe9"});
  traffic.push_back(magmaExchange(Json{{"request_id", 7}}, Json::array()));
  traffic.push_back(httpExchange("POST", "/api/v1/a2a", a2aSend(1, "m-1", "first", "c-1"), 200,
                                 a2aTask(1, "t-1", "c-1", "completed", "one")));
  const std::string event =
      "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"kind\":\"status-update\","
      "\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"},"
      "\"final\":true}}\n\n";
  protocol::Exchange stream =
      httpExchange("POST", "/", a2aSend(2, "m-2", "more", "c-1"), 200, event);
  stream.response_headers = {{"Content-Type", "text/event-stream"}};
  stream.response_arrivals = {{10, stream.started_ns + 1000},
                              {event.size(), stream.started_ns + 2000}};
  traffic.push_back(stream);
  traffic.push_back(httpExchange("GET", "/plain"));
  return traffic;
}

TEST_F(RecorderTest, AnExchangeHandedOverInMemoryIsIndexedAsIfReadBack) {
  const std::vector<protocol::Exchange> traffic = trafficOfEveryKind();
  const std::string read_back_path = dir_.file("read-back.sqlite");
  RecorderOptions read_back = testOptions();
  read_back.index_memory_capacity = 0;
  for (const auto& [path, options] :
       {std::pair{path_, testOptions()}, std::pair{read_back_path, read_back}}) {
    Recorder recorder(path, testSession(), options);
    for (const protocol::Exchange& ex : traffic) {
      submit(recorder, ex);
    }
    recorder.close();
    EXPECT_EQ(recorder.stats().indexed, traffic.size());
    EXPECT_EQ(recorder.stats().index_read_back,
              options.index_memory_capacity == 0 ? traffic.size() - 1 : 0u)
        << "all but plain HTTP, which needs no index";
  }
  const std::string in_memory = indexedRows(path_);
  ASSERT_THAT(in_memory, HasSubstr("said"));
  ASSERT_THAT(in_memory, HasSubstr("t-1"));
  ASSERT_EQ(queryInt(path_, "SELECT count(*) FROM stream_events"), 1);
  EXPECT_EQ(in_memory, indexedRows(read_back_path));
}

/// `turns` exchanges of one conversation from turn `first` on, each turn's memory the one its
/// predecessor answered with: threaded one under the other only when indexed in order.
void submitTurns(Recorder& recorder, int first, int turns) {
  for (int turn = first; turn < first + turns; ++turn) {
    const std::string rid = "r" + std::to_string(turn);
    submit(recorder, magmaExchange(request(rid, {input(1, "user", "turn", memoryOf("a", turn))}),
                                   Json::array({sayOutput(rid, 1, 0, memoryOf("a", turn + 1),
                                                          "said " + std::to_string(turn))})));
  }
}

TEST_F(RecorderTest, ExchangesPastTheMemoryBoundAreReadBackInOrder) {
  RecorderOptions options = testOptions();
  options.index_memory_capacity = 5;
  options.batch_window = std::chrono::milliseconds{60000};  // a batch ends with flush()
  Recorder recorder(path_, testSession(), options);
  for (int batch = 0; batch < 2; ++batch) {
    submitTurns(recorder, 20 * batch, 20);
    recorder.flush();
  }
  recorder.close();
  EXPECT_EQ(recorder.stats().batches, 2u);
  EXPECT_EQ(recorder.stats().index_read_back, 30u) << "15 of each batch of 20";
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM steps"), 40);
  EXPECT_EQ(queryInt(path_, "SELECT max(depth) FROM steps"), 39) << "indexed in id order";
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges WHERE indexed = 0"), 0);
}

TEST_F(RecorderTest, TheMemoryBoundCountsBodyBytesToo) {
  RecorderOptions options = testOptions();
  options.batch_window = std::chrono::milliseconds{60000};
  {
    Recorder sizing(dir_.file("sizing.sqlite"), testSession(), options);
    submitTurns(sizing, 0, 3);
  }
  options.index_memory_byte_limit = static_cast<std::size_t>(
      queryInt(dir_.file("sizing.sqlite"),
               "SELECT sum(request_body_size + response_body_size) FROM exchanges"));
  Recorder recorder(path_, testSession(), options);
  submitTurns(recorder, 0, 10);
  recorder.close();
  EXPECT_EQ(recorder.stats().index_read_back, 7u) << "the bodies of three fit";
  EXPECT_EQ(queryInt(path_, "SELECT max(depth) FROM steps"), 9);
}

TEST_F(RecorderTest, ARowAnotherIndexerMarkedFirstIsLeftAsItWroteIt) {
  recordConversations(path_);
  const std::string indexed = indexShape(path_);
  const std::int64_t conversations = queryInt(path_, "SELECT count(*) FROM conversations");
  forgetTheIndex(path_);
  const RecorderOptions options = testOptions();
  SQLite::Database first_db = detail::openWriterConnection(path_, options);
  SQLite::Database second_db = detail::openWriterConnection(path_, options);
  detail::ArchiveIndexer first(first_db, options, 0);
  detail::ArchiveIndexer second(second_db, options, 0);
  // Both hold the same pending rows, as two recorders started after a crash may.
  std::vector<detail::DecodedRow> first_rows =
      detail::decodeRows(first.loadPending(100, 1u << 30), {});
  std::vector<detail::DecodedRow> second_rows =
      detail::decodeRows(second.loadPending(100, 1u << 30), {});
  ASSERT_EQ(first_rows.size(), 4u);
  const std::atomic<bool> never{false};
  ASSERT_EQ(second.writeIndex(second_rows, never).indexed, 4u);
  EXPECT_EQ(first.writeIndex(first_rows, never).indexed, 0u) << "every row was claimed already";
  EXPECT_EQ(indexShape(path_), indexed);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM conversations"), conversations);
}

TEST_F(RecorderTest, AnExchangeRolledBackAddsNothingToItsSessionsCounters) {
  archiveWithTrigger(path_,
                     "CREATE TRIGGER refuse_events BEFORE INSERT ON stream_events "
                     "BEGIN SELECT RAISE(ABORT, 'events refused'); END");
  // The A2A call opens its conversation before its stream's events fail.
  const std::vector<protocol::Exchange> traffic = trafficOfEveryKind();
  const protocol::Exchange& stream = traffic[traffic.size() - 2];
  ::testing::internal::CaptureStderr();
  Recorder recorder(path_, testSession("second"), testOptions());
  submit(recorder, stream);
  recorder.close();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("events refused"));
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM conversations"), 0);
  EXPECT_EQ(queryInt(path_, "SELECT conversation_count FROM sessions WHERE id = 2"), 0);

  SQLite::Database(path_, SQLite::OPEN_READWRITE).exec("DROP TRIGGER refuse_events");
  Recorder again(path_, testSession("third"), testOptions());
  submit(again, stream);
  again.close();
  EXPECT_EQ(queryInt(path_, "SELECT conversation_count FROM sessions WHERE id = 3"), 1)
      << "the same exchange indexed whole";
}

TEST_F(RecorderTest, AnIndexChunkEndsWithTheExchangeWhoseBodiesReachItsByteLimit) {
  recordConversations(path_);
  forgetTheIndex(path_);
  const RecorderOptions options = testOptions();
  SQLite::Database db = detail::openWriterConnection(path_, options);
  detail::ArchiveIndexer indexer(db, options, 0);
  const auto first = indexer.loadPending(100, 1);
  ASSERT_EQ(first.size(), 1u) << "one row, however large";
  EXPECT_EQ(indexer.loadPending(100, 1).at(0).id, first[0].id + 1);
  EXPECT_EQ(indexer.loadPending(1, 1u << 30).size(), 1u) << "the count limits too";
  EXPECT_EQ(indexer.loadPending(100, 1u << 30).size(), 1u) << "four in all";
  EXPECT_TRUE(indexer.loadPending(100, 1u << 30).empty());
}

TEST_F(RecorderTest, TwoRecordersNeverIndexAnExchangeTwice) {
  recordConversations(path_);
  const std::string indexed = indexShape(path_);
  forgetTheIndex(path_);
  {
    // Both start while the killed session's rows are pending: each may claim any of them.
    Recorder a(path_, testSession("a"), testOptions());
    Recorder b(path_, testSession("b"), testOptions());
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM steps"), 4);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges WHERE indexed = 0"), 0);
  EXPECT_EQ(queryInt(path_, "SELECT step_count FROM sessions WHERE id = 1"), 4);
}

TEST_F(RecorderTest, ABacklogIsIndexedInOrderWithTheNextChunkDecodedAhead) {
  // One conversation over several index chunks, each turn threaded to the one before by its
  // memory: a chunk written before the one it follows would lose the links.
  constexpr int kTurns = 300;
  RecorderOptions chunks_of_64 = testOptions();
  chunks_of_64.index_chunk = 64;
  {
    Recorder recorder(path_, testSession("killed"), testOptions());
    for (int turn = 0; turn < kTurns; ++turn) {
      const std::string rid = "r" + std::to_string(turn);
      submit(recorder, magmaExchange(request(rid, {input(1, "user", "turn", memoryOf("a", turn))}),
                                     Json::array({sayOutput(rid, 1, 0, memoryOf("a", turn + 1),
                                                            "said " + std::to_string(turn))})));
    }
  }
  forgetTheIndex(path_);
  ASSERT_EQ(indexPendingExchanges(path_), static_cast<std::uint64_t>(kTurns));
  const std::string one_chunk_after_another = indexShape(path_);
  ASSERT_EQ(queryInt(path_, "SELECT max(depth) FROM steps"), kTurns - 1);
  forgetTheIndex(path_);

  Recorder next(path_, testSession("next"), chunks_of_64);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (next.stats().indexed < kTurns && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto runtime = threadRuntimeByName();
  next.close();
  EXPECT_EQ(indexShape(path_), one_chunk_after_another);
  ASSERT_EQ(runtime.count("avcr-decode"), 1u);
  // Decoding a chunk of 64 exchanges takes milliseconds; starting the thread, microseconds.
  EXPECT_GT(runtime.find("avcr-decode")->second, 1'000'000u) << "no chunk was decoded ahead";
}

TEST_F(RecorderTest, AnIndexHeldToAShareUnderLoadStillIndexesEverything) {
  RecorderOptions options = testOptions();
  options.index_share_under_load = 0.1;
  options.batch_window = std::chrono::milliseconds{1};
  Recorder recorder(path_, testSession(), options);
  // Batches keep committing while the index works: it sleeps between its chunks.
  for (int i = 0; i < 300; ++i) {
    const std::string rid = "load-" + std::to_string(i);
    submit(recorder, magmaExchange(request(rid, {input(1, "user", "turn", memoryOf(rid, 0))}),
                                   Json::array({sayOutput(rid, 1, 0, memoryOf(rid, 1), "ok")})));
    if (i % 50 == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds{2});
    }
  }
  recorder.flush();
  EXPECT_EQ(recorder.stats().indexed, 300u);
  recorder.close();
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM steps"), 300);
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges WHERE indexed = 0"), 0);
}

TEST_F(RecorderTest, TheWalIsCheckpointedWhileRecording) {
  RecorderOptions options = testOptions();
  options.compress_bodies = false;
  Recorder recorder(path_, testSession(), options);
  // 48 MB of bodies: without checkpoints the WAL would hold all of it.
  const std::string body(24 * 1024, 'x');
  for (int i = 0; i < 2000; ++i) {
    submit(recorder, httpExchange("POST", "/bulk/" + std::to_string(i), body));
    if (i % 100 == 99) {
      recorder.flush();  // commits, so the checkpointer can catch up and the WAL restart
    }
  }
  recorder.flush();
  // Pages reach the database file while the recorder is open (closing would checkpoint
  // anyway). How soon depends on how much CPU the nicer checkpointer gets: on an idle machine
  // the WAL stays near half the bodies, on a machine busy with other tests it can hold them all
  // for a while, hence the deadline rather than a bound on the WAL.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::filesystem::file_size(path_) <= (16u << 20) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GT(std::filesystem::file_size(path_), 16u << 20) << "pages reached the database file";
}

TEST_F(RecorderTest, AWalPastTheThresholdIsCheckpointedInTheBackground) {
  RecorderOptions options = testOptions();
  options.compress_bodies = false;
  Recorder recorder(path_, testSession(), options);
  // About 4,800 pages in one commit: past the background threshold, below the inline one.
  const std::string body(24 * 1024, 'x');
  for (int i = 0; i < 800; ++i) {
    submit(recorder, httpExchange("POST", "/bulk/" + std::to_string(i), body));
  }
  recorder.flush();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::filesystem::file_size(path_) < (16u << 20) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(std::filesystem::file_size(path_), 16u << 20) << "nothing was checkpointed";
}

TEST_F(RecorderTest, CaptureLagIsTheAgeOfTheOldestQueuedItem) {
  RecorderOptions options = testOptions();
  options.max_batch = 1;
  Recorder recorder(path_, testSession(), options);
  EXPECT_EQ(recorder.stats().capture_lag.count(), 0);
  WriteLock lock(path_);  // the writer takes the first exchange and stalls on the lock
  submit(recorder, httpExchange("GET", "/first"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (recorder.stats().queued > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  submit(recorder, httpExchange("GET", "/second"));  // waits in the queue
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const RecorderStats stalled = recorder.stats();
  EXPECT_EQ(stalled.queued, 1u);
  EXPECT_GE(stalled.capture_lag, std::chrono::milliseconds(50));
  EXPECT_LT(stalled.capture_lag, std::chrono::seconds(30));

  lock.release();
  recorder.flush();
  const RecorderStats drained = recorder.stats();
  EXPECT_EQ(drained.capture_lag.count(), 0);
  EXPECT_EQ(drained.written, 2u);
}

TEST_F(RecorderTest, AnAgentIdentityQueuedFirstIsTheOldestQueuedItem) {
  // The agent's identity waits in the queue like an exchange: the capture lag counts from it,
  // and the capture thread pops its time with it (a batch of thousands once crashed there).
  RecorderOptions options = testOptions();
  options.max_batch = 1;
  Recorder recorder(path_, testSession(), options);
  WriteLock lock(path_);
  submit(recorder, httpExchange("GET", "/first"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (recorder.stats().queued > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  recorder.recordAgentIdentity(R"({"status":"ready"})", "{}");
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  submit(recorder, httpExchange("GET", "/second"));
  const RecorderStats stalled = recorder.stats();
  EXPECT_EQ(stalled.queued, 2u);
  EXPECT_GE(stalled.capture_lag, std::chrono::milliseconds(60));

  lock.release();
  for (int i = 0; i < 200; ++i) {
    submit(recorder, httpExchange("GET", "/more/" + std::to_string(i)));
  }
  recorder.flush();
  EXPECT_EQ(recorder.stats().capture_lag.count(), 0);
  EXPECT_EQ(recorder.stats().written, 202u);
}

TEST_F(RecorderTest, IndexLagCountsCommittedExchangesTheIndexHasNotReached) {
  // The index thread calls on_a2a_call before it writes: holding it there holds the index
  // behind the capture.
  std::promise<void> entered;
  std::promise<void> go_on;
  std::shared_future<void> released = go_on.get_future().share();
  std::atomic<int> calls{0};
  RecorderOptions options = testOptions();
  options.on_a2a_call = [&](const protocol::a2a::Call& call) {
    EXPECT_EQ(call.method, "message/send");
    if (calls++ == 0) {
      entered.set_value();
      released.wait();
    }
  };
  Recorder recorder(path_, testSession(), options);
  submit(recorder, httpExchange("POST", "/a2a", a2aSend(1, "m-1", "hi"), 200,
                                a2aTask(1, "t-1", "c-1", "completed", "hello")));
  ASSERT_EQ(entered.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const RecorderStats behind = recorder.stats();
  EXPECT_EQ(behind.written, 1u);
  EXPECT_EQ(behind.indexed, 0u);
  EXPECT_EQ(behind.unindexed, 1u);
  EXPECT_GE(behind.index_lag, std::chrono::milliseconds(30));

  go_on.set_value();
  recorder.flush();
  const RecorderStats caught_up = recorder.stats();
  EXPECT_EQ(caught_up.indexed, 1u);
  EXPECT_EQ(caught_up.unindexed, 0u);
  EXPECT_EQ(caught_up.index_lag.count(), 0);
  EXPECT_EQ(calls, 1);
}

TEST_F(RecorderTest, ThreadsWhoseWorkCanWaitRunNicerThanTheCapture) {
  const int process_nice = getpriority(PRIO_PROCESS, 0);
  Recorder recorder(path_, testSession(), testOptions());
  submit(recorder, httpExchange("GET", "/nice"));
  recorder.flush();
  // Each thread names itself when it starts; the checkpointer may not have yet.
  auto niceness = threadNicenessByName();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((niceness.count("avcr-checkpoint") == 0 || niceness.count("avcr-decode") == 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    niceness = threadNicenessByName();
  }
  const int background_nice = std::min(process_nice + 10, 19);
  for (const char* name : {"avcr-index", "avcr-decode", "avcr-checkpoint", "avcr-capture"}) {
    ASSERT_EQ(niceness.count(name), 1u) << name;
  }
  EXPECT_EQ(niceness.find("avcr-index")->second, background_nice);
  EXPECT_EQ(niceness.find("avcr-decode")->second, background_nice);
  EXPECT_EQ(niceness.find("avcr-checkpoint")->second, background_nice);
  // The relays wait on the capture (a full queue, --durability full): it keeps their priority.
  EXPECT_EQ(niceness.find("avcr-capture")->second, process_nice);
}

TEST_F(RecorderTest, BackgroundThreadsGiveWayAfterEachExchange) {
  // Counted by the thread that calls: the capture after each exchange it writes, the decoding
  // and index threads after each exchange they decode and each they index, and after each
  // search row.
  std::mutex mutex;
  std::map<std::string, int> calls;
  RecorderOptions options = testOptions();
  options.between_exchanges = [&] {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    std::lock_guard<std::mutex> lock(mutex);
    ++calls[name];
  };
  constexpr int kExchanges = 40;
  {
    Recorder recorder(path_, testSession(), options);
    for (int i = 0; i < kExchanges; ++i) {
      const std::string rid = "way-" + std::to_string(i);
      submit(recorder, magmaExchange(request(rid, {input(1, "user", "turn", memoryOf(rid, 0))}),
                                     Json::array({sayOutput(rid, 1, 0, memoryOf(rid, 1), "ok")})));
    }
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM steps"), kExchanges);
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(calls["avcr-capture"], kExchanges);
  // Each exchange is decoded once, on the index thread or ahead of it, and indexed once; then
  // come the search rows of its steps, candidates and internal steps.
  const int search_rows = queryInt(path_, "SELECT count(*) FROM steps") +
                          queryInt(path_, "SELECT count(*) FROM candidates") +
                          queryInt(path_, "SELECT count(*) FROM internal_steps");
  EXPECT_EQ(calls["avcr-index"] + calls["avcr-decode"], 2 * kExchanges + search_rows);
}

TEST_F(RecorderTest, ACaptureThatFellBehindKeepsItsCore) {
  // Batches of 8 taken from a burst of 40: each is half a full batch or more, so relaying
  // threads would soon wait for room in the queue, and the capture gives nothing away.
  std::atomic<int> capture_calls{0};
  RecorderOptions options = testOptions();
  options.max_batch = 8;
  options.batch_window = std::chrono::milliseconds{500};
  options.between_exchanges = [&] {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    if (std::string(name) == "avcr-capture") {
      ++capture_calls;
    }
  };
  {
    Recorder recorder(path_, testSession(), options);
    for (int i = 0; i < 40; ++i) {
      submit(recorder, httpExchange("POST", "/behind/" + std::to_string(i)));
    }
  }
  EXPECT_EQ(queryInt(path_, "SELECT count(*) FROM exchanges"), 40);
  EXPECT_EQ(capture_calls.load(), 0);
}

TEST_F(RecorderTest, AnIndexTheCaptureWaitsForGivesItsCoreToNoOne) {
  recordConversations(path_);
  forgetTheIndex(path_);
  int calls = 0;
  RecorderOptions options = testOptions();
  options.between_exchanges = [&] { ++calls; };
  SQLite::Database db = detail::openWriterConnection(path_, options);
  detail::ArchiveIndexer indexer(db, options, 0);
  std::vector<detail::DecodedRow> rows = detail::decodeRows(indexer.loadPending(100, 1u << 30), {});
  ASSERT_EQ(rows.size(), 4u);
  const std::uint64_t yields_before = detail::yieldingVfsYields();
  // The capture waits for the connection: one row is written and committed at once, without
  // a yield after it, between its search rows or in the commit's writes.
  const std::atomic<bool> capture_waiting{true};
  EXPECT_EQ(indexer.writeIndex(rows, capture_waiting).indexed, 1u);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(detail::yieldingVfsYields(), yields_before);
  // Nobody waits: a yield after each row and each search row.
  const std::atomic<bool> never{false};
  EXPECT_EQ(indexer.writeIndex(rows, never).indexed, 3u);
  EXPECT_GE(calls, 3);
}

}  // namespace
}  // namespace agentvcr::store
