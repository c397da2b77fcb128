// Export -> import and merge: every recorded fact survives the copy, with new ids.

#include "agentvcr/store/transfer.hpp"

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/export.hpp"
#include "agentvcr/store/identity.hpp"
#include "store_test_support.hpp"
#include "transfer_fixture.hpp"

namespace agentvcr::store {
namespace {

using testing::kFirstEventNs;
using testing::kSecondEventNs;
using testing::queryInt;
using testing::queryText;
using testing::recordSample;
using testing::sessionCounts;
using testing::TempDir;
using testing::testMergeOptions;
using testing::testOptions;

std::vector<ExchangeRow> allExchanges(const ArchiveReader& reader, std::int64_t session) {
  std::vector<ExchangeRow> rows;
  for (const ExchangeRow& listed : reader.exchanges(session, 0, ArchiveReader::kNoLimit)) {
    rows.push_back(*reader.exchange(listed.id));
  }
  return rows;
}

/// Everything a copy must keep of an exchange (ids and seq aside).
void expectSameExchanges(const std::vector<ExchangeRow>& a, const std::vector<ExchangeRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("exchange " + std::to_string(i));
    EXPECT_EQ(a[i].method, b[i].method);
    EXPECT_EQ(a[i].target, b[i].target);
    EXPECT_EQ(a[i].http_version, b[i].http_version);
    EXPECT_EQ(a[i].status, b[i].status);
    EXPECT_EQ(a[i].client_address, b[i].client_address);
    EXPECT_EQ(a[i].request_headers, b[i].request_headers);
    EXPECT_EQ(a[i].response_headers, b[i].response_headers);
    EXPECT_EQ(a[i].request_body, b[i].request_body);
    EXPECT_EQ(a[i].response_body, b[i].response_body);
    EXPECT_EQ(a[i].response_from_upstream, b[i].response_from_upstream);
    EXPECT_EQ(a[i].started_ns, b[i].started_ns);
    EXPECT_EQ(a[i].request_ended_ns, b[i].request_ended_ns);
    EXPECT_EQ(a[i].upstream_sent_ns, b[i].upstream_sent_ns);
    EXPECT_EQ(a[i].upstream_first_byte_ns, b[i].upstream_first_byte_ns);
    EXPECT_EQ(a[i].upstream_last_byte_ns, b[i].upstream_last_byte_ns);
    EXPECT_EQ(a[i].ended_ns, b[i].ended_ns);
    EXPECT_EQ(a[i].outcome, b[i].outcome);
    EXPECT_EQ(a[i].error, b[i].error);
    EXPECT_EQ(a[i].fault, b[i].fault);
    EXPECT_EQ(a[i].card_rewrite, b[i].card_rewrite);
    EXPECT_EQ(a[i].protocol, b[i].protocol);
    EXPECT_EQ(a[i].route, b[i].route);
  }
}

void expectSameSession(const SessionRow& a, const SessionRow& b) {
  EXPECT_EQ(a.uuid, b.uuid);
  EXPECT_EQ(a.node, b.node);
  EXPECT_EQ(a.recorder_version, b.recorder_version);
  EXPECT_EQ(a.derived_from, b.derived_from);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.upstream, b.upstream);
  EXPECT_EQ(a.listen, b.listen);
  EXPECT_EQ(a.started_ns, b.started_ns);
  EXPECT_EQ(a.ended_ns, b.ended_ns);
  EXPECT_EQ(a.agent_health, b.agent_health);
  EXPECT_EQ(a.agent_info, b.agent_info);
}

std::string exportAll(const std::string& path) {
  const ArchiveReader reader(path);
  std::ostringstream text;
  exportArchiveJsonl(reader, selectExchanges(reader, {}), text);
  return text.str();
}

TEST(TransferTest, ExportThenImportKeepsEveryExchangeByteForByte) {
  TempDir dir;
  const std::string source = dir.file("source.sqlite");
  const std::string copy = dir.file("copy.sqlite");
  const std::int64_t original = recordSample(source, "first");

  std::istringstream jsonl(exportAll(source));
  const CopyResult result = importJsonl(jsonl, copy);
  ASSERT_EQ(result.session_ids.size(), 1u);
  EXPECT_EQ(result.exchanges, 6u);

  const ArchiveReader a(source);
  const ArchiveReader b(copy);
  expectSameSession(*a.session(original), *b.session(result.session_ids[0]));
  expectSameExchanges(allExchanges(a, original), allExchanges(b, result.session_ids[0]));
  auto counts = sessionCounts(source, original);
  counts["replay_misses"] = 0;  // JSONL carries exchanges only
  EXPECT_EQ(counts, sessionCounts(copy, result.session_ids[0]));

  // The stream's events kept the times they arrived at.
  EXPECT_EQ(queryInt(copy, "SELECT at_ns FROM stream_events WHERE position = 0"), kFirstEventNs);
  EXPECT_EQ(queryInt(copy, "SELECT at_ns FROM stream_events WHERE position = 1"), kSecondEventNs);

  // Both archives are fresh, so even the ids match: a second export is the first one.
  const std::string first = exportAll(source);
  EXPECT_EQ(first, exportAll(copy));
  EXPECT_NE(first.find(R"("response_body":{"base64":)"), std::string::npos);
}

TEST(TransferTest, ImportNamesSessionsAndRejectsBrokenLines) {
  TempDir dir;
  const std::string source = dir.file("source.sqlite");
  recordSample(source, "first");
  std::istringstream jsonl(exportAll(source));
  ImportOptions options;
  options.session_name = "renamed";
  const CopyResult result = importJsonl(jsonl, dir.file("copy.sqlite"), options);
  EXPECT_EQ(queryText(dir.file("copy.sqlite"), "SELECT group_concat(name) FROM sessions"),
            "renamed");
  EXPECT_EQ(result.session_ids.size(), 1u);

  std::istringstream broken("{\"session_id\":1,\"method\":\"GET\"}\n");
  try {
    importJsonl(broken, dir.file("broken.sqlite"));
    FAIL() << "a line without the exchange fields was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("[store.import] line 1"), std::string::npos) << e.what();
  }
}

TEST(TransferTest, MergeKeepsEverySessionDistinctWithAllItsRows) {
  TempDir dir;
  const std::string first = dir.file("first.sqlite");
  const std::string second = dir.file("second.sqlite");
  const std::string merged = dir.file("merged.sqlite");
  const std::int64_t first_id = recordSample(first, "one");
  const std::int64_t second_id = recordSample(second, "two");
  // The output already has a session of its own: merged ones must not clash with it.
  recordSample(merged, "zero");

  const CopyResult a = mergeArchive(merged, first, testMergeOptions());
  const CopyResult b = mergeArchive(merged, second, testMergeOptions());
  ASSERT_EQ(a.session_ids.size(), 1u);
  ASSERT_EQ(b.session_ids.size(), 1u);
  EXPECT_EQ(a.replay_misses, 1u);
  EXPECT_EQ(queryInt(merged, "SELECT count(*) FROM sessions"), 3);
  EXPECT_NE(a.session_ids[0], b.session_ids[0]);

  EXPECT_EQ(sessionCounts(first, first_id), sessionCounts(merged, a.session_ids[0]));
  EXPECT_EQ(sessionCounts(second, second_id), sessionCounts(merged, b.session_ids[0]));

  const ArchiveReader in(first);
  const ArchiveReader out(merged);
  expectSameSession(*in.session(first_id), *out.session(a.session_ids[0]));
  expectSameExchanges(allExchanges(in, first_id), allExchanges(out, a.session_ids[0]));
  EXPECT_EQ(out.session(a.session_ids[0])->agent_id, in.session(first_id)->agent_id);

  // The miss points at the copy of its closest step, inside the merged session.
  const std::vector<ReplayMissRow> misses = out.replayMisses(a.session_ids[0]);
  ASSERT_EQ(misses.size(), 1u);
  ASSERT_TRUE(misses[0].closest_step_id.has_value());
  EXPECT_EQ(out.step(*misses[0].closest_step_id)->session_id, a.session_ids[0]);
  EXPECT_EQ(misses[0].differences, in.replayMisses(first_id)[0].differences);
}

std::vector<SessionRow> sessionsOf(const std::string& path) {
  return ArchiveReader(path).sessions();
}

TEST(TransferTest, AnImportedAndReimportedSessionKeepsItsIdentity) {
  TempDir dir;
  const std::string source = dir.file("source.sqlite");
  const std::string copy = dir.file("copy.sqlite");
  const std::string copy_of_copy = dir.file("copy2.sqlite");
  recordSample(source, "first");
  const SessionRow original = sessionsOf(source).at(0);
  EXPECT_EQ(original.uuid.size(), 36u);
  EXPECT_EQ(original.recorder_version, agentvcrVersion());

  std::istringstream first_export(exportAll(source));
  importJsonl(first_export, copy);
  std::istringstream second_export(exportAll(copy));
  importJsonl(second_export, copy_of_copy);
  for (const std::string& path : {copy, copy_of_copy}) {
    SCOPED_TRACE(path);
    const std::vector<SessionRow> sessions = sessionsOf(path);
    ASSERT_EQ(sessions.size(), 1u);
    EXPECT_EQ(sessions[0].uuid, original.uuid);
    EXPECT_EQ(sessions[0].node, original.node);
    EXPECT_EQ(sessions[0].recorder_version, original.recorder_version);
    EXPECT_EQ(sessions[0].derived_from, std::nullopt);
  }
}

TEST(TransferTest, ImportingASessionTheArchiveHoldsAddsNothing) {
  TempDir dir;
  const std::string source = dir.file("source.sqlite");
  const std::string copy = dir.file("copy.sqlite");
  recordSample(source, "first");
  const std::string jsonl = exportAll(source);

  std::istringstream once(jsonl);
  const CopyResult first = importJsonl(once, copy);
  std::istringstream twice(jsonl);
  const CopyResult second = importJsonl(twice, copy);
  EXPECT_EQ(first.session_ids.size(), 1u);
  EXPECT_TRUE(second.session_ids.empty());
  EXPECT_EQ(second.exchanges, 0u);
  ASSERT_EQ(second.already_held.size(), 1u);
  EXPECT_EQ(second.already_held[0].uuid, sessionsOf(source).at(0).uuid);
  EXPECT_EQ(second.already_held[0].name, "first");
  EXPECT_EQ(queryInt(copy, "SELECT count(*) FROM sessions"), 1);
  EXPECT_EQ(queryInt(copy, "SELECT count(*) FROM exchanges"), 6);

  // Into the archive it was exported from: nothing either.
  std::istringstream home(jsonl);
  EXPECT_EQ(importJsonl(home, source).already_held.size(), 1u);
  EXPECT_EQ(queryInt(source, "SELECT count(*) FROM sessions"), 1);
}

TEST(TransferTest, ImportAsNewMintsAUuidDerivedFromTheCopiedOne) {
  TempDir dir;
  const std::string source = dir.file("source.sqlite");
  recordSample(source, "first");
  const SessionRow original = sessionsOf(source).at(0);

  std::istringstream jsonl(exportAll(source));
  ImportOptions options;
  options.as_new = true;
  const CopyResult result = importJsonl(jsonl, source, options);
  ASSERT_EQ(result.session_ids.size(), 1u);
  const SessionRow copy = *ArchiveReader(source).session(result.session_ids[0]);
  EXPECT_NE(copy.uuid, original.uuid);
  EXPECT_EQ(copy.uuid.size(), 36u);
  EXPECT_EQ(copy.derived_from, original.uuid);
  EXPECT_EQ(copy.node, original.node);
  EXPECT_EQ(queryInt(source, "SELECT count(*) FROM sessions"), 2);
}

TEST(TransferTest, AnExportWithoutIdentitiesImportsAsSessionsNeverSeen) {
  TempDir dir;
  const std::string source = dir.file("source.sqlite");
  const std::string copy = dir.file("copy.sqlite");
  recordSample(source, "first");
  // What an agentvcr before schema 11 exported: no identity, no new timing points, no fault.
  std::istringstream exported(exportAll(source));
  std::string older;
  for (std::string line; std::getline(exported, line);) {
    nlohmann::json parsed = nlohmann::json::parse(line);
    if (parsed.contains("session")) {
      for (const char* key : {"uuid", "node", "recorder_version", "derived_from"}) {
        parsed["session"].erase(key);
      }
    }
    for (const char* key : {"request_ended_ns", "upstream_sent_ns", "fault"}) {
      parsed.erase(key);
    }
    older += parsed.dump() + "\n";
  }
  for (int time = 0; time < 2; ++time) {
    std::istringstream jsonl(older);
    EXPECT_EQ(importJsonl(jsonl, copy).session_ids.size(), 1u);
  }
  const std::vector<SessionRow> sessions = sessionsOf(copy);
  ASSERT_EQ(sessions.size(), 2u);  // nothing tells the two copies apart
  EXPECT_NE(sessions[0].uuid, sessions[1].uuid);
  EXPECT_EQ(sessions[0].node, "unknown");
  EXPECT_EQ(sessions[0].recorder_version, std::nullopt);
  const ArchiveReader reader(copy);
  const ExchangeRow first = *reader.exchange(reader.exchanges(sessions[0].id, 0, 1).at(0).id);
  EXPECT_EQ(first.request_ended_ns, std::nullopt);
  EXPECT_EQ(first.upstream_sent_ns, std::nullopt);
}

TEST(TransferTest, MergingTheSameArchiveTwiceGivesEachSessionOnce) {
  TempDir dir;
  const std::string first = dir.file("first.sqlite");
  const std::string merged = dir.file("merged.sqlite");
  recordSample(first, "one");
  recordSample(first, "two");

  const CopyResult once = mergeArchive(merged, first, testMergeOptions());
  const CopyResult twice = mergeArchive(merged, first, testMergeOptions());
  EXPECT_EQ(once.session_ids.size(), 2u);
  EXPECT_TRUE(twice.session_ids.empty());
  EXPECT_EQ(twice.already_held.size(), 2u);
  EXPECT_EQ(queryInt(merged, "SELECT count(*) FROM sessions"), 2);
  EXPECT_EQ(queryInt(merged, "SELECT count(*) FROM exchanges"), 12);
  const std::vector<SessionRow> in = sessionsOf(first);
  const std::vector<SessionRow> out = sessionsOf(merged);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].uuid, in[0].uuid);
  EXPECT_EQ(out[1].uuid, in[1].uuid);

  // Merged archives export and import back without a duplicate either.
  std::istringstream jsonl(exportAll(merged));
  EXPECT_EQ(importJsonl(jsonl, first).already_held.size(), 2u);

  MergeOptions as_new = testMergeOptions();
  as_new.as_new = true;
  const CopyResult again = mergeArchive(merged, first, as_new);
  ASSERT_EQ(again.session_ids.size(), 2u);
  EXPECT_EQ(ArchiveReader(merged).session(again.session_ids[0])->derived_from, in[0].uuid);
  EXPECT_EQ(queryInt(merged, "SELECT count(DISTINCT uuid) FROM sessions"), 4);
}

TEST(TransferTest, AUuidInCapitalsIsTheSessionItSpells) {
  TempDir dir;
  const std::string first = dir.file("first.sqlite");
  const std::string capitals = dir.file("capitals.sqlite");
  recordSample(first, "one");
  mergeArchive(capitals, first, testMergeOptions());
  SQLite::Database(capitals, SQLite::OPEN_READWRITE).exec("UPDATE sessions SET uuid = upper(uuid)");
  const CopyResult again = mergeArchive(capitals, first, testMergeOptions());
  EXPECT_TRUE(again.session_ids.empty());
  EXPECT_EQ(again.already_held.size(), 1u);
  EXPECT_EQ(queryInt(capitals, "SELECT count(*) FROM sessions"), 1);
}

TEST(TransferTest, AMergeKeepsEachExchangesSeqGapsIncluded) {
  TempDir dir;
  const std::string first = dir.file("first.sqlite");
  const std::string merged = dir.file("merged.sqlite");
  recordSample(first, "gaps");
  // What a session pulled from a fleet archive that quarantined an exchange looks like.
  SQLite::Database(first, SQLite::OPEN_READWRITE)
      .exec("UPDATE exchanges SET seq = seq + 10 WHERE seq >= 2");
  mergeArchive(merged, first, testMergeOptions());
  const std::string seqs =
      "SELECT group_concat(seq, ',') FROM (SELECT seq FROM exchanges ORDER BY seq)";
  EXPECT_EQ(queryText(merged, seqs), queryText(first, seqs));
}

}  // namespace
}  // namespace agentvcr::store
