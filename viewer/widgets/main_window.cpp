#include "widgets/main_window.hpp"

#include <algorithm>
#include <fstream>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <climits>

#include "agentvcr/replay/conversation_diff.hpp"
#include "agentvcr/replay/evaluation_report.hpp"
#include "agentvcr/store/export.hpp"
#include "models/a2a_calls_model.hpp"
#include "models/conversations_model.hpp"
#include "models/fork_sides.hpp"
#include "models/sessions_model.hpp"
#include "models/steps_model.hpp"
#include "models/text_format.hpp"
#include "models/waterfall_model.hpp"
#include "widgets/a2a_call_details.hpp"
#include "widgets/charts_dock.hpp"
#include "widgets/diff_window.hpp"
#include "widgets/eval_view.hpp"
#include "widgets/fitted_rows.hpp"
#include "widgets/fleet_dialog.hpp"
#include "widgets/replay_panel.hpp"
#include "widgets/search_panel.hpp"
#include "widgets/step_details.hpp"
#include "widgets/waterfall_view.hpp"

namespace agentvcr::viewer {
namespace {

/// What the archive holds, from the sessions' own counters: a few rows, so the live view can
/// look once a second without counting big tables.
store::ArchiveCounts countsOf(const std::vector<store::SessionRow>& sessions) {
  store::ArchiveCounts counts;
  counts.sessions = static_cast<std::int64_t>(sessions.size());
  for (const auto& session : sessions) {
    counts.exchanges += session.exchange_count;
    counts.steps += session.step_count;
    counts.candidates += session.candidate_count;
    counts.conversations += session.conversation_count;
  }
  return counts;
}

bool sameCounts(const store::ArchiveCounts& a, const store::ArchiveCounts& b) {
  return a.sessions == b.sessions && a.exchanges == b.exchanges && a.steps == b.steps &&
         a.candidates == b.candidates && a.conversations == b.conversations;
}

/// The window's first size: room for the conversations' titles beside the timeline.
constexpr int kDefaultWidth = 1600;
constexpr int kDefaultHeight = 1000;

template <class View>
void tidy(View* view) {
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setAlternatingRowColors(true);
}

}  // namespace

MainWindow::MainWindow(const QString& db_path, QWidget* parent)
    : QMainWindow(parent),
      db_path_(db_path),
      reader_(std::make_shared<store::ArchiveReader>(db_path.toStdString())),
      sessions_(new SessionsModel(reader_, this)),
      conversations_(new ConversationsModel(reader_, this)),
      steps_(new StepsModel(reader_, this)),
      sessions_view_(new QTableView(this)),
      conversations_view_(new QTreeView(this)),
      steps_view_(new QTableView(this)),
      details_(new StepDetails(this)),
      calls_(new A2aCallsModel(reader_, this)),
      calls_view_(new QTableView(this)),
      call_details_(new A2aCallDetails(this)),
      timeline_stack_(new QStackedWidget(this)),
      details_stack_(new QStackedWidget(this)),
      waterfall_model_(new WaterfallModel(this)),
      waterfall_(new WaterfallView(this)),
      timeline_tabs_(new QTabWidget(this)),
      search_(new SearchPanel(reader_, this)),
      replay_(new ReplayPanel(this)),
      charts_(new ChartsDock(this)),
      eval_view_(new EvalView(this)),
      live_timer_(new QTimer(this)),
      last_counts_(countsOf(reader_->sessions())) {
  setWindowTitle(tr("agentvcr-viewer — %1").arg(db_path));

  sessions_view_->setModel(sessions_);
  tidy(sessions_view_);
  // Several sessions side by side in the charts; the other panes follow the current one.
  sessions_view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  sessions_view_->verticalHeader()->hide();
  sessions_view_->horizontalHeader()->setStretchLastSection(true);

  conversations_view_->setModel(conversations_);
  tidy(conversations_view_);
  conversations_view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  conversations_view_->setUniformRowHeights(true);
  // Every column as wide as what it shows, the title first: a conversation is known by its
  // first instruction. The last column takes what is left over.
  conversations_view_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  conversations_view_->header()->setStretchLastSection(true);

  steps_view_->setModel(steps_);
  tidy(steps_view_);
  steps_view_->setSelectionMode(QAbstractItemView::SingleSelection);
  steps_view_->verticalHeader()->hide();
  steps_view_->setWordWrap(true);
  steps_view_->horizontalHeader()->setSectionResizeMode(StepsModel::Instruction,
                                                        QHeaderView::Stretch);
  steps_view_->horizontalHeader()->setSectionResizeMode(StepsModel::Decision, QHeaderView::Stretch);

  calls_view_->setModel(calls_);
  tidy(calls_view_);
  calls_view_->setSelectionMode(QAbstractItemView::SingleSelection);
  calls_view_->verticalHeader()->hide();
  calls_view_->setWordWrap(true);
  QHeaderView* call_columns = calls_view_->horizontalHeader();
  call_columns->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Texts wrap in columns of their own width: a long answer makes its row taller rather than
  // push the error, skill and task out of sight.
  for (int column : {A2aCallsModel::Question, A2aCallsModel::Answer, A2aCallsModel::Error}) {
    call_columns->setSectionResizeMode(column, QHeaderView::Interactive);
    call_columns->resizeSection(column, 160);
  }
  call_columns->setStretchLastSection(true);

  // One place for the timeline and one for the details: MAGMA steps or A2A calls, whichever
  // the chosen conversation holds.
  timeline_stack_->addWidget(steps_view_);
  timeline_stack_->addWidget(calls_view_);
  details_stack_->addWidget(details_);
  details_stack_->addWidget(call_details_);
  waterfall_->setModel(waterfall_model_);
  timeline_tabs_->addTab(timeline_stack_, tr("Timeline"));
  timeline_tabs_->addTab(waterfall_, tr("Waterfall"));
  timeline_tabs_->setDocumentMode(true);

  auto* left = new QSplitter(Qt::Vertical, this);
  left->addWidget(sessions_view_);
  left->addWidget(conversations_view_);
  left->setStretchFactor(1, 3);
  auto* right = new QSplitter(Qt::Vertical, this);
  right->addWidget(timeline_tabs_);
  right->addWidget(details_stack_);
  right->setSizes({380, 420});
  auto* central = new QSplitter(Qt::Horizontal, this);
  central->addWidget(left);
  central->addWidget(right);
  central->setSizes({kDefaultWidth * 11 / 20, kDefaultWidth * 9 / 20});
  setCentralWidget(central);

  // The docks share one strip below, as tabs: the panes above keep the window's whole width
  // (the conversations' titles, the timeline's texts), and the search results and the
  // evaluation's columns get it too.
  auto* search_dock = new QDockWidget(tr("Search"), this);
  search_dock->setObjectName(QStringLiteral("search"));
  search_dock->setWidget(search_);
  addDockWidget(Qt::BottomDockWidgetArea, search_dock);
  charts_dock_ = new QDockWidget(tr("Charts"), this);
  charts_dock_->setObjectName(QStringLiteral("charts"));
  charts_dock_->setWidget(charts_);
  addDockWidget(Qt::BottomDockWidgetArea, charts_dock_);
  tabifyDockWidget(search_dock, charts_dock_);
  auto* replay_dock = new QDockWidget(tr("Replay"), this);
  replay_dock->setObjectName(QStringLiteral("replay"));
  replay_dock->setWidget(replay_);
  addDockWidget(Qt::BottomDockWidgetArea, replay_dock);
  tabifyDockWidget(charts_dock_, replay_dock);
  replay_->setArchive(db_path);
  eval_dock_ = new QDockWidget(tr("Evaluation"), this);
  eval_dock_->setObjectName(QStringLiteral("evaluation"));
  eval_dock_->setWidget(eval_view_);
  addDockWidget(Qt::BottomDockWidgetArea, eval_dock_);
  tabifyDockWidget(replay_dock, eval_dock_);
  eval_dock_->hide();
  search_dock->raise();
  resizeDocks({search_dock}, {kDefaultHeight / 4}, Qt::Vertical);

  connect(sessions_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { onSessionChosen(current); });
  connect(sessions_view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    charts_->setSessions(reader_, db_path_, selectedSessions());
    showEvaluations();
  });
  connect(conversations_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { onConversationChosen(current); });
  connect(conversations_view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          [this] {
            updateReplaySelection();
            updateDiffAction();
          });
  connect(steps_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { onStepChosen(current); });
  connect(calls_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { onCallChosen(current); });
  new FittedRows(steps_view_);
  new FittedRows(calls_view_);
  connect(steps_, &QAbstractItemModel::modelReset, this, &MainWindow::rebuildWaterfall);
  connect(steps_, &QAbstractItemModel::modelReset, this, [this] {
    if (fork_diff_action_ != nullptr) {
      fork_diff_action_->setEnabled(steps_->forkRow().has_value());
    }
  });
  connect(calls_, &QAbstractItemModel::modelReset, this, &MainWindow::rebuildWaterfall);
  connect(waterfall_, &WaterfallView::barClicked, this, [this](int kind, qlonglong id) {
    static_cast<WaterfallBar::Kind>(kind) == WaterfallBar::Kind::Call ? selectCall(id)
                                                                      : selectStep(id);
  });
  connect(eval_view_, &EvalView::diffRequested, this,
          [this](qlonglong recorded, qlonglong evaluated) { openDiff(recorded, evaluated); });
  connect(search_, &SearchPanel::stepActivated, this,
          [this](qlonglong session, qlonglong conversation, qlonglong step) {
            selectSession(session) && selectConversation(conversation) && selectStep(step);
          });
  connect(search_, &SearchPanel::callActivated, this,
          [this](qlonglong session, qlonglong conversation, qlonglong call) {
            selectSession(session) && selectConversation(conversation) && selectCall(call);
          });

  buildMenus();
  live_timer_->setInterval(1000);
  connect(live_timer_, &QTimer::timeout, this, &MainWindow::refreshIfChanged);
  live_timer_->start();
  statusBar()->showMessage(tr("%1 sessions, %2 exchanges, %3 steps, %4 conversations")
                               .arg(last_counts_.sessions)
                               .arg(last_counts_.exchanges)
                               .arg(last_counts_.steps)
                               .arg(last_counts_.conversations));
  resize(kDefaultWidth, kDefaultHeight);
  if (sessions_->rowCount() > 0) {
    sessions_view_->selectRow(sessions_->rowCount() - 1);  // the latest run
  }
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("Open fleet archive…"), this, [this] { openFleetArchive(); });
  file->addAction(tr("Export selection as JSONL…"), this, &MainWindow::askForExport);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(tr("Copy request as curl"), QKeySequence(tr("Ctrl+Shift+C")), this,
                  [this] { copyRequestAsCurl(); });
  edit->addAction(tr("Find…"), QKeySequence::Find, this,
                  [this] { search_->textField()->setFocus(); });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  live_action_ = view->addAction(tr("Live refresh"));
  live_action_->setCheckable(true);
  live_action_->setChecked(true);
  connect(live_action_, &QAction::toggled, this,
          [this](bool on) { on ? live_timer_->start() : live_timer_->stop(); });

  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  diff_action_ = tools->addAction(QString(), this, &MainWindow::askForDiff);
  updateDiffAction();
  tools->addAction(tr("Diff selected conversation with its evaluation"), QKeySequence(tr("Ctrl+E")),
                   this, [this] { diffWithEvaluation(); });
  fork_diff_action_ =
      tools->addAction(tr("Fork beside its recording, from the fork point"),
                       QKeySequence(tr("Ctrl+Shift+F")), this, [this] { diffForkWithRecording(); });
  fork_diff_action_->setEnabled(steps_->forkRow().has_value());
  // Right-click on the timeline of a fork, its fork row among the others, offers it too.
  steps_view_->setContextMenuPolicy(Qt::ActionsContextMenu);
  steps_view_->addAction(fork_diff_action_);
  tools->addAction(tr("Start replay of the selection"), this, [this] { replay_->start(); });
  tools->addAction(tr("Stop replay"), this, [this] { replay_->stop(); });
}

FleetDialog* MainWindow::fleetDialog(QWidget* parent) {
  auto* dialog = new FleetDialog(
      QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/fleet"),
      parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &FleetDialog::opened, dialog,
          [](const QString& archive, const std::vector<std::int64_t>& sessions) {
            auto* window = new MainWindow(archive);
            window->setAttribute(Qt::WA_DeleteOnClose);
            window->show();
            if (!sessions.empty()) {
              window->selectSession(sessions.front());
            }
          });
  return dialog;
}

FleetDialog* MainWindow::openFleetArchive(const QString& uri) {
  FleetDialog* dialog = fleetDialog(this);
  dialog->show();
  if (!uri.isEmpty()) {
    dialog->setUri(uri);
    dialog->list();
  }
  return dialog;
}

std::optional<std::int64_t> MainWindow::selectedSession() const {
  const QModelIndex current = sessions_view_->currentIndex();
  if (!current.isValid()) {
    return std::nullopt;
  }
  return sessions_->session(current.row()).id;
}

std::vector<std::int64_t> MainWindow::selectedSessions() const {
  std::vector<std::int64_t> ids;
  for (const QModelIndex& index : sessions_view_->selectionModel()->selectedRows()) {
    ids.push_back(sessions_->session(index.row()).id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<std::int64_t> MainWindow::selectedConversations() const {
  std::vector<std::int64_t> ids;
  for (const QModelIndex& index : conversations_view_->selectionModel()->selectedRows()) {
    const std::int64_t id = conversations_->conversationId(index);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      ids.push_back(id);
    }
  }
  return ids;
}

bool MainWindow::showingCalls() const {
  return timeline_stack_->currentWidget() == calls_view_;
}

void MainWindow::showCallsTimeline(bool calls) {
  timeline_stack_->setCurrentWidget(calls ? static_cast<QWidget*>(calls_view_) : steps_view_);
  details_stack_->setCurrentWidget(calls ? static_cast<QWidget*>(call_details_) : details_);
}

void MainWindow::onSessionChosen(const QModelIndex& index) {
  steps_->clear();
  calls_->clear();
  details_->clearStep();
  call_details_->clearCall();
  if (!index.isValid()) {
    return;
  }
  const std::int64_t id = sessions_->session(index.row()).id;
  showEvaluations();
  conversations_->setSession(id);
  search_->setSession(id);
  updateReplaySelection();
}

void MainWindow::showEvaluations() {
  std::vector<std::int64_t> evaluations;
  bool only_evaluations = true;
  for (const QModelIndex& index : sessions_view_->selectionModel()->selectedRows()) {
    const store::SessionRow& session = sessions_->session(index.row());
    if (session.mode == "eval") {
      evaluations.push_back(session.id);
    } else {
      only_evaluations = false;
    }
  }
  std::sort(evaluations.begin(), evaluations.end());
  std::vector<std::int64_t> shown;
  if (evaluations.size() >= 2 && only_evaluations) {
    shown = std::move(evaluations);
  } else if (const auto current = selectedSession()) {
    shown = {*current};
  }
  // Both the current row and the selection change on one click: compute once for what shows.
  if (shown == shown_evaluations_) {
    return;
  }
  shown_evaluations_ = shown;
  if (shown.size() >= 2) {
    showComparison(shown);
  } else if (shown.size() == 1) {
    showEvaluation(shown.front());
  } else {
    charts_->setEvaluationReport(std::nullopt);
    eval_dock_->hide();
  }
}

void MainWindow::showComparison(const std::vector<std::int64_t>& ids) {
  std::optional<replay::EvaluationComparison> comparison;
  try {
    comparison = replay::compareEvaluations(*reader_, ids);
  } catch (const std::exception& error) {
    statusBar()->showMessage(
        tr("Comparing the evaluations failed: %1").arg(QString::fromStdString(error.what())));
    charts_->setEvaluationReport(std::nullopt);
    eval_dock_->hide();
    return;
  }
  // The charts stay on the current session, one of the agents.
  std::optional<replay::EvaluationReport> current;
  for (const replay::EvaluationReport& agent : comparison->agents) {
    if (agent.session_id == selectedSession()) {
      current = agent;
    }
  }
  charts_->setEvaluationReport(current);
  eval_view_->setComparison(std::move(*comparison));
  raiseEvaluation();
}

void MainWindow::showEvaluation(std::int64_t id) {
  std::optional<replay::EvaluationReport> report;
  try {
    report = replay::evaluationReport(*reader_, id);
  } catch (const std::exception& error) {
    statusBar()->showMessage(
        tr("Evaluation report failed: %1").arg(QString::fromStdString(error.what())));
  }
  charts_->setEvaluationReport(report);
  if (!report) {
    eval_dock_->hide();
    return;
  }
  eval_view_->setReport(*report);
  raiseEvaluation();
}

void MainWindow::raiseEvaluation() {
  eval_dock_->show();
  // The dock's tab joins its bar when the window lays itself out, and raising it before that
  // leaves the tab in front where it was: lay out first. A window not shown yet lays its docks
  // out after it shows, so it raises the report then (showEvent).
  layout()->activate();
  eval_dock_->raise();
  raise_evaluation_on_show_ = !isVisible();
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (!raise_evaluation_on_show_) {
    return;
  }
  raise_evaluation_on_show_ = false;
  // The tab bars take their tabs when the layout request the showing posted is handled, which
  // comes before a zero timer.
  QTimer::singleShot(0, eval_dock_, [this] {
    if (!eval_dock_->isHidden()) {
      eval_dock_->raise();
    }
  });
}

void MainWindow::onConversationChosen(const QModelIndex& index) {
  details_->clearStep();
  call_details_->clearCall();
  if (!index.isValid()) {
    steps_->clear();
    calls_->clear();
    return;
  }
  const std::int64_t conversation = conversations_->conversationId(index);
  if (conversations_->isA2a(index)) {
    steps_->clear();
    calls_->setConversation(conversation);
    showCallsTimeline(true);
    if (calls_->rowCount() > 0) {
      calls_view_->selectRow(0);
    }
    return;
  }
  calls_->clear();
  showCallsTimeline(false);
  const auto branch = conversations_->branchSteps(index);
  if (branch.empty()) {
    steps_->setConversation(conversation);
  } else {
    steps_->setSteps(conversation, branch);
  }
  if (steps_->rowCount() > 0) {
    steps_view_->selectRow(0);
  }
}

void MainWindow::onStepChosen(const QModelIndex& index) {
  if (!index.isValid()) {
    details_->clearStep();
    return;
  }
  details_->showStep(steps_->at(index.row()), reader_);
  waterfall_->setCurrent(WaterfallBar::Kind::Step, steps_->at(index.row()).step.id);
}

void MainWindow::onCallChosen(const QModelIndex& index) {
  if (!index.isValid()) {
    call_details_->clearCall();
    return;
  }
  call_details_->showCall(calls_->at(index.row()), *reader_);
  waterfall_->setCurrent(WaterfallBar::Kind::Call, calls_->at(index.row()).id);
}

void MainWindow::showCharts() {
  charts_dock_->show();
  charts_dock_->raise();
  resizeDocks({charts_dock_}, {height() / 2}, Qt::Vertical);
}

void MainWindow::showTimelineTab(int tab) {
  timeline_tabs_->setCurrentIndex(tab);
}

void MainWindow::rebuildWaterfall() {
  if (auto a2a = calls_->conversation()) {
    waterfall_model_->setBars(callBars(calls_->calls(), reader_->exchangesOfConversation(*a2a)));
  } else if (auto conversation = steps_->conversation()) {
    waterfall_model_->setBars(stepBars(steps_->steps(), reader_->timedInternalSteps(*conversation)),
                              steps_);
  } else {
    waterfall_model_->setBars({});
  }
}

void MainWindow::updateReplaySelection() {
  const auto conversations = selectedConversations();
  if (!conversations.empty()) {
    QStringList ids;
    for (auto id : conversations) {
      ids << QString::number(id);
    }
    replay_->setSelection({}, conversations, tr("conversations %1").arg(ids.join(", ")));
  } else if (auto session = selectedSession()) {
    replay_->setSelection({*session}, {}, tr("session %1").arg(*session));
  } else {
    replay_->setSelection({}, {}, tr("nothing"));
  }
}

bool MainWindow::selectSession(std::int64_t session_id) {
  for (int row = 0; row < sessions_->rowCount(); ++row) {
    if (sessions_->session(row).id == session_id) {
      if (selectedSession() != session_id) {
        sessions_view_->selectRow(row);
      }
      return true;
    }
  }
  return false;
}

bool MainWindow::selectConversation(std::int64_t conversation_id) {
  QModelIndex index = conversations_->indexOfConversation(conversation_id);
  // Fetch pages until the conversation is loaded (ids grow with the pages).
  while (!index.isValid() && conversations_->canFetchMore({})) {
    conversations_->fetchMore({});
    index = conversations_->indexOfConversation(conversation_id);
  }
  if (!index.isValid()) {
    return false;
  }
  conversations_view_->setCurrentIndex(index);
  conversations_view_->scrollTo(index);
  return true;
}

bool MainWindow::selectStep(std::int64_t step_id) {
  const int row = steps_->rowOfStep(step_id);
  if (row < 0) {
    return false;
  }
  steps_view_->selectRow(row);
  steps_view_->scrollTo(steps_->index(row, 0));
  return true;
}

bool MainWindow::selectCall(std::int64_t call_id) {
  const int row = calls_->rowOfCall(call_id);
  if (row < 0) {
    return false;
  }
  calls_view_->selectRow(row);
  calls_view_->scrollTo(calls_->index(row, 0));
  return true;
}

DiffWindow* MainWindow::openDiff(std::int64_t left, std::int64_t right, const QString& right_db) {
  try {
    std::optional<store::ArchiveReader> other;
    if (!right_db.isEmpty() && right_db != db_path_) {
      other.emplace(right_db.toStdString());
    }
    const store::ArchiveReader& right_reader = other ? *other : *reader_;
    const auto left_row = reader_->conversation(left);
    const auto right_row = right_reader.conversation(right);
    if (!left_row || !right_row) {
      throw std::runtime_error("no such conversation");
    }
    if (left_row->protocol == "a2a" || right_row->protocol == "a2a") {
      throw std::runtime_error("diff compares MAGMA steps; an A2A conversation has none");
    }
    const QString right_title =
        tr("conversation %1%2")
            .arg(right)
            .arg(other ? tr(" of %1").arg(QFileInfo(right_db).fileName()) : QString());
    return showDiffWindow(tr("conversation %1").arg(left), replay::diffStepsOf(*reader_, left),
                          right_title, replay::diffStepsOf(right_reader, right));
  } catch (const std::exception& error) {
    statusBar()->showMessage(tr("Diff failed: %1").arg(QString::fromStdString(error.what())));
    return nullptr;
  }
}

DiffWindow* MainWindow::showDiffWindow(const QString& left_title,
                                       std::vector<replay::DiffStep> left,
                                       const QString& right_title,
                                       std::vector<replay::DiffStep> right) {
  auto* window = new DiffWindow(left_title, std::move(left), right_title, std::move(right), this);
  window->setAttribute(Qt::WA_DeleteOnClose);
  window->show();
  return window;
}

DiffWindow* MainWindow::diffForkWithRecording() {
  const std::optional<std::int64_t> conversation =
      steps_->forkRow() ? steps_->conversation() : std::nullopt;
  if (!conversation) {
    statusBar()->showMessage(
        tr("Choose a conversation of a fork session (agentvcr replay --fork-at) first"));
    return nullptr;
  }
  std::optional<ForkSides> sides;
  try {
    sides = forkSides(*reader_, *conversation);
  } catch (const std::exception& error) {
    statusBar()->showMessage(tr("Diff failed: %1").arg(QString::fromStdString(error.what())));
    return nullptr;
  }
  if (!sides) {
    statusBar()->showMessage(
        tr("Conversation %1 does not continue a recorded one").arg(*conversation));
    return nullptr;
  }
  const QString left = tr("conversation %1 as recorded").arg(sides->recorded_conversation_id);
  const QString right = tr("conversation %1, live after %2 recorded steps")
                            .arg(*conversation)
                            .arg(sides->prefix_steps);
  return showDiffWindow(left, std::move(sides->recorded), right, std::move(sides->forked));
}

DiffWindow* MainWindow::diffWithEvaluation() {
  const auto selected = selectedConversations();
  if (selected.empty()) {
    statusBar()->showMessage(tr("Select a conversation first"));
    return nullptr;
  }
  std::vector<store::EvaluationPair> pairs;
  try {
    pairs = reader_->evaluationPairs(selected[0]);
  } catch (const std::exception& error) {
    statusBar()->showMessage(tr("Diff failed: %1").arg(QString::fromStdString(error.what())));
    return nullptr;
  }
  if (pairs.empty()) {
    statusBar()->showMessage(
        tr("Conversation %1 has no evaluation: run agentvcr eval on this archive")
            .arg(selected[0]));
    return nullptr;
  }
  // The latest evaluation of a recorded conversation, or what an evaluated one re-asked.
  const store::EvaluationPair& pair = pairs.back();
  return openDiff(pair.recorded_conversation_id, pair.evaluated_conversation_id);
}

void MainWindow::updateDiffAction() {
  if (diff_action_ == nullptr) {
    return;  // the menus come after the first selection
  }
  // What the entry does with the selection as it stands: two selected are diffed together,
  // one is diffed with a conversation asked for.
  const std::size_t selected = selectedConversations().size();
  diff_action_->setText(selected == 2  ? tr("Diff the two selected conversations")
                        : selected > 2 ? tr("Diff the first two selected conversations")
                                       : tr("Diff selected conversation with…"));
}

void MainWindow::askForDiff() {
  const auto selected = selectedConversations();
  if (selected.empty()) {
    statusBar()->showMessage(tr("Select a conversation first"));
    return;
  }
  if (selected.size() >= 2) {
    openDiff(selected[0], selected[1]);
    return;
  }
  const QString other = QFileDialog::getOpenFileName(
      this, tr("Right side: an archive (cancel: this one)"), {}, tr("Archives (*.sqlite *.db)"));
  bool ok = false;
  const qlonglong right = QInputDialog::getInt(this, tr("Diff"), tr("Right conversation id:"),
                                               static_cast<int>(selected[0]), 1, INT_MAX, 1, &ok);
  if (ok) {
    openDiff(selected[0], right, other);
  }
}

std::size_t MainWindow::exportSelection(const QString& path) {
  std::vector<std::int64_t> exchange_ids;
  const auto conversations = selectedConversations();
  if (!conversations.empty()) {
    for (std::int64_t conversation : conversations) {
      for (std::int64_t id : exchangeIdsOf(conversation)) {
        if (std::find(exchange_ids.begin(), exchange_ids.end(), id) == exchange_ids.end()) {
          exchange_ids.push_back(id);
        }
      }
    }
  } else if (auto session = selectedSession()) {
    constexpr std::size_t kPage = 10'000;
    for (std::int64_t offset = 0;; offset += kPage) {
      auto page = reader_->exchanges(*session, offset, kPage);
      for (const auto& row : page) {
        exchange_ids.push_back(row.id);
      }
      if (page.size() < kPage) {
        break;
      }
    }
  }
  std::ofstream out(path.toStdString(), std::ios::binary);
  const std::size_t lines = store::exportJsonl(*reader_, exchange_ids, out);
  statusBar()->showMessage(tr("Exported %1 exchanges to %2").arg(lines).arg(path));
  return lines;
}

std::vector<std::int64_t> MainWindow::exchangeIdsOf(std::int64_t conversation_id) const {
  std::vector<std::int64_t> ids;
  for (const auto& exchange : reader_->exchangesOfConversation(conversation_id)) {
    ids.push_back(exchange.id);
  }
  return ids;
}

void MainWindow::askForExport() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export as JSONL"), QStringLiteral("exchanges.jsonl"), tr("JSON lines (*.jsonl)"));
  if (!path.isEmpty()) {
    exportSelection(path);
  }
}

QString MainWindow::copyRequestAsCurl() {
  const QModelIndex current =
      showingCalls() ? calls_view_->currentIndex() : steps_view_->currentIndex();
  if (!current.isValid()) {
    return {};
  }
  auto exchange = reader_->exchange(showingCalls() ? calls_->at(current.row()).exchange_id
                                                   : steps_->at(current.row()).step.exchange_id);
  if (!exchange) {
    return {};
  }
  // The same command `agentvcr export --format curl` writes for this exchange.
  const auto session = reader_->session(exchange->session_id);
  const QString command =
      QString::fromStdString(store::curlCommand(*exchange, session ? session->upstream : ""));
  QApplication::clipboard()->setText(command);
  statusBar()->showMessage(tr("Copied the request of exchange %1 as curl").arg(exchange->id));
  return command;
}

void MainWindow::refreshIfChanged() {
  const store::ArchiveCounts now = countsOf(reader_->sessions());
  if (sameCounts(now, last_counts_)) {
    return;
  }
  last_counts_ = now;
  sessions_->refresh();
  conversations_->refresh();
  if (conversations_->canFetchMore({})) {
    conversations_->fetchMore({});
  }
  refreshTimeline();
  charts_->refresh();
  statusBar()->showMessage(tr("%1 sessions, %2 exchanges, %3 steps, %4 conversations (live)")
                               .arg(now.sessions)
                               .arg(now.exchanges)
                               .arg(now.steps)
                               .arg(now.conversations));
}

void MainWindow::refreshTimeline() {
  // The open conversation may have grown: read its steps (or calls) again, keeping the chosen
  // one. step_count counts the calls of an A2A conversation.
  if (auto a2a = calls_->conversation()) {
    const QModelIndex current = calls_view_->currentIndex();
    const std::int64_t call = current.isValid() ? calls_->at(current.row()).id : 0;
    if (auto row = reader_->conversation(*a2a); row && row->step_count != calls_->rowCount()) {
      calls_->setConversation(*a2a);
      selectCall(call);
    }
  } else if (auto conversation = steps_->conversation()) {
    const QModelIndex current = steps_view_->currentIndex();
    const std::int64_t step = current.isValid() ? steps_->at(current.row()).step.id : 0;
    if (auto row = reader_->conversation(*conversation);
        row && row->step_count != steps_->rowCount() &&
        conversations_->branchSteps(conversations_view_->currentIndex()).empty()) {
      steps_->setConversation(*conversation);
      selectStep(step);
    }
  }
}

}  // namespace agentvcr::viewer
