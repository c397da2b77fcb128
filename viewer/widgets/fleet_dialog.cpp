#include "widgets/fleet_dialog.hpp"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "agentvcr/fleet/fleet_reads.hpp"
#include "agentvcr/fleet/pg_connection.hpp"
#include "agentvcr/fleet/uri_secrets.hpp"
#include "models/fleet_cache.hpp"
#include "models/sessions_model.hpp"

namespace agentvcr::viewer {
namespace {

/// What a background job hands back to the GUI thread: a value or the error's message.
template <class Value>
struct Outcome {
  Value value{};
  QString error;
};

/// Runs `work` on the thread pool and `done` with its Outcome on `owner`'s thread, unless
/// `owner` is gone by then.
template <class Value, class Work, class Done>
void runInBackground(QObject* owner, Work work, Done done) {
  auto* watcher = new QFutureWatcher<Outcome<Value>>(owner);
  QObject::connect(watcher, &QFutureWatcher<Outcome<Value>>::finished, owner,
                   [watcher, done = std::move(done)] {
                     done(watcher->result());
                     watcher->deleteLater();
                   });
  watcher->setFuture(QtConcurrent::run([work = std::move(work)]() {
    Outcome<Value> outcome;
    try {
      outcome.value = work();
    } catch (const std::exception& error) {
      // The last guard before the window shows it: no connection string's password.
      outcome.error = QString::fromStdString(fleet::withoutPasswords(error.what()));
    }
    return outcome;
  }));
}

}  // namespace

FleetDialog::FleetDialog(QString cache_dir, QWidget* parent)
    : QDialog(parent),
      cache_dir_(std::move(cache_dir)),
      uri_(new QLineEdit(this)),
      list_button_(new QPushButton(tr("List sessions"), this)),
      open_button_(new QPushButton(tr("Open selected"), this)),
      view_(new QTableView(this)),
      status_(new QLabel(this)) {
  setWindowTitle(tr("Open fleet archive"));
  uri_->setPlaceholderText(QStringLiteral("postgresql://reader@db.example/agentvcr"));
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setStretchLastSection(true);
  view_->setAlternatingRowColors(true);
  open_button_->setEnabled(false);
  status_->setWordWrap(true);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(open_button_, QDialogButtonBox::AcceptRole);
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  row->addWidget(uri_, 1);
  row->addWidget(list_button_);
  layout->addLayout(row);
  layout->addWidget(view_, 1);
  layout->addWidget(status_);
  layout->addWidget(buttons);

  connect(list_button_, &QPushButton::clicked, this, &FleetDialog::list);
  connect(uri_, &QLineEdit::returnPressed, this, &FleetDialog::list);
  connect(open_button_, &QPushButton::clicked, this, &FleetDialog::openSelected);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(view_, &QTableView::doubleClicked, this, &FleetDialog::openSelected);
  resize(1000, 560);
}

void FleetDialog::setUri(const QString& uri) {
  uri_->setText(uri);
}

void FleetDialog::setBusy(bool busy, const QString& message) {
  list_button_->setEnabled(!busy);
  open_button_->setEnabled(!busy && sessions_ != nullptr && sessions_->rowCount() > 0);
  status_->setText(message);
}

void FleetDialog::list() {
  const std::string uri = uri_->text().trimmed().toStdString();
  if (!fleet::isPostgresUri(uri)) {
    status_->setText(tr("Not a PostgreSQL URI: postgresql://user@host/database"));
    emit failed(status_->text());
    return;
  }
  setBusy(true,
          tr("Listing the sessions of %1…").arg(QString::fromStdString(fleet::redactedUri(uri))));
  runInBackground<std::vector<store::SessionRow>>(
      this, [uri] { return fleet::fleetSessions(uri); },
      [this](Outcome<std::vector<store::SessionRow>> outcome) {
        if (!outcome.error.isEmpty()) {
          setBusy(false, outcome.error);
          emit failed(outcome.error);
          return;
        }
        auto* model = new SessionsModel(std::move(outcome.value), this);
        view_->setModel(model);
        view_->hideColumn(SessionsModel::Id);  // 0 everywhere: the uuid names fleet sessions
        view_->resizeColumnsToContents();
        delete sessions_;
        sessions_ = model;
        setBusy(false, tr("%1 sessions; choose some and open them").arg(model->rowCount()));
        emit listed(model->rowCount());
      });
}

void FleetDialog::openSelected() {
  if (sessions_ == nullptr || view_->selectionModel() == nullptr) {
    return;
  }
  std::vector<store::SessionRow> chosen;
  for (const QModelIndex& index : view_->selectionModel()->selectedRows()) {
    chosen.push_back(sessions_->session(index.row()));
  }
  if (chosen.empty()) {
    status_->setText(tr("Choose the sessions to open first"));
    return;
  }
  auto cache =
      std::make_shared<FleetCache>(cache_dir_.toStdString(), uri_->text().trimmed().toStdString());
  const std::size_t to_pull = cache->missing(chosen).size();
  setBusy(true, tr("Pulling %1 of %2 sessions into %3…")
                    .arg(to_pull)
                    .arg(chosen.size())
                    .arg(QString::fromStdString(cache->path())));
  auto* progress = new QProgressDialog(tr("Pulling sessions from the fleet archive…"), QString(), 0,
                                       static_cast<int>(std::max<std::size_t>(to_pull, 1)), this);
  progress->setWindowModality(Qt::WindowModal);
  progress->setMinimumDuration(300);
  runInBackground<std::vector<std::int64_t>>(
      this,
      [cache, chosen, progress = QPointer<QProgressDialog>(progress)] {
        return cache->open(chosen, [progress](std::size_t done, std::size_t) {
          // Queued to the application's thread, which outlives every dialog; the pointer is
          // only looked at there, where the dialog may have been closed and deleted meanwhile.
          QMetaObject::invokeMethod(
              QCoreApplication::instance(),
              [progress, done] {
                if (progress) {
                  progress->setValue(static_cast<int>(done));
                }
              },
              Qt::QueuedConnection);
        });
      },
      [this, cache, progress](Outcome<std::vector<std::int64_t>> outcome) {
        progress->deleteLater();
        if (!outcome.error.isEmpty()) {
          setBusy(false, outcome.error);
          emit failed(outcome.error);
          return;
        }
        setBusy(false, tr("Opened %1 sessions from %2")
                           .arg(outcome.value.size())
                           .arg(QString::fromStdString(cache->path())));
        emit opened(QString::fromStdString(cache->path()), outcome.value);
      });
}

}  // namespace agentvcr::viewer
