// `agentvcr export`, `import` and `merge` on the demo archive, run in-process.

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agentvcr/cli/export_command.hpp"
#include "agentvcr/cli/import_command.hpp"
#include "agentvcr/cli/merge_command.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "demo_archive_fixture.hpp"

namespace agentvcr::testing {
namespace {

using ::testing::HasSubstr;

class ExportCliTest : public DemoArchiveTest {
 protected:
  std::string exportTo(const std::string& db, const std::string& format) {
    cli::ExportCommand command;
    command.db_path = db;
    command.format = format;
    std::ostringstream out;
    EXPECT_EQ(cli::runExport(command, out), cli::kExitOk);
    return out.str();
  }
};

TEST_F(ExportCliTest, ExportImportExportGivesTheSameJsonl) {
  cli::ExportCommand exporter;
  exporter.db_path = db_path_;
  exporter.out_path = temp_.file("demo.jsonl");
  std::ostringstream said;
  ASSERT_EQ(cli::runExport(exporter, said), cli::kExitOk);
  EXPECT_THAT(said.str(), HasSubstr("exported "));

  cli::ImportCommand importer;
  importer.db_path = temp_.file("copy.sqlite");
  importer.in_path = exporter.out_path;
  std::ostringstream imported;
  ASSERT_EQ(cli::runImport(importer, imported), cli::kExitOk);
  EXPECT_THAT(imported.str(), HasSubstr("into 1 session(s): 1"));

  const std::string first = exportTo(db_path_, "jsonl");
  EXPECT_THAT(first, HasSubstr("{\"session\":{\"id\":1,"));
  EXPECT_EQ(first, exportTo(importer.db_path, "jsonl"));
  const auto a = store::ArchiveReader(db_path_).counts();
  const auto b = store::ArchiveReader(importer.db_path).counts();
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.candidates, b.candidates);
  EXPECT_EQ(a.conversations, b.conversations);
}

TEST_F(ExportCliTest, HarAndCurlFormatsAndMerge) {
  const auto har = nlohmann::json::parse(exportTo(db_path_, "har"));
  EXPECT_EQ(har["log"]["version"], "1.2");
  EXPECT_EQ(har["log"]["entries"].size(),
            static_cast<std::size_t>(store::ArchiveReader(db_path_).counts().exchanges));
  EXPECT_THAT(exportTo(db_path_, "curl"), HasSubstr("curl -sS -X 'POST'"));

  // The second copy of the same archive adds nothing, says so, and still succeeds.
  cli::MergeCommand merge;
  merge.out_path = temp_.file("merged.sqlite");
  merge.in_paths = {db_path_, db_path_};
  std::ostringstream out;
  ASSERT_EQ(cli::runMerge(merge, out), cli::kExitOk);
  const store::ArchiveReader demo(db_path_);
  const std::string uuid = demo.sessions().at(0).uuid;
  {
    const store::ArchiveReader merged(merge.out_path);
    ASSERT_EQ(merged.sessions().size(), 1u);
    EXPECT_EQ(merged.sessions()[0].uuid, uuid);
    EXPECT_EQ(merged.counts().exchanges, demo.counts().exchanges);
    EXPECT_EQ(merged.counts().steps, demo.counts().steps);
  }
  EXPECT_THAT(out.str(), HasSubstr("not copied again: session demo (" + uuid.substr(0, 8) + ")"));

  // --as-new copies it again, as a session derived from the first.
  merge.in_paths = {db_path_};
  merge.as_new = true;
  ASSERT_EQ(cli::runMerge(merge, out), cli::kExitOk);
  {
    const store::ArchiveReader merged(merge.out_path);
    ASSERT_EQ(merged.sessions().size(), 2u);
    EXPECT_EQ(merged.sessions()[1].derived_from, uuid);
    EXPECT_EQ(merged.counts().exchanges, 2 * demo.counts().exchanges);
  }

  cli::MergeCommand into_itself;
  into_itself.out_path = db_path_;
  into_itself.in_paths = {db_path_};
  EXPECT_EQ(cli::runMerge(into_itself, out), cli::kExitUsage);
}

}  // namespace
}  // namespace agentvcr::testing
