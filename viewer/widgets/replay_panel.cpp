#include "widgets/replay_panel.hpp"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>

namespace agentvcr::viewer {

ReplayPanel::ReplayPanel(QWidget* parent)
    : QWidget(parent),
      process_(new QProcess(this)),
      poll_(new QTimer(this)),
      network_(new QNetworkAccessManager(this)),
      selection_(new QLabel(tr("Nothing selected"), this)),
      status_(new QLabel(tr("Not running"), this)),
      pace_(new QComboBox(this)),
      factor_(new QDoubleSpinBox(this)),
      start_(new QPushButton(tr("Start replay"), this)),
      stop_(new QPushButton(tr("Stop"), this)) {
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // The item data is what `agentvcr replay --pace` takes; "factor" stands for the spin's value.
  pace_->addItem(tr("Fast: answer at once"), QStringLiteral("fast"));
  pace_->addItem(tr("As recorded: wait the agent's think time"), QStringLiteral("recorded"));
  pace_->addItem(tr("Scaled: the recorded times multiplied by"), QStringLiteral("factor"));
  factor_->setRange(0.01, 100);
  factor_->setDecimals(2);
  factor_->setSingleStep(0.25);
  factor_->setValue(0.5);
  factor_->setToolTip(tr("0.5 answers twice as fast as the recorded agent"));
  auto* pace = new QHBoxLayout;
  pace->addWidget(new QLabel(tr("Pace:"), this));
  pace->addWidget(pace_);
  pace->addWidget(factor_);
  pace->addStretch(1);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(start_);
  buttons->addWidget(stop_);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(selection_);
  layout->addLayout(pace);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addStretch(1);

  poll_->setInterval(250);
  process_->setProcessChannelMode(QProcess::ForwardedErrorChannel);
  connect(pace_, &QComboBox::currentIndexChanged, this, &ReplayPanel::showState);
  connect(start_, &QPushButton::clicked, this, &ReplayPanel::start);
  connect(stop_, &QPushButton::clicked, this, &ReplayPanel::stop);
  connect(poll_, &QTimer::timeout, this, [this] {
    if (address_.isEmpty()) {
      pollReady();
    } else {
      pollCounters();
    }
  });
  connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
    poll_->stop();
    address_.clear();
    status_->setText(
        tr("Stopped (exit status %1) after %2 hits, %3 misses").arg(code).arg(hits_).arg(misses_));
    showState();
  });
  showState();
}

ReplayPanel::~ReplayPanel() {
  stop();
}

QString ReplayPanel::agentvcrProgram() {
  const QString configured = qEnvironmentVariable("AGENTVCR");
  if (!configured.isEmpty()) {
    return configured;
  }
  const QDir here(QCoreApplication::applicationDirPath());
  for (const QString& candidate : {here.filePath("agentvcr"), here.filePath("../cli/agentvcr")}) {
    if (QFileInfo(candidate).isExecutable()) {
      return QFileInfo(candidate).canonicalFilePath();
    }
  }
  const QString on_path = QStandardPaths::findExecutable("agentvcr");
  return on_path.isEmpty() ? QStringLiteral("agentvcr") : on_path;
}

void ReplayPanel::setArchive(const QString& db_path) {
  db_path_ = db_path;
}

void ReplayPanel::setSelection(std::vector<std::int64_t> sessions,
                               std::vector<std::int64_t> conversations,
                               const QString& description) {
  sessions_ = std::move(sessions);
  conversations_ = std::move(conversations);
  description_ = description;
  selection_->setText(tr("Selection: %1").arg(description));
  showState();
}

bool ReplayPanel::running() const {
  return process_->state() != QProcess::NotRunning;
}

bool ReplayPanel::start() {
  if (running() || db_path_.isEmpty() || (sessions_.empty() && conversations_.empty())) {
    return false;
  }
  QFile::remove(ready_dir_.filePath(QStringLiteral("replay.url")));
  hits_ = 0;
  misses_ = 0;
  address_.clear();
  process_->start(agentvcrProgram(), replayArguments());
  if (!process_->waitForStarted(5000)) {
    status_->setText(tr("Could not start %1: %2").arg(agentvcrProgram(), process_->errorString()));
    return false;
  }
  status_->setText(tr("Starting…"));
  poll_->start();
  showState();
  return true;
}

QStringList ReplayPanel::replayArguments() const {
  QStringList args = {QStringLiteral("replay"),
                      QStringLiteral("--db"),
                      db_path_,
                      QStringLiteral("--listen"),
                      QStringLiteral("127.0.0.1:0"),
                      QStringLiteral("--ready-file"),
                      ready_dir_.filePath(QStringLiteral("replay.url"))};
  for (std::int64_t id : sessions_) {
    args << QStringLiteral("--session") << QString::number(id);
  }
  for (std::int64_t id : conversations_) {
    args << QStringLiteral("--conversation") << QString::number(id);
  }
  const QString pace = pace_->currentData().toString();
  args << QStringLiteral("--pace")
       << (pace == QStringLiteral("factor") ? QString::number(factor_->value()) : pace);
  return args;
}

void ReplayPanel::stop() {
  if (!running()) {
    return;
  }
  process_->terminate();  // SIGTERM: replay commits what it recorded and exits
  if (!process_->waitForFinished(5000)) {
    process_->kill();
    process_->waitForFinished(1000);
  }
}

void ReplayPanel::pollReady() {
  QFile file(ready_dir_.filePath(QStringLiteral("replay.url")));
  if (!file.open(QIODevice::ReadOnly)) {
    return;
  }
  address_ = QString::fromUtf8(file.readAll()).trimmed();
  status_->setText(tr("Listening on %1: 0 hits, 0 misses").arg(address_));
  emit addressChanged(address_);
  showState();
}

void ReplayPanel::pollCounters() {
  QNetworkReply* reply =
      network_->get(QNetworkRequest(QUrl(address_ + QStringLiteral("/_agentvcr/replay"))));
  connect(reply, &QNetworkReply::finished, this, [this, reply] {
    reply->deleteLater();
    if (reply->error() != QNetworkReply::NoError || address_.isEmpty()) {
      return;
    }
    const QJsonObject counters = QJsonDocument::fromJson(reply->readAll()).object();
    const qlonglong hits = counters.value(QStringLiteral("hits")).toInteger();
    const qlonglong misses = counters.value(QStringLiteral("misses")).toInteger();
    if (hits != hits_ || misses != misses_) {
      hits_ = hits;
      misses_ = misses;
      emit countersChanged(hits_, misses_);
    }
    status_->setText(
        tr("Listening on %1: %2 hits, %3 misses").arg(address_).arg(hits_).arg(misses_));
  });
}

void ReplayPanel::showState() {
  const bool has_selection = !sessions_.empty() || !conversations_.empty();
  start_->setEnabled(!running() && has_selection && !db_path_.isEmpty());
  stop_->setEnabled(running());
  // A running replay keeps the pace it started with.
  pace_->setEnabled(!running());
  factor_->setEnabled(!running() && pace_->currentData().toString() == QStringLiteral("factor"));
}

}  // namespace agentvcr::viewer
