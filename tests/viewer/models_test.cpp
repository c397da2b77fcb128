// The viewer's item models over a recorded demo archive (and an archive mixing MAGMA and A2A
// conversations), each checked by QAbstractItemModelTester and by the rows and data it shows.

#include <algorithm>
#include <filesystem>
#include <optional>

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QtTest>
#include <SQLiteCpp/Database.h>

#include "agentvcr/store/identity.hpp"
#include "agentvcr/store/recorder.hpp"
#include "mixed_archive.hpp"
#include "models/a2a_calls_model.hpp"
#include "models/a2a_text.hpp"
#include "models/conversations_model.hpp"
#include "models/diff_model.hpp"
#include "models/fault_style.hpp"
#include "models/search_model.hpp"
#include "models/sessions_model.hpp"
#include "models/steps_model.hpp"
#include "models/text_format.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;
using viewer::A2aCallsModel;
using viewer::ConversationsModel;
using viewer::StepsModel;

class ModelsTest : public QObject {
  Q_OBJECT

 private:
  avt::TempDir temp_;
  std::string db_ = temp_.file("demo.sqlite");
  std::shared_ptr<store::ArchiveReader> reader_;
  std::string mixed_db_ = temp_.file("mixed.sqlite");
  avt::MixedArchive mixed_;
  std::shared_ptr<store::ArchiveReader> mixed_reader_;

  QString cell(QAbstractItemModel& model, int row, int column,
               const QModelIndex& parent = {}) const {
    return model.data(model.index(row, column, parent)).toString();
  }

 private slots:

  void initTestCase() {
    avt::recordDemoInto(db_, "demo");
    reader_ = std::make_shared<store::ArchiveReader>(db_);
    mixed_ = avt::recordMagmaAndA2a(mixed_db_);
    mixed_reader_ = std::make_shared<store::ArchiveReader>(mixed_db_);
  }

  void sessionsShowEachRun() {
    viewer::SessionsModel model(reader_);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(cell(model, 0, viewer::SessionsModel::Name), QString("demo"));
    QCOMPARE(cell(model, 0, viewer::SessionsModel::Mode), QString("record"));
    QCOMPARE(cell(model, 0, viewer::SessionsModel::Agent), QString("agentvcr-scripted-demo 1.0.0"));
    QCOMPARE(cell(model, 0, viewer::SessionsModel::Exchanges), QString("10"));
    QCOMPARE(cell(model, 0, viewer::SessionsModel::Conversations), QString("7"));
    QCOMPARE(model.data(model.index(0, 0), viewer::SessionsModel::SessionIdRole).toLongLong(), 1);
    // Where and by what it was recorded: the node, the short uuid, all of it in the tooltip.
    const store::SessionRow session = reader_->sessions().at(0);
    QCOMPARE(cell(model, 0, viewer::SessionsModel::Node),
             QString::fromStdString(store::localNodeName()));
    QCOMPARE(cell(model, 0, viewer::SessionsModel::Uuid),
             QString::fromStdString(session.uuid.substr(0, 8)));
    const QString tip =
        model.data(model.index(0, viewer::SessionsModel::Uuid), Qt::ToolTipRole).toString();
    QVERIFY(tip.contains(QString::fromStdString(session.uuid)));
    QVERIFY(tip.contains(QString::fromStdString(store::agentvcrVersion())));
  }

  void conversationsAreFetchedLazilyAndForkIntoBranches() {
    ConversationsModel model(reader_);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.canFetchMore({}));
    model.setSession(1);
    // Checked once loaded: the tester fetches what it can, and Qt 6.4's tester runs its checks
    // before it considers a reset finished.
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 7);
    QVERIFY(!model.canFetchMore({}));  // fewer than a page: the first one was the last
    QCOMPARE(cell(model, 0, ConversationsModel::Title), QString("Please press sw1"));
    QCOMPARE(cell(model, 0, ConversationsModel::Robots), QString("panda"));
    QCOMPARE(cell(model, 0, ConversationsModel::Steps), QString("2"));
    QCOMPARE(cell(model, 0, ConversationsModel::Outcome), QString("say"));

    const QModelIndex gen =
        model.indexOfConversation(avt::conversationTitled(db_, "Please move every damaged"));
    QVERIFY(gen.isValid());
    QCOMPARE(model.data(model.index(gen.row(), ConversationsModel::Robots)).toString(),
             QString("arm1, arm2"));
    QVERIFY(model.hasChildren(gen));
    if (model.canFetchMore(gen)) {
      model.fetchMore(gen);  // what a view does when the row is expanded
    }
    QVERIFY(!model.canFetchMore(gen));
    QCOMPARE(model.rowCount(gen), 2);  // one branch per candidate of the first input
    const auto branch = model.branchSteps(model.index(0, 0, gen));
    QCOMPARE(branch.size(), std::size_t{3});
    // A branch names its last step as the timeline numbers it, not by its id.
    StepsModel timeline(reader_);
    timeline.setConversation(model.conversationId(gen));
    const int leaf_row = timeline.rowOfStep(branch.back());
    QCOMPARE(model.data(model.index(0, ConversationsModel::Title, gen)).toString(),
             QString("branch 1 → #%1").arg(leaf_row + 1));
    QCOMPARE(model.conversationId(model.index(1, 0, gen)), model.conversationId(gen));
    QVERIFY(model.data(model.index(0, ConversationsModel::Title, gen))
                .toString()
                .startsWith("branch 1"));

    const QModelIndex chain = model.index(0, 0);
    QVERIFY(!model.canFetchMore(chain));  // a BENCH chain has one branch: nothing below
    QVERIFY(!model.hasChildren(chain));
  }

  void aGenConversationThatNeverForksHasNoArrow() {
    // One input asking two candidates, neither continued: more candidates than steps (what
    // made the row look as if it forked), but a single branch.
    protocol::Exchange ex = avt::mixed::magmaStep();
    protocol::Json request = protocol::Json::parse(ex.request_body);
    request["inputs"][0]["num_outputs"] = 2;
    ex.request_body = request.dump();
    protocol::Json response = protocol::Json::parse(ex.response_body);
    protocol::Json second = response[0];
    second["candidate_index"] = 1;
    second["output"]["say"] = "Done too.";
    response.push_back(second);
    ex.response_body = response.dump();
    const std::string db = temp_.file("gen-unforked.sqlite");
    avt::recordExchanges(db, "gen", {ex});
    auto reader = std::make_shared<store::ArchiveReader>(db);
    const store::ConversationRow conversation = reader->conversations(1).at(0);
    QCOMPARE(conversation.step_count, 1);
    QCOMPARE(conversation.candidate_count, 2);

    ConversationsModel model(reader);
    model.setSession(1);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QModelIndex row = model.index(0, 0);
    QVERIFY(!model.hasChildren(row));  // a view draws no expand arrow
    QVERIFY(!model.canFetchMore(row));
    QCOMPARE(model.rowCount(row), 0);
  }

  void stepsOfAForkShowTheRecordedPrefixOnceThenTheLiveSteps() {
    const std::string db = temp_.file("fork.sqlite");
    avt::recordDemoInto(db, "recorded");
    {
      // The demo played again, its steps from depth 2 on asked of the scripted agent live.
      avt::ScriptedAgentServer live;
      services::ReplayServiceConfig config;
      config.db_path = db;
      config.server.host = "127.0.0.1";
      config.server.port = 0;
      config.replay.on_miss = replay::MissPolicy::Forward;
      config.replay.fork_at = 2;
      config.upstream = *net::parseUrl(live.url());
      config.log_miss = [](const std::string&) {};
      services::ReplayService replay(config);
      replay.start();
      sim::magma::DemoDriver driver(avt::demoPlan());
      avt::drive(driver, replay.endpoint().port);
      replay.stop();
    }
    auto reader = std::make_shared<store::ArchiveReader>(db);
    const store::SessionRow fork = reader->sessions().back();
    QCOMPARE(fork.mode, std::string("fork"));
    int forks = 0;
    for (const auto& conversation : reader->conversations(fork.id)) {
      const std::optional<store::ForkOrigin> origin = reader->forkOrigin(conversation.id);
      QVERIFY(origin);
      StepsModel model(reader);
      QAbstractItemModelTester tester(&model,
                                      QAbstractItemModelTester::FailureReportingMode::QtTest);
      model.setConversation(conversation.id);
      // Rows: the two recorded steps above the fork, once, then every live step two deeper.
      QCOMPARE(model.forkRow(), std::optional<int>(2));
      QCOMPARE(model.at(0).step.id, origin->prefix.at(0).id);
      QCOMPARE(model.at(1).step.id, origin->prefix.at(1).id);
      QCOMPARE(model.at(1).step.depth, std::int64_t{1});
      const auto live = reader->stepOutlines(conversation.id);
      QCOMPARE(model.rowCount(), 2 + static_cast<int>(live.size()));
      for (std::size_t i = 0; i < live.size(); ++i) {
        QCOMPARE(model.at(2 + static_cast<int>(i)).step.id, live[i].id);
        QCOMPARE(model.at(2 + static_cast<int>(i)).step.depth, live[i].depth + 2);
      }
      // The prefix's exchanges are the recording's: their timings are shown too.
      QVERIFY(model.at(0).exchange);
      // The fork row says so where its number is; the prefix's rows do not.
      QVERIFY(model.data(model.index(2, StepsModel::Number), Qt::ToolTipRole)
                  .toString()
                  .startsWith("Fork point"));
      QVERIFY(!model.data(model.index(1, StepsModel::Number), Qt::ToolTipRole).isValid());
      ++forks;
    }
    QVERIFY(forks >= 2);  // the GEN tree's two branches at least
    StepsModel recorded(reader);
    recorded.setConversation(avt::conversationTitled(db, "Please press sw1"));
    QVERIFY(!recorded.forkRow());
  }

  void stepsShowInstructionsDecisionsAndEnvOutcomes() {
    StepsModel model(reader_);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setConversation(avt::conversationTitled(db_, "Please press sw1"));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(cell(model, 0, StepsModel::Instruction), QString("user: Please press sw1"));
    QCOMPARE(cell(model, 0, StepsModel::Decision), QString("panda.press_button(id=\"sw1\")"));
    QCOMPARE(cell(model, 0, StepsModel::Status), QString("completed"));
    QVERIFY(!cell(model, 0, StepsModel::Latency).isEmpty());
    QVERIFY(cell(model, 1, StepsModel::Instruction).startsWith("env: ✓ panda press_button"));
    QCOMPARE(cell(model, 1, StepsModel::Decision), QString("say \"Done, sw1 is pressed.\""));
    QCOMPARE(model.data(model.index(1, 0), StepsModel::EnvFailureRole).toBool(), false);
    QCOMPARE(model.texts(1).instruction_summary,
             viewer::instructionSummary(*reader_->step(model.at(1).step.id)));

    model.setConversation(avt::conversationTitled(db_, "Please press sw7"));
    bool failure_shown = false;
    for (int row = 0; row < model.rowCount(); ++row) {
      if (model.data(model.index(row, 0), StepsModel::EnvFailureRole).toBool()) {
        failure_shown = true;
        QVERIFY(cell(model, row, StepsModel::Instruction).contains("✗"));
        QVERIFY(
            model.data(model.index(row, StepsModel::Instruction), Qt::ForegroundRole).isValid());
      }
    }
    QVERIFY(failure_shown);

    model.setConversation(avt::conversationTitled(db_, "Please self-destruct"));
    QCOMPARE(cell(model, 0, StepsModel::Status), QString("error invalid_output"));
    QVERIFY(cell(model, 0, StepsModel::Decision).startsWith("error invalid_output"));
  }

  void faultedStepsShowTheirFaultInTheirOwnColour() {
    const std::string db = temp_.file("chaos.sqlite");
    avt::recordExchanges(db, "chaos", {avt::mixed::faultedMagmaStep()});
    auto reader = std::make_shared<store::ArchiveReader>(db);
    StepsModel model(reader);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setConversation(reader->conversations(1).at(0).id);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(cell(model, 0, StepsModel::Status), QString("chaos: error"));
    QCOMPARE(model.data(model.index(0, 0), StepsModel::FaultRole).toString(), QString("error"));
    QCOMPARE(model.data(model.index(0, StepsModel::Decision), Qt::BackgroundRole).value<QColor>(),
             viewer::faultBackground());

    StepsModel plain(reader_);
    plain.setConversation(avt::conversationTitled(db_, "Please press sw1"));
    QVERIFY(!plain.data(plain.index(0, 0), Qt::BackgroundRole).isValid());
    QVERIFY(plain.data(plain.index(0, 0), StepsModel::FaultRole).toString().isEmpty());
  }

  void aRowWhoseTextsCannotBeReadSaysSoInsteadOfThrowing() {
    // Texts are read while a view paints: an archive changed under the viewer must not end it.
    avt::TempDir copy_dir;
    const std::string copy = copy_dir.file("copy.sqlite");
    std::filesystem::copy_file(db_, copy);
    auto reader = std::make_shared<store::ArchiveReader>(copy);
    ConversationsModel conversations(reader);
    conversations.setSession(1);
    StepsModel model(reader);
    model.setConversation(conversations.conversationId(conversations.index(0, 0)));
    QVERIFY(model.rowCount() > 0);
    SQLite::Database(copy, SQLite::OPEN_READWRITE).exec("ALTER TABLE candidates RENAME TO gone");

    const QString shown = cell(model, 0, StepsModel::Instruction);
    QVERIFY2(shown.contains("not readable"), qPrintable(shown));
    QCOMPARE(model.texts(0).candidates.size(), std::size_t{0});
    SQLite::Database(copy, SQLite::OPEN_READWRITE).exec("ALTER TABLE gone RENAME TO candidates");
    QVERIFY(!cell(model, 0, StepsModel::Instruction).contains("not readable"));  // read again
  }

  void aConversationLongerThanTheKeptRowsShowsEachRowsOwnTexts() {
    // 700 steps of one BENCH episode: more rows than texts() keeps, read forward, then back
    // (rows read again after they left), then every other row.
    avt::TempDir dir;
    const std::string db = dir.file("long.sqlite");
    constexpr int kSteps = 700;
    std::vector<protocol::Exchange> chain;
    for (int k = 0; k < kSteps; ++k) {
      const std::string said = "step " + std::to_string(k);
      const protocol::Json input = {{"id", 0},
                                    {"instruction", {{"type", "user"}, {"content", said}}},
                                    {"tools", protocol::Json::array()},
                                    {"attributes", protocol::Json::object()},
                                    {"memory", {{"h", k}}},
                                    {"num_outputs", 1},
                                    {"extra_keys", protocol::Json::object()}};
      const protocol::Json output = {
          {"request_id", said},
          {"source_id", 0},
          {"candidate_index", 0},
          {"status", "completed"},
          {"memory", {{"h", k + 1}}},
          {"internal_steps", protocol::Json::array()},
          {"output", {{"say", "ok " + said}, {"tool_calls", protocol::Json::array()}}},
          {"error", nullptr}};
      chain.push_back(avt::mixed::post("/v1/responses", {{"request_id", said}, {"inputs", {input}}},
                                       200, protocol::Json::array({output}).dump(),
                                       avt::mixed::kStartNs + k * avt::mixed::kMs,
                                       avt::mixed::kMs / 2));
    }
    avt::recordExchanges(db, "long", std::move(chain));
    auto reader = std::make_shared<store::ArchiveReader>(db);
    ConversationsModel conversations(reader);
    conversations.setSession(1);
    QCOMPARE(conversations.rowCount(), 1);
    StepsModel model(reader);
    model.setConversation(conversations.conversationId(conversations.index(0, 0)));
    QCOMPARE(model.rowCount(), kSteps);
    auto expectRow = [&](int row) {
      QCOMPARE(cell(model, row, StepsModel::Instruction), QString("user: step %1").arg(row));
      QVERIFY(cell(model, row, StepsModel::Decision).contains(QString("ok step %1").arg(row)));
    };
    for (int row = 0; row < kSteps; ++row) {
      expectRow(row);
    }
    for (int row = kSteps - 1; row >= 0; --row) {
      expectRow(row);
    }
    for (int row = 0; row < kSteps; row += 2) {
      expectRow(row);
    }
  }

  void rowsShowTheTextsOfTheirStepReadWhenInSight() {
    // The timeline keeps an outline per step and reads a row's texts when a view asks for
    // them: each row must show its own step's instruction and candidates (forks, error answers,
    // steps without any, a branch shown alone), however many rows were read before it.
    ConversationsModel conversations(reader_);
    conversations.setSession(1);
    StepsModel model(reader_);
    auto expectRowsShowTheirStep = [&] {
      for (int row = 0; row < model.rowCount(); ++row) {
        const store::StepRow step = *reader_->step(model.at(row).step.id);
        const std::vector<store::CandidateRow> own = reader_->candidates(step.id);
        QCOMPARE(model.texts(row).candidates.size(), own.size());
        for (std::size_t i = 0; i < own.size(); ++i) {
          QCOMPARE(model.texts(row).candidates[i].id, own[i].id);
          QCOMPARE(model.texts(row).candidates[i].status, own[i].status);
        }
        QCOMPARE(cell(model, row, StepsModel::Instruction),
                 QString::fromStdString((step.instruction_type == "env" ? "env: " : "user: ") +
                                        viewer::instructionSummary(step)));
        QCOMPARE(model.data(model.index(row, StepsModel::Instruction), Qt::ToolTipRole).toString(),
                 QString::fromStdString(step.instruction_content));
        const QString decision = cell(model, row, StepsModel::Decision);
        QCOMPARE(model.data(model.index(row, StepsModel::Decision), Qt::ToolTipRole).toString(),
                 decision);
        if (own.empty()) {
          QCOMPARE(decision, QString("(no answer recorded)"));
        } else {
          QVERIFY(decision.contains(QString::fromStdString(viewer::decisionSummary(own[0]))));
        }
        const bool error = std::any_of(own.begin(), own.end(), [](const auto& candidate) {
          return candidate.status == "error";
        });
        QCOMPARE(cell(model, row, StepsModel::Status).contains("error"), error);
        QCOMPARE(model.data(model.index(row, StepsModel::Status), Qt::ForegroundRole).isValid(),
                 error);
      }
    };
    std::size_t candidates_shown = 0;
    for (int row = 0; row < conversations.rowCount(); ++row) {
      model.setConversation(conversations.conversationId(conversations.index(row, 0)));
      expectRowsShowTheirStep();
      for (int step = 0; step < model.rowCount(); ++step) {
        candidates_shown += model.texts(step).candidates.size();
      }
    }
    QCOMPARE(static_cast<std::int64_t>(candidates_shown),
             reader_->sessions().at(0).candidate_count);

    const QModelIndex gen = conversations.indexOfConversation(
        avt::conversationTitled(db_, "Please move every damaged"));
    if (conversations.canFetchMore(gen)) {
      conversations.fetchMore(gen);
    }
    const auto branch = conversations.branchSteps(conversations.index(1, 0, gen));
    model.setSteps(conversations.conversationId(gen), branch);
    QCOMPARE(static_cast<std::size_t>(model.rowCount()), branch.size());
    for (std::size_t row = 0; row < branch.size(); ++row) {
      QCOMPARE(model.at(static_cast<int>(row)).step.id, branch[row]);
    }
    expectRowsShowTheirStep();
  }

  void aBranchKeepsTheNumbersItsStepsHaveInTheConversation() {
    const std::int64_t gen = avt::conversationTitled(db_, "Please move every damaged");
    StepsModel whole(reader_);
    whole.setConversation(gen);
    ConversationsModel conversations(reader_);
    conversations.setSession(1);
    const QModelIndex row = conversations.indexOfConversation(gen);
    conversations.fetchMore(row);
    // The second branch leaves out the first branch's steps: its rows are not its numbers.
    const auto branch = conversations.branchSteps(conversations.index(1, 0, row));
    StepsModel part(reader_);
    part.setSteps(gen, branch);
    QCOMPARE(part.rowCount(), static_cast<int>(branch.size()));
    bool skipped = false;
    for (int r = 0; r < part.rowCount(); ++r) {
      const int in_whole = whole.rowOfStep(part.at(r).step.id);
      QCOMPARE(cell(part, r, StepsModel::Number).trimmed(),
               cell(whole, in_whole, StepsModel::Number).trimmed());
      QCOMPARE(part.at(r).number, in_whole + 1);
      skipped = skipped || in_whole != r;
    }
    QVERIFY(skipped);
  }

  void genBranchesIndentByDepth() {
    StepsModel model(reader_);
    model.setConversation(avt::conversationTitled(db_, "Please move every damaged"));
    QCOMPARE(model.rowCount(), 5);  // root, then two continuations of two steps each
    QCOMPARE(model.data(model.index(0, 0), StepsModel::DepthRole).toLongLong(), 0);
    QVERIFY(model.data(model.index(1, 0), StepsModel::DepthRole).toLongLong() > 0);
    QVERIFY(cell(model, 0, StepsModel::Decision).startsWith("[0] "));
    QVERIFY(cell(model, 0, StepsModel::Decision).contains("\n[1] "));
  }

  void searchFindsTextAndFilters() {
    viewer::SearchModel model(reader_);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    store::SearchQuery query;
    query.text = "sw7";
    model.search(query);
    QVERIFY(model.rowCount() > 0);
    const auto sw7 = avt::conversationTitled(db_, "Please press sw7");
    for (int row = 0; row < model.rowCount(); ++row) {
      QCOMPARE(model.hit(row).conversation_id, sw7);
    }
    QVERIFY(cell(model, 0, viewer::SearchModel::Excerpt).contains("[sw7]"));
    // Each hit names its step as the timeline does ("#2"), never by the step's id.
    StepsModel timeline(reader_);
    timeline.setConversation(sw7);
    bool id_differs = false;
    for (int row = 0; row < model.rowCount(); ++row) {
      const int timeline_row = timeline.rowOfStep(model.hit(row).step_id);
      QVERIFY(timeline_row >= 0);
      QCOMPARE(cell(model, row, viewer::SearchModel::Step),
               "#" + cell(timeline, timeline_row, StepsModel::Number).trimmed());
      id_differs = id_differs || model.hit(row).step_id != timeline_row + 1;
      QVERIFY(model.data(model.index(row, viewer::SearchModel::Step), Qt::ToolTipRole)
                  .toString()
                  .contains(QString("step id %1").arg(model.hit(row).step_id)));
    }
    QVERIFY(id_differs);  // the demo's sw7 steps have ids far from their numbers

    store::SearchQuery by_tool;
    by_tool.tool = "deplace";
    model.search(by_tool);
    QVERIFY(model.rowCount() > 0);
    const auto sort = avt::conversationTitled(db_, "Please move every damaged");
    for (int row = 0; row < model.rowCount(); ++row) {
      QCOMPARE(model.hit(row).conversation_id, sort);
    }

    store::SearchQuery errors;
    errors.error_code = "invalid_output";
    model.search(errors);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.hit(0).conversation_id, avt::conversationTitled(db_, "Please self-destruct"));

    store::SearchQuery nothing;
    nothing.text = "\"unbalanced AND (";
    QSignalSpy failed(&model, &viewer::SearchModel::failed);
    model.search(nothing);
    QCOMPARE(failed.count(), 0);  // hostile text is searched for, never a syntax error
    QCOMPARE(model.rowCount(), 0);
  }

  void diffAlignsStepsAndShowsWhereTheyDiverge() {
    viewer::DiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto sw1 = avt::conversationTitled(db_, "Please press sw1");
    const auto last = avt::conversationTitled(db_, "Please press the last button");
    model.setConversations(replay::diffStepsOf(*reader_, sw1), replay::diffStepsOf(*reader_, sw1));
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(!model.diff().first_divergence);
    QVERIFY(model.summary().startsWith("identical"));
    // A step is numbered as the timeline numbers it, "#2", its id after: never "#" and the id.
    StepsModel timeline(reader_);
    timeline.setConversation(sw1);
    QCOMPARE(cell(model, 1, viewer::DiffModel::LeftStep),
             QString("#2 (id %1)").arg(timeline.at(1).step.id));
    QVERIFY(timeline.at(1).step.id != 2);

    model.setConversations(replay::diffStepsOf(*reader_, sw1), replay::diffStepsOf(*reader_, last));
    QVERIFY(model.diff().first_divergence);
    QCOMPARE(*model.diff().first_divergence, std::size_t{0});
    QVERIFY(model.data(model.index(0, 0), Qt::BackgroundRole).isValid());
    QVERIFY(cell(model, 0, viewer::DiffModel::Differences).contains("/input/instruction/content"));
    QVERIFY(!model.summary().isEmpty());
  }

  void liveRefreshShowsNewSessionsAndConversations() {
    avt::TempDir temp;
    const std::string db = temp.file("live.sqlite");
    avt::recordDemoInto(db, "first");
    auto reader = std::make_shared<store::ArchiveReader>(db);
    viewer::SessionsModel sessions(reader);
    ConversationsModel conversations(reader);
    conversations.setSession(1);
    QAbstractItemModelTester tester(&conversations,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(sessions.rowCount(), 1);
    QSignalSpy inserted(&sessions, &QAbstractItemModel::rowsInserted);

    avt::recordDemoInto(db, "second");  // another recorder writes the same file
    sessions.refresh();
    QCOMPARE(sessions.rowCount(), 2);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(cell(sessions, 1, viewer::SessionsModel::Name), QString("second"));
    conversations.refresh();
    QCOMPARE(conversations.rowCount(), 7);  // session 1 did not grow
  }

  void aSessionShowsWhetherItsRecorderRuns() {
    avt::TempDir temp;
    const std::string db = temp.file("states.sqlite");
    avt::recordDemoInto(db, "killed");
    // What a killed recorder leaves: no end, and no process holding the session's lock.
    SQLite::Database(db, SQLite::OPEN_READWRITE).exec("UPDATE sessions SET ended_ns = NULL");
    avt::recordDemoInto(db, "ended");
    store::SessionInfo session;
    session.name = "running";
    session.mode = "record";
    store::Recorder running(db, session);
    viewer::SessionsModel sessions(std::make_shared<store::ArchiveReader>(db));
    QCOMPARE(sessions.rowCount(), 3);
    QCOMPARE(cell(sessions, 0, viewer::SessionsModel::Duration), QString("interrupted"));
    QVERIFY(cell(sessions, 1, viewer::SessionsModel::Duration).endsWith("s"));
    QCOMPARE(cell(sessions, 2, viewer::SessionsModel::Duration), QString("running"));
    running.close();
    sessions.refresh();
    QVERIFY(cell(sessions, 2, viewer::SessionsModel::Duration).endsWith("s"));
  }

  void a2aConversationsShowNextToMagmaOnes() {
    ConversationsModel model(mixed_reader_);
    model.setSession(1);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 3);
    const QModelIndex magma = model.indexOfConversation(mixed_.magma_conversation);
    const QModelIndex a2a = model.indexOfConversation(mixed_.a2a_conversation);
    QVERIFY(magma.isValid() && a2a.isValid());
    QVERIFY(!model.isA2a(magma));
    QVERIFY(model.isA2a(a2a));
    QCOMPARE(cell(model, magma.row(), ConversationsModel::Protocol), QString("MAGMA"));
    QCOMPARE(cell(model, magma.row(), ConversationsModel::Title), QString("Please press sw1"));
    QCOMPARE(cell(model, magma.row(), ConversationsModel::Robots), QString("panda"));
    QCOMPARE(cell(model, a2a.row(), ConversationsModel::Protocol), QString("A2A"));
    QVERIFY(model.data(model.index(a2a.row(), ConversationsModel::Protocol), Qt::BackgroundRole)
                .isValid());
    QCOMPARE(cell(model, a2a.row(), ConversationsModel::Title), QString("What is grace?"));
    QCOMPARE(cell(model, a2a.row(), ConversationsModel::Robots), QString());
    QCOMPARE(cell(model, a2a.row(), ConversationsModel::Steps), QString("4"));  // calls
    // The last call (a v1.0 SendMessage) got an error; two of the four did.
    QCOMPARE(cell(model, a2a.row(), ConversationsModel::Outcome), QString("error · 2 call errors"));
    QVERIFY(model.data(model.index(a2a.row(), ConversationsModel::Outcome), Qt::ForegroundRole)
                .isValid());
    QVERIFY(model.data(a2a, Qt::ToolTipRole).toString().contains("context c-1"));
    QVERIFY(!model.hasChildren(a2a));  // no GEN branches below calls
    QVERIFY(!model.canFetchMore(a2a));

    // A v1.0 conversation ends in the same words as a v0.3 one, and canceled is no failure.
    const QModelIndex v10 = model.indexOfConversation(mixed_.a2a_v10_conversation);
    QVERIFY(v10.isValid());
    QCOMPARE(cell(model, v10.row(), ConversationsModel::Title), QString("Plan a parish retreat"));
    QCOMPARE(cell(model, v10.row(), ConversationsModel::Steps), QString("3"));
    QCOMPARE(cell(model, v10.row(), ConversationsModel::Outcome), QString("canceled"));
    QVERIFY(!model.data(model.index(v10.row(), ConversationsModel::Outcome), Qt::ForegroundRole)
                 .isValid());
  }

  void a2aCallsOfAForkShowTheRecordedPrefixOnceThenTheLiveCalls() {
    const std::string db = temp_.file("a2a-fork.sqlite");
    avt::recordA2aContextInto(db);
    avt::forkA2aContextAt2(db);
    auto reader = std::make_shared<store::ArchiveReader>(db);
    const store::SessionRow fork = reader->sessions().back();
    QCOMPARE(fork.mode, std::string("fork"));
    const auto contexts = reader->conversations(fork.id);
    QCOMPARE(contexts.size(), std::size_t{1});
    const std::optional<store::A2aForkOrigin> origin = reader->a2aForkOrigin(contexts[0].id);
    QVERIFY(origin);
    A2aCallsModel model(reader);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setConversation(contexts[0].id);
    // Rows: the two recorded questions above the fork, once, then the two live calls.
    QCOMPARE(model.forkRow(), std::optional<int>(2));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.at(0).id, origin->prefix.at(0).id);
    QCOMPARE(model.at(1).id, origin->prefix.at(1).id);
    QCOMPARE(cell(model, 0, A2aCallsModel::Answer), QString("answer: What is grace?"));
    const auto live = reader->a2aCalls(contexts[0].id);
    QCOMPARE(live.size(), std::size_t{2});
    QCOMPARE(model.at(2).id, live[0].id);
    QCOMPARE(model.at(3).id, live[1].id);
    QCOMPARE(cell(model, 2, A2aCallsModel::Method), QString("tasks/get"));
    QCOMPARE(cell(model, 2, A2aCallsModel::Answer), QString("changed:from get"));
    QCOMPARE(model.rowOfCall(live[1].id), 3);
    // The first live call says where the fork is, in its cell and its tool tip; no other does.
    QVERIFY(cell(model, 2, A2aCallsModel::Time).startsWith("fork at call 3 ▶ "));
    QVERIFY(model.data(model.index(2, A2aCallsModel::Time), Qt::ToolTipRole)
                .toString()
                .startsWith("Fork at call 3"));
    QVERIFY(!cell(model, 1, A2aCallsModel::Time).contains("fork"));
    QVERIFY(!cell(model, 3, A2aCallsModel::Time).contains("fork"));
    // The recorded context itself is no fork: its four calls, unmarked.
    model.setConversation(*origin->reasked.conversation_id);
    QVERIFY(!model.forkRow());
    QCOMPARE(model.rowCount(), 4);
  }

  void a2aCallsShowOneRowPerCall() {
    A2aCallsModel model(mixed_reader_);
    model.setConversation(mixed_.a2a_conversation);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int{A2aCallsModel::ColumnCount});

    QCOMPARE(cell(model, 0, A2aCallsModel::Time), QString("14:20:01.000"));
    QCOMPARE(cell(model, 0, A2aCallsModel::Method), QString("message/send"));
    QCOMPARE(cell(model, 0, A2aCallsModel::Wire), QString("0.3"));
    QCOMPARE(cell(model, 0, A2aCallsModel::Skill), QString("catholic_qa"));
    QCOMPARE(cell(model, 0, A2aCallsModel::Task), QString("t-1"));
    QCOMPARE(cell(model, 0, A2aCallsModel::State), QString("completed"));
    QCOMPARE(cell(model, 0, A2aCallsModel::Latency), QString("850.0 ms"));
    QCOMPARE(cell(model, 0, A2aCallsModel::Error), QString());
    QCOMPARE(cell(model, 0, A2aCallsModel::Question), QString("What is grace?"));
    QCOMPARE(cell(model, 0, A2aCallsModel::Answer), QString("Grace is a free gift."));
    QCOMPARE(model.data(model.index(0, 0), A2aCallsModel::FailedRole).toBool(), false);
    QVERIFY(!model.data(model.index(0, A2aCallsModel::State), Qt::ForegroundRole).isValid());
    QVERIFY(!model.data(model.index(0, A2aCallsModel::Wire), Qt::BackgroundRole).isValid());

    // Rate limited: red, with the code, the message and retryAfter.
    QCOMPARE(cell(model, 1, A2aCallsModel::State), QString("error"));
    QCOMPARE(cell(model, 1, A2aCallsModel::Error),
             QString("-32003 Rate limit exceeded (retry after 42 s)"));
    QCOMPARE(cell(model, 1, A2aCallsModel::Question), QString("And mercy?"));
    QCOMPARE(model.data(model.index(1, 0), A2aCallsModel::FailedRole).toBool(), true);
    for (int column : {int{A2aCallsModel::State}, int{A2aCallsModel::Error}}) {
      QCOMPARE(model.data(model.index(1, column), Qt::ForegroundRole).value<QColor>(),
               QColor(Qt::darkRed));
    }

    // Streamed: the events are counted and the final state is the last event's.
    QCOMPARE(cell(model, 2, A2aCallsModel::Method), QString("message/stream"));
    QVERIFY(model.data(model.index(2, A2aCallsModel::Method), Qt::ToolTipRole)
                .toString()
                .contains("stream of 4 events"));
    QCOMPARE(cell(model, 2, A2aCallsModel::Task), QString("t-3"));
    QCOMPARE(cell(model, 2, A2aCallsModel::State), QString("completed"));
    QCOMPARE(cell(model, 2, A2aCallsModel::Answer), QString("Hope looks ahead."));

    // A v1.0 SendMessage to a v0.3 agent: flagged, and the tooltip says why.
    QCOMPARE(cell(model, 3, A2aCallsModel::Method), QString("SendMessage"));
    QCOMPARE(cell(model, 3, A2aCallsModel::Wire), QString("1.0 ⚠"));
    QCOMPARE(model.data(model.index(3, 0), A2aCallsModel::WireV10Role).toBool(), true);
    QCOMPARE(model.data(model.index(0, 0), A2aCallsModel::WireV10Role).toBool(), false);
    QVERIFY(model.data(model.index(3, A2aCallsModel::Wire), Qt::BackgroundRole).isValid());
    QVERIFY(model.data(model.index(3, A2aCallsModel::Wire), Qt::ToolTipRole)
                .toString()
                .contains("it speaks v0.3"));
    QCOMPARE(cell(model, 3, A2aCallsModel::Error), QString("-32601 Method not found"));

    const qlonglong third = model.data(model.index(2, 0), A2aCallsModel::CallIdRole).toLongLong();
    QCOMPARE(model.rowOfCall(third), 2);
    QCOMPARE(model.rowOfCall(99999), -1);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.conversation());
  }

  // What a v1.0 agent answered reads as a v0.3 agent's would: no warning, the states in the
  // v0.3 words, the wire spelling one tooltip away.
  void a2aV10CallsReadLikeV03Ones() {
    A2aCallsModel model(mixed_reader_);
    model.setConversation(mixed_.a2a_v10_conversation);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 3);
    const QString methods[] = {"SendMessage", "GetTask", "CancelTask"};
    const QString states[] = {"input-required", "input-required", "canceled"};
    const QString sent[] = {"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_INPUT_REQUIRED",
                            "TASK_STATE_CANCELED"};
    for (int row = 0; row < 3; ++row) {
      QCOMPARE(cell(model, row, A2aCallsModel::Method), methods[row]);
      QCOMPARE(cell(model, row, A2aCallsModel::Wire), QString("1.0"));
      QCOMPARE(model.data(model.index(row, 0), A2aCallsModel::WireV10Role).toBool(), true);
      QVERIFY(!model.data(model.index(row, A2aCallsModel::Wire), Qt::BackgroundRole).isValid());
      QCOMPARE(model.data(model.index(row, A2aCallsModel::Wire), Qt::ToolTipRole).toString(),
               QString("A2A v1.0 wire"));
      QCOMPARE(cell(model, row, A2aCallsModel::State), states[row]);
      QCOMPARE(model.data(model.index(row, A2aCallsModel::State), Qt::ToolTipRole).toString(),
               "sent as " + sent[row]);
      QCOMPARE(model.data(model.index(row, 0), A2aCallsModel::FailedRole).toBool(), false);
      QVERIFY(!model.data(model.index(row, A2aCallsModel::State), Qt::ForegroundRole).isValid());
      QCOMPARE(cell(model, row, A2aCallsModel::Task), QString("t-10"));
      QCOMPARE(cell(model, row, A2aCallsModel::Error), QString());
      QCOMPARE(cell(model, row, A2aCallsModel::Answer), QString("For how many days?"));
    }
    QCOMPARE(cell(model, 0, A2aCallsModel::Question), QString("Plan a parish retreat"));

    const auto calls = mixed_reader_->a2aCalls(mixed_.a2a_v10_conversation);
    QCOMPARE(calls.size(), std::size_t{3});
    const QString sent_message = QString::fromStdString(viewer::callText(calls[0]));
    QVERIFY(sent_message.contains("wire v1.0"));
    QVERIFY(!sent_message.contains("⚠"));
    QVERIFY(sent_message.contains(
        "state: input-required (sent as TASK_STATE_INPUT_REQUIRED; result: task)"));
    QVERIFY(QString::fromStdString(viewer::callText(calls[2]))
                .contains("state: canceled (sent as TASK_STATE_CANCELED; result: task)"));
  }

  // The rules on rows made by hand, for what the recorded conversations do not hold.
  void a2aFailureAndWarningFollowTheNormalStateAndTheAgentsRefusal() {
    store::A2aCallRow call;
    call.wire_version = "1.0";
    call.method = "SendMessage";
    call.status = 200;
    call.task_state = "TASK_STATE_FAILED";
    call.task_state_norm = "failed";
    QVERIFY(viewer::callFailed(call));
    QCOMPARE(viewer::callStateText(call), std::string("failed"));
    call.task_state = "TASK_STATE_REJECTED";
    call.task_state_norm = "rejected";
    QVERIFY(viewer::callFailed(call));
    call.task_state = "TASK_STATE_COMPLETED";
    call.task_state_norm = "completed";
    QVERIFY(!viewer::callFailed(call));
    // A state outside both vocabularies reads as the agent sent it, not as "unknown".
    call.task_state = "paused";
    call.task_state_norm = "unknown";
    QCOMPARE(viewer::callStateText(call), std::string("paused"));

    QCOMPARE(viewer::wireWarning(call), std::string());
    call.error_code = -32001;  // task not found: the agent understood the v1.0 call
    QCOMPARE(viewer::wireWarning(call), std::string());
    call.error_code = -32009;
    QVERIFY(viewer::wireWarning(call).find("-32009 (version not supported)") != std::string::npos);
    call.error_code = -32601;
    QVERIFY(viewer::wireWarning(call).find("it speaks v0.3") != std::string::npos);
    call.wire_version = "0.3";
    call.method = "message/send";  // unknown to this agent: no version to blame
    QCOMPARE(viewer::wireWarning(call), std::string());
  }

  void a2aDetailsTextsShowErrorsArtifactsAndStreamTimes() {
    const auto calls = mixed_reader_->a2aCalls(mixed_.a2a_conversation);
    QCOMPARE(calls.size(), std::size_t{4});

    const QString completed = QString::fromStdString(viewer::callText(calls[0]));
    QVERIFY(completed.contains("── user text\nWhat is grace?"));
    QVERIFY(completed.contains("── answer text\nGrace is a free gift."));
    QVERIFY(completed.contains("state: completed (result: task)"));
    const QString artifacts = QString::fromStdString(viewer::artifactsText(calls[0]));
    QVERIFY(artifacts.contains("\"artifactId\": \"a-1\""));
    QVERIFY(artifacts.contains("history:"));
    QVERIFY(artifacts.contains("\"messageId\": \"m-1\""));

    const QString limited = QString::fromStdString(viewer::callText(calls[1]));
    QVERIFY(limited.contains("code -32003: Rate limit exceeded"));
    QVERIFY(limited.contains("retryAfter: 42 s"));
    QVERIFY(limited.contains("\"retryAfter\": 42"));  // the data, pretty-printed

    const auto events = mixed_reader_->streamEvents(calls[2].exchange_id);
    QCOMPARE(events.size(), std::size_t{4});
    const QString stream = QString::fromStdString(viewer::streamEventsText(calls[2], events));
    QVERIFY(stream.startsWith("4 events over 400.0 ms"));
    QVERIFY(stream.contains("event 0 · +0.0 ms / +12.0 ms"));
    QVERIFY(stream.contains("event 3 · +400.0 ms / +412.0 ms"));
    QVERIFY(stream.contains("\"kind\": \"artifact-update\""));
    QVERIFY(
        QString::fromStdString(viewer::streamEventsText(calls[0], {})).contains("not a streamed"));

    const QString v10 = QString::fromStdString(viewer::callText(calls[3]));
    QVERIFY(v10.contains("wire v1.0"));
    QVERIFY(v10.contains("⚠ A2A v1.0 call (method SendMessage)"));
  }

  void textFormatting() {
    QCOMPARE(QString::fromStdString(viewer::durationText(850000)), QString("850 µs"));
    QCOMPARE(QString::fromStdString(viewer::durationText(12345678)), QString("12.3 ms"));
    QCOMPARE(QString::fromStdString(viewer::durationText(4210000000)), QString("4.21 s"));
    QCOMPARE(QString::fromStdString(viewer::durationText(192000000000)), QString("3 min 12 s"));
    QCOMPARE(QString::fromStdString(viewer::oneLine("a \n\t b", 80)), QString("a b"));
    QCOMPARE(QString::fromStdString(viewer::oneLine("héllo wörld", 5)), QString("héllo…"));
    QCOMPARE(QString::fromStdString(viewer::clockText(avt::mixed::kStartNs + 7 * avt::mixed::kMs)),
             QString("14:20:00.007"));
    QCOMPARE(QString::fromStdString(viewer::offsetMsText(12 * avt::mixed::kMs)),
             QString("+12.0 ms"));
  }

  void theHttpTextShowsBodiesInTheOrderSent() {
    store::ExchangeRow exchange;
    exchange.method = "POST";
    exchange.target = "/v1/responses";
    exchange.status = 200;
    exchange.outcome = "complete";
    // Keys out of order and one twice, escapes and a number no double holds: indented, never
    // re-sorted, collapsed or respelled.
    exchange.request_body =
        R"({"request_id":"r-1","inputs":[{"id":123456789012345678901234567890,"zeta":"\u00e9","alpha":1,"alpha":2}]})";
    exchange.response_body = "not json {";
    const QString text = QString::fromStdString(viewer::exchangeText(exchange));
    QVERIFY2(text.contains("{\n"
                           "  \"request_id\": \"r-1\",\n"
                           "  \"inputs\": [\n"
                           "    {\n"
                           "      \"id\": 123456789012345678901234567890,\n"
                           "      \"zeta\": \"\\u00e9\",\n"
                           "      \"alpha\": 1,\n"
                           "      \"alpha\": 2\n"
                           "    }\n"
                           "  ]\n"
                           "}"),
             qPrintable(text));
    QVERIFY(text.contains("\nnot json {\n"));  // what is not JSON shows as it came
  }
};

AGENTVCR_VIEWER_TEST(ModelsTest, "models")

}  // namespace agentvcr

#include "models_test.moc"
