// The whole window over a recorded demo archive, as a person uses it: select a conversation
// and a step, read the panes, search, open a diff, start and stop a replay, export, copy curl;
// a fork of the demo opened beside its recording from the fork point.
// Then a window over an archive mixing MAGMA and A2A conversations: an A2A conversation's
// calls replace the steps in the timeline and the details.

#include <algorithm>
#include <set>
#include <sstream>

#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QStyleOptionViewItem>
#include <QTableView>
#include <QTreeView>
#include <QtTest>

#include "agentvcr/net/http_client.hpp"
#include "agentvcr/net/url.hpp"
#include "agentvcr/services/evaluator.hpp"
#include "agentvcr/services/replay_service.hpp"
#include "agentvcr/store/archive_reader.hpp"
#include "agentvcr/store/export.hpp"
#include "charts/stacked_bar_chart.hpp"
#include "mixed_archive.hpp"
#include "models/a2a_calls_model.hpp"
#include "models/conversations_model.hpp"
#include "models/diff_model.hpp"
#include "models/eval_report_model.hpp"
#include "models/fork_sides.hpp"
#include "models/search_model.hpp"
#include "models/sessions_model.hpp"
#include "models/steps_model.hpp"
#include "viewer_fixture.hpp"
#include "viewer_test_main.hpp"
#include "widgets/a2a_call_details.hpp"
#include "widgets/charts_dock.hpp"
#include "widgets/diff_window.hpp"
#include "widgets/eval_view.hpp"
#include "widgets/json_view.hpp"
#include "widgets/main_window.hpp"
#include "widgets/replay_panel.hpp"
#include "widgets/search_panel.hpp"
#include "widgets/side_by_side_diff.hpp"
#include "widgets/step_details.hpp"

namespace agentvcr {
namespace avt = agentvcr::testing;
using viewer::A2aCallDetails;
using viewer::StepDetails;

class GuiSmokeTest : public QObject {
  Q_OBJECT

 private:
  avt::TempDir temp_;
  std::string db_ = temp_.file("demo.sqlite");
  std::unique_ptr<viewer::MainWindow> window_;

  QString pane(StepDetails::Tab tab) const { return paneOf(*window_, tab); }

  static QString paneOf(const viewer::MainWindow& window, StepDetails::Tab tab) {
    return window.details()->pane(tab)->toPlainText();
  }

 private slots:

  void initTestCase() {
    avt::recordDemoInto(db_, "demo");
    window_ = std::make_unique<viewer::MainWindow>(QString::fromStdString(db_));
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }

  void opensOnTheLatestSession() {
    QCOMPARE(window_->selectedSession(), std::optional<std::int64_t>(1));
    QCOMPARE(window_->conversationsModel()->rowCount(), 7);
  }

  void selectingAConversationAndAStepFillsThePanes() {
    QVERIFY(window_->selectConversation(avt::conversationTitled(db_, "Please press sw7")));
    QVERIFY(window_->stepsModel()->rowCount() >= 2);
    const auto env_step = window_->stepsModel()->at(1).step.id;
    QVERIFY(window_->selectStep(env_step));
    QVERIFY(pane(StepDetails::StepTab).contains("env instruction"));
    QVERIFY(pane(StepDetails::StepTab).contains("<-- failure"));
    QVERIFY(pane(StepDetails::ToolsTab).contains("press_button"));
    QVERIFY(pane(StepDetails::ToolsTab).contains("known_robots"));
    const viewer::SideBySideDiff* memory = window_->details()->memory();
    QCOMPARE(memory->leftPane()->document()->blockCount(),
             memory->rightPane()->document()->blockCount());
    QVERIFY(
        std::any_of(memory->rows().begin(), memory->rows().end(),
                    [](const replay::AlignedLine& r) { return r.kind != replay::RowKind::Same; }));
    QVERIFY(pane(StepDetails::InternalStepsTab).contains("full prompt"));
    QVERIFY(pane(StepDetails::InternalStepsTab).contains("component scripted"));
    QVERIFY(pane(StepDetails::HttpTab).startsWith("POST /v1/responses HTTP/1.1"));
    QVERIFY(pane(StepDetails::HttpTab).contains("── response 200"));
  }

  void aTabIsFilledWhenItIsShownAndShowsTheStepChosenLast() {
    QVERIFY(window_->selectConversation(avt::conversationTitled(db_, "Please press sw7")));
    QVERIFY(window_->stepsModel()->rowCount() >= 2);
    StepDetails& details = *window_->details();
    auto* http = qobject_cast<viewer::TextPane*>(details.widget(StepDetails::HttpTab));
    QVERIFY(http != nullptr);
    // The tab shown is filled as soon as a step is chosen.
    details.setCurrentIndex(StepDetails::HttpTab);
    QVERIFY(window_->selectStep(window_->stepsModel()->at(0).step.id));
    const QString first = http->toPlainText();
    QVERIFY(first.startsWith("POST /v1/responses HTTP/1.1"));
    // Another tab is not laid out while it is hidden...
    details.setCurrentIndex(StepDetails::StepTab);
    http->clear();
    QVERIFY(window_->selectStep(window_->stepsModel()->at(1).step.id));
    QVERIFY(http->toPlainText().isEmpty());
    // ...and shows the step chosen last once it is shown.
    details.setCurrentIndex(StepDetails::HttpTab);
    const QString second = http->toPlainText();
    QVERIFY(second.startsWith("POST /v1/responses HTTP/1.1"));
    QVERIFY(second != first);
    QVERIFY(window_->selectStep(window_->stepsModel()->at(0).step.id));
    QCOMPARE(http->toPlainText(), first);
    details.setCurrentIndex(StepDetails::StepTab);
  }

  void theConversationTitlesHaveTheirRoomAndTheDocksShareTheBottom() {
    window_->resize(1600, 1000);
    QTRY_COMPARE(window_->width(), 1600);
    QTreeView& view = *window_->conversationsView();
    QStyleOptionViewItem option;
    option.initFrom(view.viewport());
    for (int row = 0; row < window_->conversationsModel()->rowCount(); ++row) {
      const QModelIndex title = window_->conversationsModel()->index(row, 0);
      const int needed = view.itemDelegateForIndex(title)->sizeHint(option, title).width();
      QVERIFY2(
          view.visualRect(title).width() >= needed,
          qPrintable(title.data().toString() +
                     QString(": %1 px of %2").arg(view.visualRect(title).width()).arg(needed)));
    }
    // Replay is a tab below, beside Search and Charts, not a column of its own.
    auto* replay = qobject_cast<QDockWidget*>(window_->replayPanel()->parentWidget());
    QVERIFY(replay != nullptr);
    QCOMPARE(window_->dockWidgetArea(replay), Qt::BottomDockWidgetArea);
    QVERIFY(window_->tabifiedDockWidgets(replay).size() >= 2);
  }

  void searchResultsShowSeveralRowsNumberedAsTheTimelineDoes() {
    auto* search = window_->searchPanel();
    search->textField()->setText("please");
    search->run();
    QVERIFY(search->model()->rowCount() >= 6);
    const QTableView& results = *search->results();
    QVERIFY(results.isVisible());
    QVERIFY2(results.viewport()->height() >= 5 * results.rowHeight(0),
             qPrintable(QString("%1 px for rows of %2 px")
                            .arg(results.viewport()->height())
                            .arg(results.rowHeight(0))));

    // Each hit's step is the one the timeline shows under the same number once opened.
    for (int row = 0; row < search->model()->rowCount(); ++row) {
      const QModelIndex hit = search->model()->index(row, viewer::SearchModel::Step);
      emit search->results()->activated(hit);
      const QModelIndex current = window_->stepsView()->currentIndex();
      QVERIFY(current.isValid());
      QCOMPARE(window_->stepsModel()->at(current.row()).step.id, search->model()->hit(row).step_id);
      QCOMPARE(hit.data().toString(), "#" + window_->stepsModel()
                                                ->index(current.row(), viewer::StepsModel::Number)
                                                .data()
                                                .toString()
                                                .trimmed());
      QVERIFY(pane(StepDetails::StepTab).startsWith(hit.data().toString() + " · step id "));
    }
  }

  void theDiffEntrySaysWhatItDiffs() {
    const auto sw1 = avt::conversationTitled(db_, "Please press sw1");
    const auto sw3 = avt::conversationTitled(db_, "Please press sw3");
    QVERIFY(window_->selectConversation(sw1));
    QCOMPARE(window_->diffAction()->text(), QString("Diff selected conversation with…"));
    const QModelIndex other = window_->conversationsModel()->indexOfConversation(sw3);
    window_->conversationsView()->selectionModel()->select(
        other, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(window_->selectedConversations().size(), std::size_t{2});
    QCOMPARE(window_->diffAction()->text(), QString("Diff the two selected conversations"));
    QVERIFY(window_->selectConversation(sw1));
    QCOMPARE(window_->diffAction()->text(), QString("Diff selected conversation with…"));
  }

  void searchShowsAndOpensAStep() {
    auto* search = window_->searchPanel();
    search->textField()->setText("damaged");
    search->run();
    QVERIFY(search->model()->rowCount() > 0);
    QVERIFY(search->message()->text().contains("steps"));
    const QModelIndex first = search->model()->index(0, 0);
    emit search->results()->activated(first);
    QCOMPARE(window_->stepsModel()->conversation(),
             std::optional<std::int64_t>(search->model()->hit(0).conversation_id));
    QVERIFY(window_->stepsView()->currentIndex().isValid());
  }

  void diffOpensSideBySide() {
    const auto sw1 = avt::conversationTitled(db_, "Please press sw1");
    const auto sw3 = avt::conversationTitled(db_, "Please press sw3");
    viewer::DiffWindow* diff = window_->openDiff(sw1, sw3);
    QVERIFY(diff != nullptr);
    QVERIFY(QTest::qWaitForWindowExposed(diff));
    QVERIFY(diff->model()->rowCount() >= 2);
    QVERIFY(!diff->summary()->text().isEmpty());
    QVERIFY(diff->table()->currentIndex().isValid());  // the first divergence is selected
    QVERIFY(window_->openDiff(sw1, 99999) == nullptr);
    diff->close();
  }

  void diffWithEvaluationPairsTheRecordingAndItsRerun() {
    QVERIFY(window_->selectConversation(avt::conversationTitled(db_, "Please press sw1")));
    QVERIFY(window_->diffWithEvaluation() == nullptr);  // this archive was never evaluated
    QVERIFY(window_->statusBar()->currentMessage().contains("no evaluation"));

    // Evaluate a copy of the demo against its own replay, then open the window over it.
    const std::string evaluated = temp_.file("evaluated.sqlite");
    const services::EvalRun run = avt::recordAndEvaluateDemo(evaluated);
    QVERIFY(run.eval_session_id > 1);

    viewer::MainWindow window(QString::fromStdString(evaluated));
    const auto sw1 = avt::conversationTitled(evaluated, "Please press sw1");
    QVERIFY(window.selectSession(1));
    QVERIFY(window.selectConversation(sw1));
    viewer::DiffWindow* diff = window.diffWithEvaluation();
    QVERIFY(diff != nullptr);
    QVERIFY(diff->windowTitle().contains(QString("conversation %1 ").arg(sw1)));
    QVERIFY(diff->summary()->text().startsWith("identical"));
    const int rows = diff->model()->rowCount();
    QVERIFY(rows >= 2);
    diff->close();

    // From the evaluation's side, the same pair opens: recorded left, evaluated right.
    const auto evaluated_conversation =
        store::ArchiveReader(evaluated).evaluationPairs(sw1).back().evaluated_conversation_id;
    QVERIFY(window.selectSession(run.eval_session_id));
    QVERIFY(window.selectConversation(evaluated_conversation));
    diff = window.diffWithEvaluation();
    QVERIFY(diff != nullptr);
    QVERIFY(diff->windowTitle().contains(QString("conversation %1 ").arg(sw1)));
    QCOMPARE(diff->model()->rowCount(), rows);
    diff->close();

    // The evaluation session shows its report in a dock, and its two charts.
    window.show();
    QVERIFY(window.evalView()->isVisible());
    QVERIFY(window.evalView()->figures()->text().contains("100.0%"));
    QVERIFY(window.evalView()->model()->rowCount() > 0);
    QVERIFY(!window.charts()->matchRateChart()->isHidden());
    QVERIFY(window.selectSession(1));  // a recording: neither
    QVERIFY(!window.evalView()->isVisible());
    QVERIFY(window.charts()->matchRateChart()->isHidden());

    // The report's Diff opens the conversation against its recording.
    QVERIFY(window.selectSession(run.eval_session_id));
    QSignalSpy asked(window.evalView(), &viewer::EvalView::diffRequested);
    window.evalView()->requestDiff(0);
    QCOMPARE(asked.count(), 1);
    bool diff_opened = false;
    for (QWidget* widget : QApplication::topLevelWidgets()) {
      if (auto* opened = qobject_cast<viewer::DiffWindow*>(widget); opened && opened->isVisible()) {
        diff_opened = true;
        opened->close();
      }
    }
    QVERIFY(diff_opened);
  }

  void aForkOpensBesideItsRecordingFromTheForkPoint() {
    // The demo played again with its steps from depth 2 on asked of an agent that says "Done"
    // its own way.
    const std::string forked = temp_.file("forked.sqlite");
    avt::copyOfRecordedDemo(forked, "recorded");
    {
      avt::ChangedScriptedAgent live(temp_.file("forked-agent.json"),
                                     {{"button-pressed", "All done: ${arg} is pressed."}});
      services::ReplayServiceConfig config;
      config.db_path = forked;
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
    const store::ArchiveReader reader(forked);
    const store::SessionRow fork = reader.sessions().back();
    QCOMPARE(fork.mode, std::string("fork"));
    std::int64_t live_sw0 = 0;  // "Please press sw3" then "Ok press sw0": forked at the second
    for (const auto& conversation : reader.conversations(fork.id)) {
      if (conversation.title == std::optional<std::string>("Ok press sw0")) {
        live_sw0 = conversation.id;
      }
    }
    QVERIFY(live_sw0 != 0);
    const std::optional<store::ForkOrigin> origin = reader.forkOrigin(live_sw0);
    QVERIFY(origin);
    QCOMPARE(origin->prefix.size(), std::size_t{2});

    viewer::MainWindow window(QString::fromStdString(forked));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // A recorded conversation is no fork: the entry is off, and asked anyway, it says why.
    QVERIFY(window.selectSession(1));
    QVERIFY(window.selectConversation(avt::conversationTitled(forked, "Please press sw3")));
    QVERIFY(!window.forkDiffAction()->isEnabled());
    QVERIFY(window.diffForkWithRecording() == nullptr);
    QVERIFY(window.statusBar()->currentMessage().contains("--fork-at"));

    QVERIFY(window.selectSession(fork.id));
    QVERIFY(window.selectConversation(live_sw0));
    QVERIFY(window.forkDiffAction()->isEnabled());
    // Offered on the timeline's context menu too, where the fork row is.
    QCOMPARE(window.stepsView()->contextMenuPolicy(), Qt::ActionsContextMenu);
    QVERIFY(window.stepsView()->actions().contains(window.forkDiffAction()));
    QCOMPARE(window.stepsModel()->forkRow(), std::optional<int>(2));
    window.forkDiffAction()->trigger();
    viewer::DiffWindow* diff = nullptr;
    for (viewer::DiffWindow* opened : window.findChildren<viewer::DiffWindow*>()) {
      diff = opened->isVisible() ? opened : diff;
    }
    QVERIFY(diff != nullptr);
    QVERIFY(diff->windowTitle().contains(
        QString("conversation %1 as recorded").arg(origin->reasked.conversation_id)));
    QVERIFY(diff->windowTitle().contains(QString("conversation %1,").arg(live_sw0)));

    // Left: the recorded conversation, whole (it does not branch). Right: the same two recorded
    // steps, then the fork's live steps.
    const viewer::DiffModel& model = *diff->model();
    std::vector<std::int64_t> recorded_ids;
    for (const auto& step : reader.steps(origin->reasked.conversation_id)) {
      recorded_ids.push_back(step.id);
    }
    std::vector<std::int64_t> left_ids;
    for (const auto& step : model.leftSteps()) {
      left_ids.push_back(step.step_id);
    }
    QCOMPARE(left_ids, recorded_ids);
    std::vector<std::int64_t> expected_right{origin->prefix[0].id, origin->prefix[1].id};
    for (const auto& step : reader.steps(live_sw0)) {
      expected_right.push_back(step.id);
    }
    std::vector<std::int64_t> right_ids;
    for (const auto& step : model.rightSteps()) {
      right_ids.push_back(step.step_id);
    }
    QCOMPARE(right_ids, expected_right);
    QCOMPARE(model.rightSteps()[2].depth, std::int64_t{2});
    // The rows above the fork point are the same; the reworded "Done" is the first divergence.
    const replay::ConversationDiff& rows = model.diff();
    for (std::size_t row = 0; row < 2; ++row) {
      QVERIFY(rows.rows.at(row).kind == replay::RowKind::Same);
      QCOMPARE(rows.rows.at(row).left, std::optional<std::size_t>(row));
      QCOMPARE(rows.rows.at(row).right, std::optional<std::size_t>(row));
    }
    QVERIFY(rows.first_divergence);
    QVERIFY(*rows.first_divergence >= 2);
    const replay::DiffRow& divergence = rows.rows.at(*rows.first_divergence);
    QVERIFY(divergence.right);
    QVERIFY(replay::decisionText(model.rightSteps().at(*divergence.right)).find("All done: sw0") !=
            std::string::npos);
    diff->close();

    // Every conversation of the fork, each branch of the GEN tree on its own: the left side is
    // the prefix, then the recorded step asked again and its descendants only (found here by
    // their parents), and the rows above the fork point are the same.
    const std::int64_t gen = avt::conversationTitled(forked, "Please move every damaged fruit");
    int gen_branches = 0;
    for (const auto& conversation : reader.conversations(fork.id)) {
      const std::optional<store::ForkOrigin> from = reader.forkOrigin(conversation.id);
      const std::optional<viewer::ForkSides> sides = viewer::forkSides(reader, conversation.id);
      QVERIFY(from && sides);
      QCOMPARE(sides->prefix_steps, from->prefix.size());
      std::vector<std::int64_t> branch;
      for (const auto& step : from->prefix) {
        branch.push_back(step.id);
      }
      std::set<std::int64_t> below{from->reasked.id};
      for (const auto& step : reader.steps(from->reasked.conversation_id)) {
        if (step.id == from->reasked.id ||
            (step.parent_step_id && below.count(*step.parent_step_id) > 0)) {
          below.insert(step.id);
          branch.push_back(step.id);
        }
      }
      std::vector<std::int64_t> left;
      for (const auto& step : sides->recorded) {
        left.push_back(step.step_id);
      }
      QCOMPARE(left, branch);
      const replay::ConversationDiff aligned =
          replay::diffConversations(sides->recorded, sides->forked);
      for (std::size_t row = 0; row < sides->prefix_steps; ++row) {
        QVERIFY(aligned.rows.at(row).kind == replay::RowKind::Same);
      }
      QVERIFY(!aligned.first_divergence || *aligned.first_divergence >= sides->prefix_steps);
      gen_branches += from->reasked.conversation_id == gen ? 1 : 0;
    }
    QVERIFY(gen_branches >= 2);
  }

  void replayStartsServesAndStops() {
    QVERIFY(window_->selectConversation(avt::conversationTitled(db_, "Please press sw1")));
    auto* replay = window_->replayPanel();
    QVERIFY(replay->start());
    QTRY_VERIFY_WITH_TIMEOUT(!replay->address().isEmpty(), 20000);
    auto url = net::parseUrl(replay->address().toStdString());
    QVERIFY(url.has_value());
    net::HttpClient client(url->host, url->port);
    QCOMPARE(client.get("/health").status, 200);
    // Ask the replay the recorded first question of the selected conversation.
    store::ArchiveReader reader(db_);
    const auto step = window_->stepsModel()->at(0).step;
    protocol::Json input = *reader.inputJson(step.id);
    input["id"] = 3;
    protocol::Json request = {{"request_id", "viewer"}, {"inputs", protocol::Json::array({input})}};
    QCOMPARE(client.postJson("/v1/responses", request.dump()).status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(replay->hits(), qlonglong{1}, 10000);
    QVERIFY(replay->statusLabel()->text().contains("1 hits"));
    replay->stop();
    QVERIFY(!replay->running());
  }

  void exportsTheSelectionAsJsonLines() {
    QVERIFY(window_->selectConversation(avt::conversationTitled(db_, "Please press sw3")));
    const QString path = QString::fromStdString(temp_.file("export.jsonl"));
    const std::size_t lines = window_->exportSelection(path);
    QVERIFY(lines >= 1);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> written = file.readAll().trimmed().split('\n');
    QCOMPARE(static_cast<std::size_t>(written.size()), lines);
    QVERIFY(written.front().contains("\"target\":\"/v1/responses\""));
  }

  void copiesTheRequestAsCurl() {
    QVERIFY(window_->selectConversation(avt::conversationTitled(db_, "Please press sw1")));
    const QString command = window_->copyRequestAsCurl();
    QVERIFY(command.startsWith("curl -sS -X 'POST' 'http://127.0.0.1:"));
    QVERIFY(command.contains("/v1/responses'"));
    QVERIFY(command.contains("Please press sw1"));
    QCOMPARE(QApplication::clipboard()->text(), command);

    // Byte for byte what `agentvcr export --format curl` writes for the same exchange, after
    // its comment line.
    const int row = window_->stepsView()->currentIndex().row();
    const std::int64_t exchange_id = window_->stepsModel()->at(row).step.exchange_id;
    std::ostringstream exported;
    QCOMPARE(store::exportCurl(store::ArchiveReader(db_), {exchange_id}, exported), std::size_t{1});
    QVERIFY(exported.str().ends_with("\n" + command.toStdString() + "\n\n"));
  }

  void liveViewPicksUpANewRecording() {
    const int sessions = window_->sessionsModel()->rowCount();
    avt::recordDemoInto(db_, "later");
    window_->refreshIfChanged();
    QCOMPARE(window_->sessionsModel()->rowCount(), sessions + 1);
  }

  void a2aConversationShowsItsCallsInsteadOfSteps() {
    const std::string db = temp_.file("mixed.sqlite");
    const avt::MixedArchive mixed = avt::recordMagmaAndA2a(db);
    viewer::MainWindow window(QString::fromStdString(db));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.conversationsModel()->rowCount(), 3);
    const auto call_pane = [&](A2aCallDetails::Tab tab) {
      return window.callDetails()->pane(tab)->toPlainText();
    };

    QVERIFY(window.selectConversation(mixed.magma_conversation));
    QVERIFY(!window.showingCalls());
    QVERIFY(window.stepsView()->isVisible());
    QCOMPARE(window.stepsModel()->rowCount(), 1);

    QVERIFY(window.selectConversation(mixed.a2a_conversation));
    QVERIFY(window.showingCalls());
    QVERIFY(window.callsView()->isVisible());
    QVERIFY(window.callDetails()->isVisible());
    QVERIFY(!window.stepsView()->isVisible());
    QVERIFY(!window.details()->isVisible());
    QCOMPARE(window.stepsModel()->rowCount(), 0);
    QCOMPARE(window.callsModel()->rowCount(), 4);
    QCOMPARE(window.callsView()->currentIndex().row(), 0);  // the first call, on show at once
    QVERIFY(call_pane(A2aCallDetails::CallTab).contains("method: message/send"));
    QVERIFY(call_pane(A2aCallDetails::CallTab).contains("What is grace?"));
    QVERIFY(call_pane(A2aCallDetails::CallTab).contains("Grace is a free gift."));
    QVERIFY(call_pane(A2aCallDetails::ArtifactsTab).contains("\"artifactId\": \"a-1\""));
    QVERIFY(call_pane(A2aCallDetails::StreamTab).contains("not a streamed call"));
    QVERIFY(call_pane(A2aCallDetails::HttpTab).startsWith("POST /api/v1/a2a HTTP/1.1"));
    QVERIFY(call_pane(A2aCallDetails::HttpTab).contains("── response 200"));
    QVERIFY(!call_pane(A2aCallDetails::HttpTab).contains("sk-viewer-test-secret"));

    QVERIFY(window.selectCall(window.callsModel()->at(1).id));
    QVERIFY(call_pane(A2aCallDetails::CallTab).contains("code -32003: Rate limit exceeded"));
    QVERIFY(call_pane(A2aCallDetails::CallTab).contains("retryAfter: 42 s"));
    QVERIFY(call_pane(A2aCallDetails::HttpTab).contains("── response 429"));

    QVERIFY(window.selectCall(window.callsModel()->at(2).id));
    QVERIFY(call_pane(A2aCallDetails::StreamTab).startsWith("4 events"));
    QVERIFY(call_pane(A2aCallDetails::StreamTab).contains("event 3 · +400.0 ms / +412.0 ms"));
    QVERIFY(call_pane(A2aCallDetails::HttpTab).contains("text/event-stream"));

    QVERIFY(window.selectCall(window.callsModel()->at(3).id));
    QVERIFY(call_pane(A2aCallDetails::CallTab).contains("⚠ A2A v1.0 call"));
    const QString curl = window.copyRequestAsCurl();
    QVERIFY(curl.contains("/api/v1/a2a'"));
    QVERIFY(curl.contains("SendMessage"));

    // Replay, export and diff take the A2A conversation as a selection like any other.
    QCOMPARE(window.selectedConversations(), std::vector<std::int64_t>{mixed.a2a_conversation});
    QCOMPARE(window.exportSelection(QString::fromStdString(temp_.file("a2a.jsonl"))),
             std::size_t{4});
    QVERIFY(window.openDiff(mixed.magma_conversation, mixed.a2a_conversation) == nullptr);

    // A v1.0 conversation shows the same way, its states in the v0.3 words, with no warning.
    QVERIFY(window.selectConversation(mixed.a2a_v10_conversation));
    QVERIFY(window.showingCalls());
    QCOMPARE(window.callsModel()->rowCount(), 3);
    QVERIFY(window.selectCall(window.callsModel()->at(2).id));
    QVERIFY(call_pane(A2aCallDetails::CallTab).contains("method: CancelTask"));
    QVERIFY(call_pane(A2aCallDetails::CallTab).contains("state: canceled (sent as TASK_STATE_"));
    QVERIFY(!call_pane(A2aCallDetails::CallTab).contains("⚠"));
    QVERIFY(call_pane(A2aCallDetails::HttpTab).contains("A2A-Version: 1.0"));

    QVERIFY(window.selectConversation(mixed.magma_conversation));
    QVERIFY(!window.showingCalls());
    QCOMPARE(window.callsModel()->rowCount(), 0);
    QVERIFY(paneOf(window, StepDetails::StepTab).contains("Please press sw1"));
  }

  void searchFindsAndOpensAnA2aCall() {
    const std::string db = temp_.file("mixed-search.sqlite");
    const avt::MixedArchive mixed = avt::recordMagmaAndA2a(db);
    viewer::MainWindow window(QString::fromStdString(db));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.selectConversation(mixed.magma_conversation));

    auto* search = window.searchPanel();
    search->textField()->setText("mercy");
    search->run();
    QCOMPARE(search->model()->rowCount(), 1);
    const store::SearchHit hit = search->model()->hit(0);
    QVERIFY(hit.a2a_call_id != 0);
    QCOMPARE(hit.conversation_id, mixed.a2a_conversation);
    QCOMPARE(hit.field, std::string("a2a_request"));
    const QModelIndex step_cell = search->model()->index(0, viewer::SearchModel::Step);
    // Numbered as the calls timeline numbers its rows, not by the call's id.
    const store::ArchiveReader reader(db);
    const auto calls = reader.a2aCalls(mixed.a2a_conversation);
    const auto place = std::find_if(calls.begin(), calls.end(), [&hit](const auto& call) {
      return call.id == hit.a2a_call_id;
    });
    QVERIFY(place != calls.end());
    QCOMPARE(step_cell.data().toString(), QString("#%1").arg(place - calls.begin() + 1));
    QVERIFY(search->model()
                ->index(0, viewer::SearchModel::Excerpt)
                .data()
                .toString()
                .contains("[mercy]"));

    emit search->results()->activated(step_cell);
    QVERIFY(window.showingCalls());
    QCOMPARE(window.selectedConversations(), std::vector<std::int64_t>{mixed.a2a_conversation});
    const QModelIndex current = window.callsView()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(window.callsModel()->at(current.row()).id, hit.a2a_call_id);
    QVERIFY(window.callDetails()
                ->pane(A2aCallDetails::CallTab)
                ->toPlainText()
                .contains("code -32003: Rate limit exceeded"));
  }

  void cleanupTestCase() { window_.reset(); }
};

AGENTVCR_VIEWER_TEST(GuiSmokeTest, "gui_smoke")

}  // namespace agentvcr

#include "gui_smoke_test.moc"
