// A session's uuid, however an archive spells it: compared, listed and fed in one spelling.

#include "agentvcr/store/identity.hpp"

#include <cctype>
#include <iostream>
#include <random>
#include <regex>
#include <sstream>
#include <string>

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/change_feed.hpp"
#include "agentvcr/store/export.hpp"
#include "agentvcr/store/transfer.hpp"
#include "env_number.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using testing::TempDir;
using testing::testMergeOptions;
using testing::testOptions;

/// Text near a uuid: a minted one with some of its characters changed in case, replaced by
/// others (a hex digit, a letter past `f`, a dash, a space, a byte that is not ASCII), dropped or
/// doubled.
std::string nearUuid(std::mt19937_64& random) {
  std::string text = mintUuid();
  const char kOthers[] = {'0', '9', 'a', 'F', 'g', 'G', 'z', '-', ' ', '{', '\xc3', '\0'};
  const int edits = static_cast<int>(random() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = random() % text.size();
    switch (random() % 4) {
      case 0:
        text[at] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[at])));
        break;
      case 1:
        text[at] = kOthers[random() % sizeof kOthers];
        break;
      case 2:
        text.erase(at, 1);
        break;
      default:
        text.insert(at, 1, text[at]);
        break;
    }
  }
  return text;
}

TEST(UuidSpellingTest, OneSpellingForEveryUuidAndNoOtherTextChanged) {
  const std::uint64_t seed =
      agentvcr::testing::envNumber("AGENTVCR_UUID_SEED", std::random_device{}());
  SCOPED_TRACE("replay with AGENTVCR_UUID_SEED=" + std::to_string(seed));
  std::mt19937_64 random(seed);
  // The ground truth: 8-4-4-4-12 hexadecimal digits, either case; lower case is the spelling.
  const std::regex uuid(
      "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  int uuids = 0;
  for (int i = 0; i < 5000; ++i) {
    const std::string text = nearUuid(random);
    const bool is = std::regex_match(text, uuid);
    std::string lower = text;
    for (char& c : lower) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    ASSERT_EQ(isUuid(text), is) << "'" << text << "'";
    ASSERT_EQ(canonicalUuid(text), is ? lower : text) << "'" << text << "'";
    uuids += is ? 1 : 0;
  }
  EXPECT_GT(uuids, 1000) << "the generator makes uuids too, in every spelling";
  EXPECT_LT(uuids, 4000) << "and text that is not one";
}

/// `text` with every letter in upper case.
std::string upperCase(std::string text) {
  for (char& c : text) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return text;
}

/// An archive of two sessions of one exchange each, whose uuids are spelled in upper case as an
/// older or a foreign tool may have written them; returns their uuids as agentvcr spells them.
std::vector<std::string> archiveInUpperCase(const std::string& path) {
  for (const char* name : {"first", "second"}) {
    Recorder recorder(path, testing::testSession(name), testOptions());
    testing::submit(recorder, testing::httpExchange("GET", std::string("/") + name));
  }
  std::vector<std::string> uuids;
  for (const SessionRow& session : ArchiveReader(path).sessions()) {
    uuids.push_back(session.uuid);
  }
  SQLite::Database(path, SQLite::OPEN_READWRITE).exec("UPDATE sessions SET uuid = upper(uuid)");
  EXPECT_EQ(testing::queryInt(path, "SELECT count(*) FROM sessions WHERE uuid = upper(uuid)"), 2);
  return uuids;
}

TEST(UuidSpellingTest, AnArchiveInUpperCaseIsReadAndFedInLowerCase) {
  TempDir dir;
  const std::string path = dir.file("upper.sqlite");
  const std::vector<std::string> uuids = archiveInUpperCase(path);
  const std::vector<SessionRow> read = ArchiveReader(path).sessions();
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].uuid, uuids[0]);
  EXPECT_EQ(read[1].uuid, uuids[1]);
  EXPECT_EQ(shortUuid(read[0].uuid), uuids[0].substr(0, 8));

  ChangeFeed feed(path);
  const std::vector<FeedSession> fed = feed.sessions();
  ASSERT_EQ(fed.size(), 2u);
  EXPECT_EQ(fed[0].uuid, uuids[0]);
  const FeedBatch batch = feed.next(fed[0], {}, {});
  for (const FeedTable& t : batch.tables) {
    for (const auto& row : t.rows) {
      if (t.columns.front() == "session_uuid" || t.columns.front() == "uuid") {
        EXPECT_EQ(std::get<std::string>(row.front()), uuids[0]) << t.table;
      }
    }
  }
}

TEST(UuidSpellingTest, CopiesOfOneSessionSpelledTwoWaysAreOneSession) {
  TempDir dir;
  const std::string upper = dir.file("upper.sqlite");
  archiveInUpperCase(upper);
  const std::string lower = dir.file("lower.sqlite");
  EXPECT_EQ(mergeArchive(lower, upper, testMergeOptions()).session_ids.size(), 2u);
  EXPECT_EQ(testing::queryInt(lower, "SELECT count(*) FROM sessions WHERE uuid = lower(uuid)"), 2)
      << "a copy is written in lower case";

  // Either way round, the archive holds the sessions already: merged, or imported in either
  // spelling.
  EXPECT_EQ(mergeArchive(upper, lower, testMergeOptions()).already_held.size(), 2u);
  EXPECT_EQ(mergeArchive(lower, upper, testMergeOptions()).already_held.size(), 2u);
  std::stringstream exported;
  const ArchiveReader reader(lower);
  exportArchiveJsonl(reader, selectExchanges(reader, {}), exported);
  std::stringstream same(exported.str());
  ImportOptions importing;
  importing.recorder = testOptions();
  EXPECT_EQ(importJsonl(same, upper, importing).already_held.size(), 2u);
  std::string text = exported.str();
  for (const SessionRow& session : reader.sessions()) {
    for (std::size_t at = text.find(session.uuid); at != std::string::npos;
         at = text.find(session.uuid, at + session.uuid.size())) {
      text.replace(at, session.uuid.size(), upperCase(session.uuid));
    }
  }
  ASSERT_EQ(text.find(reader.sessions().at(0).uuid), std::string::npos);
  std::stringstream respelled(text);
  EXPECT_EQ(importJsonl(respelled, lower, importing).already_held.size(), 2u);
  EXPECT_EQ(testing::queryInt(upper, "SELECT count(*) FROM sessions"), 2);
  EXPECT_EQ(testing::queryInt(lower, "SELECT count(*) FROM sessions"), 2);

  // A session that claims a uuid the archive holds in another spelling is refused.
  SessionInfo clash = testing::testSession("clash");
  clash.uuid = upperCase(ArchiveReader(lower).sessions().at(0).uuid);
  EXPECT_THROW(Recorder(lower, clash, testOptions()), std::exception);
}

}  // namespace
}  // namespace agentvcr::store
