#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <QMainWindow>

#include "agentvcr/replay/conversation_diff.hpp"
#include "agentvcr/store/archive_reader.hpp"

class QStackedWidget;
class QTableView;
class QTreeView;
class QTabWidget;
class QTimer;
class QAction;
class QDockWidget;

namespace agentvcr::viewer {

class A2aCallDetails;
class A2aCallsModel;
class ChartsDock;
class ConversationsModel;
class DiffWindow;
class EvalView;
class FleetDialog;
class ReplayPanel;
class SearchPanel;
class SessionsModel;
class StepDetails;
class StepsModel;
class WaterfallModel;
class WaterfallView;

/// The viewer's main window over one archive: sessions, then the conversations of the chosen
/// session, then the timeline of the chosen conversation or branch (MAGMA steps, or the calls
/// of an A2A conversation), then the chosen step's or call's details. Search, charts, replay
/// and, for an evaluation session, its report share the bottom as tabs. While the archive grows
/// (an `agentvcr record` writing it), the window refreshes once a second.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  /// Throws std::runtime_error when the archive cannot be opened.
  explicit MainWindow(const QString& db_path, QWidget* parent = nullptr);
  ~MainWindow() override;

  bool selectSession(std::int64_t session_id);
  bool selectConversation(std::int64_t conversation_id);
  bool selectStep(std::int64_t step_id);
  /// Selects a call of the A2A conversation on show.
  bool selectCall(std::int64_t call_id);
  /// Opens a diff of `left` (this archive) against `right` in `right_db` (this archive when
  /// empty). Returns the window, owned by this one; nullptr (and a message) on failure.
  DiffWindow* openDiff(std::int64_t left, std::int64_t right, const QString& right_db = {});
  /// Opens a diff of the selected conversation as recorded (left) against its latest
  /// `agentvcr eval` run (right), found through the evaluation's step links; for a
  /// conversation of an evaluation, the recorded one it re-asked is on the left. nullptr (and
  /// a message) when the conversation was never evaluated.
  DiffWindow* diffWithEvaluation();
  /// Opens the conversation on show in the timeline, a fork's (`replay --fork-at`), beside the
  /// recorded conversation it continues: the shared prefix, then the recorded continuation on
  /// the left and the live one on the right. nullptr (and a message) for any other
  /// conversation.
  DiffWindow* diffForkWithRecording();
  /// Writes the selected conversations' exchanges (or the session's) as JSONL; returns lines.
  std::size_t exportSelection(const QString& path);
  /// The selected step's (or A2A call's) request as a curl command (also put on the
  /// clipboard).
  QString copyRequestAsCurl();
  /// File → Open fleet archive…: the dialog (owned by this window), its URI set to `uri` and
  /// listed when given. Sessions it opens show in a new window over the local cache archive.
  FleetDialog* openFleetArchive(const QString& uri = {});
  /// The dialog of openFleetArchive() without a window behind it (`agentvcr-viewer
  /// postgresql://...`): deleted on close, each opening in a new window.
  static FleetDialog* fleetDialog(QWidget* parent);
  /// Reads the archive again when it changed since the last look (the live view's tick).
  void refreshIfChanged();

  std::optional<std::int64_t> selectedSession() const;
  std::vector<std::int64_t> selectedConversations() const;

  SessionsModel* sessionsModel() const { return sessions_; }

  ConversationsModel* conversationsModel() const { return conversations_; }

  StepsModel* stepsModel() const { return steps_; }

  QTableView* sessionsView() const { return sessions_view_; }

  QTreeView* conversationsView() const { return conversations_view_; }

  QTableView* stepsView() const { return steps_view_; }

  StepDetails* details() const { return details_; }

  A2aCallsModel* callsModel() const { return calls_; }

  QTableView* callsView() const { return calls_view_; }

  A2aCallDetails* callDetails() const { return call_details_; }

  /// True while the timeline shows the calls of an A2A conversation (not MAGMA steps).
  bool showingCalls() const;

  SearchPanel* searchPanel() const { return search_; }

  ReplayPanel* replayPanel() const { return replay_; }

  QTimer* liveTimer() const { return live_timer_; }

  ChartsDock* charts() const { return charts_; }

  /// The report of the chosen evaluation session, or the comparison of the selected ones when
  /// two or more evaluation sessions (and nothing else) are selected: a dock shown only then.
  EvalView* evalView() const { return eval_view_; }

  /// Brings the charts' dock to the front of its tabs.
  void showCharts();

  /// The sessions selected in the sessions list (the charts show them all).
  std::vector<std::int64_t> selectedSessions() const;

  WaterfallModel* waterfallModel() const { return waterfall_model_; }

  WaterfallView* waterfall() const { return waterfall_; }

  /// Shows the timeline as a table (0) or as the waterfall (1).
  void showTimelineTab(int tab);

  /// Tools → Diff: its text says what it diffs, one selected conversation with another or the
  /// two selected.
  QAction* diffAction() const { return diff_action_; }

  /// Tools → the fork beside its recording (diffForkWithRecording), also in the timeline's
  /// context menu; enabled while the timeline shows a fork's conversation.
  QAction* forkDiffAction() const { return fork_diff_action_; }

 protected:
  /// Brings the evaluation's report to the front when the window opened on an evaluation.
  void showEvent(QShowEvent* event) override;

 private:
  void buildMenus();
  void onSessionChosen(const QModelIndex& index);
  /// What the selected sessions make of the Evaluation dock: the comparison of two or more
  /// evaluation sessions, else the report of the current session when it is an evaluation.
  /// Recomputed only when that changes.
  void showEvaluations();
  /// Shows the evaluation report of session `id` when it is one, and hides it otherwise.
  void showEvaluation(std::int64_t id);
  /// Shows the comparison of evaluation sessions `ids` (in id order: agent 1 first).
  void showComparison(const std::vector<std::int64_t>& ids);
  /// Shows the Evaluation dock in front of its tabs.
  void raiseEvaluation();
  /// A diff window of these two sides, shown, owned by this one.
  DiffWindow* showDiffWindow(const QString& left_title, std::vector<replay::DiffStep> left,
                             const QString& right_title, std::vector<replay::DiffStep> right);
  void onConversationChosen(const QModelIndex& index);
  void onStepChosen(const QModelIndex& index);
  void onCallChosen(const QModelIndex& index);
  void showCallsTimeline(bool calls);
  void refreshTimeline();
  /// The waterfall of what the timeline holds (steps or calls), read again.
  void rebuildWaterfall();
  std::vector<std::int64_t> exchangeIdsOf(std::int64_t conversation_id) const;
  void updateReplaySelection();
  void updateDiffAction();
  void askForDiff();
  void askForExport();

  QString db_path_;
  std::shared_ptr<store::ArchiveReader> reader_;
  SessionsModel* sessions_;
  ConversationsModel* conversations_;
  StepsModel* steps_;
  QTableView* sessions_view_;
  QTreeView* conversations_view_;
  QTableView* steps_view_;
  StepDetails* details_;
  A2aCallsModel* calls_;
  QTableView* calls_view_;
  A2aCallDetails* call_details_;
  QStackedWidget* timeline_stack_;  ///< steps_view_ or calls_view_
  QStackedWidget* details_stack_;   ///< details_ or call_details_
  WaterfallModel* waterfall_model_;
  WaterfallView* waterfall_;
  QTabWidget* timeline_tabs_;  ///< timeline_stack_ and waterfall_
  SearchPanel* search_;
  ReplayPanel* replay_;
  ChartsDock* charts_;
  QDockWidget* charts_dock_;
  EvalView* eval_view_;
  QDockWidget* eval_dock_;
  QTimer* live_timer_;
  QAction* live_action_ = nullptr;
  QAction* diff_action_ = nullptr;
  QAction* fork_diff_action_ = nullptr;
  /// The sessions the Evaluation dock was last computed for (showEvaluations).
  std::vector<std::int64_t> shown_evaluations_;
  bool raise_evaluation_on_show_ = false;  ///< showEvaluation() came before the first show
  store::ArchiveCounts last_counts_;
};

}  // namespace agentvcr::viewer
