#pragma once

#include <cstdint>
#include <vector>

#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QNetworkAccessManager;
class QProcess;
class QPushButton;
class QTimer;

namespace agentvcr::viewer {

/// Starts `agentvcr replay` on what is selected (a session or conversations) at the chosen pace
/// (fast, as recorded, or scaled by a factor), shows the address it listens on and its hits and
/// misses live (from its /_agentvcr/replay route), and stops it.
class ReplayPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ReplayPanel(QWidget* parent = nullptr);
  ~ReplayPanel() override;

  void setArchive(const QString& db_path);
  void setSelection(std::vector<std::int64_t> sessions, std::vector<std::int64_t> conversations,
                    const QString& description);

  /// Starts a replay of the selection; false (and a message) when it cannot.
  bool start();
  void stop();
  bool running() const;

  /// The `agentvcr replay` arguments start() runs with: the archive, the selection, the pace.
  QStringList replayArguments() const;

  QString address() const { return address_; }

  qlonglong hits() const { return hits_; }

  qlonglong misses() const { return misses_; }

  QLabel* statusLabel() const { return status_; }

  /// The pace choice (fast, recorded, factor) and the factor it uses when scaled.
  QComboBox* paceChoice() const { return pace_; }

  QDoubleSpinBox* paceFactor() const { return factor_; }

  /// The agentvcr binary: $AGENTVCR, else next to this program, else in the build tree's
  /// proxy/ folder, else `agentvcr` on PATH.
  static QString agentvcrProgram();

 signals:
  void addressChanged(const QString& address);
  void countersChanged(qlonglong hits, qlonglong misses);

 private:
  void pollReady();
  void pollCounters();
  void showState();

  QString db_path_;
  std::vector<std::int64_t> sessions_;
  std::vector<std::int64_t> conversations_;
  QString description_;
  QProcess* process_;
  QTimer* poll_;
  QNetworkAccessManager* network_;
  QLabel* selection_;
  QLabel* status_;
  QComboBox* pace_;
  QDoubleSpinBox* factor_;
  QPushButton* start_;
  QPushButton* stop_;
  QTemporaryDir ready_dir_;
  QString address_;
  qlonglong hits_ = 0;
  qlonglong misses_ = 0;
};

}  // namespace agentvcr::viewer
