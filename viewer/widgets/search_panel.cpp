#include "widgets/search_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include "models/search_model.hpp"

namespace agentvcr::viewer {
namespace {

std::optional<std::string> optionalText(const QLineEdit* field) {
  const QString text = field->text().trimmed();
  return text.isEmpty() ? std::nullopt : std::optional<std::string>(text.toStdString());
}

}  // namespace

SearchPanel::SearchPanel(std::shared_ptr<store::ArchiveReader> reader, QWidget* parent)
    : QWidget(parent),
      model_(new SearchModel(std::move(reader), this)),
      text_(new QLineEdit(this)),
      tool_(new QLineEdit(this)),
      robot_(new QLineEdit(this)),
      status_(new QComboBox(this)),
      error_code_(new QLineEdit(this)),
      min_latency_ms_(new QSpinBox(this)),
      this_session_(new QCheckBox(tr("this session only"), this)),
      message_(new QLabel(this)),
      results_(new QTableView(this)) {
  text_->setPlaceholderText(
      tr("words in instructions, says, env feedback, prompts, A2A messages (prefix*)"));
  tool_->setPlaceholderText(tr("tool name"));
  robot_->setPlaceholderText(tr("robot"));
  status_->addItems({tr("any status"), QStringLiteral("completed"), QStringLiteral("error")});
  error_code_->setPlaceholderText(tr("error code"));
  min_latency_ms_->setRange(0, 3'600'000);
  min_latency_ms_->setSuffix(tr(" ms"));
  min_latency_ms_->setPrefix(tr("latency ≥ "));
  auto* search = new QPushButton(tr("Search"), this);

  // The words and the filters on one line, and the count beside them: the rest of the pane is
  // for the results.
  auto* fields = new QHBoxLayout;
  fields->addWidget(text_, 3);
  for (QWidget* field : std::initializer_list<QWidget*>{tool_, robot_, status_, error_code_,
                                                        min_latency_ms_, this_session_, search}) {
    fields->addWidget(field, field == tool_ || field == robot_ || field == error_code_ ? 1 : 0);
  }
  fields->addWidget(message_);
  results_->setModel(model_);
  results_->setSelectionBehavior(QAbstractItemView::SelectRows);
  results_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  results_->horizontalHeader()->setStretchLastSection(true);
  results_->verticalHeader()->hide();
  results_->verticalHeader()->setDefaultSectionSize(results_->fontMetrics().lineSpacing() + 8);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(fields);
  layout->addWidget(results_, 1);

  connect(text_, &QLineEdit::returnPressed, this, &SearchPanel::run);
  connect(search, &QPushButton::clicked, this, &SearchPanel::run);
  connect(model_, &SearchModel::failed, this,
          [this](const QString& error) { last_error_ = error; });
  connect(results_, &QTableView::activated, this, [this](const QModelIndex& index) {
    const qlonglong session = index.data(SearchModel::SessionIdRole).toLongLong();
    const qlonglong conversation = index.data(SearchModel::ConversationIdRole).toLongLong();
    if (const qlonglong call = index.data(SearchModel::A2aCallIdRole).toLongLong(); call != 0) {
      emit callActivated(session, conversation, call);
    } else {
      emit stepActivated(session, conversation, index.data(SearchModel::StepIdRole).toLongLong());
    }
  });
}

void SearchPanel::setSession(std::optional<std::int64_t> session_id) {
  session_id_ = session_id;
}

store::SearchQuery SearchPanel::query() const {
  store::SearchQuery query;
  query.text = text_->text().trimmed().toStdString();
  query.tool = optionalText(tool_);
  query.robot = optionalText(robot_);
  query.error_code = optionalText(error_code_);
  if (status_->currentIndex() > 0) {
    query.status = status_->currentText().toStdString();
  }
  if (min_latency_ms_->value() > 0) {
    query.min_latency_ns = static_cast<std::int64_t>(min_latency_ms_->value()) * 1'000'000;
  }
  if (this_session_->isChecked()) {
    query.session_id = session_id_;
  }
  return query;
}

void SearchPanel::run() {
  QElapsedTimer timer;
  timer.start();
  const store::SearchQuery q = query();
  last_error_.clear();
  model_->search(q);  // emits failed() before returning when the store refuses
  if (!last_error_.isEmpty()) {
    message_->setText(tr("Search failed: %1").arg(last_error_));
    return;
  }
  const bool capped = model_->rowCount() >= static_cast<int>(q.limit);
  message_->setText(tr("%1 steps and calls%2 in %3 ms")
                        .arg(model_->rowCount())
                        .arg(capped ? tr(" (the first %1)").arg(q.limit) : QString())
                        .arg(timer.elapsed()));
}

}  // namespace agentvcr::viewer
