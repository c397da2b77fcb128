#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <QWidget>

#include "agentvcr/store/archive_reader.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;

namespace agentvcr::viewer {

class SearchModel;

/// Free-text search (SQLite FTS5 over instructions, says, env feedback, prompts) and filters
/// by tool, robot, status, error code and latency; results in a table. Activating a result
/// asks the window to show that step.
class SearchPanel : public QWidget {
  Q_OBJECT

 public:
  explicit SearchPanel(std::shared_ptr<store::ArchiveReader> reader, QWidget* parent = nullptr);

  /// Limits searches to this session while "this session only" is checked.
  void setSession(std::optional<std::int64_t> session_id);
  /// Runs a search with the current fields.
  void run();

  QLineEdit* textField() const { return text_; }

  QLineEdit* toolField() const { return tool_; }

  QLineEdit* robotField() const { return robot_; }

  QComboBox* statusField() const { return status_; }

  QLineEdit* errorCodeField() const { return error_code_; }

  QSpinBox* minLatencyField() const { return min_latency_ms_; }

  SearchModel* model() const { return model_; }

  QTableView* results() const { return results_; }

  QLabel* message() const { return message_; }

 signals:
  void stepActivated(qlonglong session_id, qlonglong conversation_id, qlonglong step_id);
  void callActivated(qlonglong session_id, qlonglong conversation_id, qlonglong call_id);

 private:
  store::SearchQuery query() const;

  SearchModel* model_;
  QLineEdit* text_;
  QLineEdit* tool_;
  QLineEdit* robot_;
  QComboBox* status_;
  QLineEdit* error_code_;
  QSpinBox* min_latency_ms_;
  QCheckBox* this_session_;
  QLabel* message_;
  QTableView* results_;
  std::optional<std::int64_t> session_id_;
  QString last_error_;
};

}  // namespace agentvcr::viewer
