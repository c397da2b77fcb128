#pragma once

#include <cstdint>
#include <vector>

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace agentvcr::viewer {

class SessionsModel;

/// File → Open fleet archive…: a PostgreSQL URI, the fleet's sessions listed from it (node,
/// agent, time span, counts), and the chosen ones pulled into a local cache archive (FleetCache)
/// with progress. The database work runs off the GUI thread: a dead or slow server leaves the
/// window responsive, and its error is shown, never thrown.
class FleetDialog : public QDialog {
  Q_OBJECT

 public:
  /// `cache_dir`: where the cache archives live.
  explicit FleetDialog(QString cache_dir, QWidget* parent = nullptr);

  void setUri(const QString& uri);

  /// Lists the fleet's sessions in the background; emits listed() or failed().
  void list();
  /// Pulls the selected sessions (those not cached yet) in the background; emits opened() or
  /// failed().
  void openSelected();

  SessionsModel* sessionsModel() const { return sessions_; }

  QTableView* sessionsView() const { return view_; }

  QLabel* status() const { return status_; }

 signals:
  void listed(int sessions);
  /// The cache archive and the local ids of the sessions chosen, in the list's order.
  void opened(const QString& archive, const std::vector<std::int64_t>& sessions);
  void failed(const QString& message);

 private:
  void setBusy(bool busy, const QString& message);

  QString cache_dir_;
  QLineEdit* uri_;
  QPushButton* list_button_;
  QPushButton* open_button_;
  QTableView* view_;
  QLabel* status_;
  SessionsModel* sessions_ = nullptr;
};

}  // namespace agentvcr::viewer
