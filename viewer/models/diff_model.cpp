#include "models/diff_model.hpp"

#include <QStringList>

#include "agentvcr/protocol/env_feedback.hpp"
#include "models/steps_model.hpp"
#include "models/text_format.hpp"

namespace agentvcr::viewer {
namespace {

/// Column offsets within one side: step number, instruction, decision.
enum SideField { StepField, InstructionField, DecisionField };

std::string instructionOf(const replay::DiffStep& step) {
  const auto& instruction = step.input.value("instruction", protocol::Json::object());
  const std::string type = instruction.value("type", std::string());
  const std::string content = instruction.value("content", std::string());
  if (type != "env") {
    return type + ": " + oneLine(content);
  }
  std::string lines;
  for (const EnvLine& line : envLines(protocol::toJson(protocol::decodeEnvFeedback(content)))) {
    lines += (lines.empty() ? "" : " · ") + line.text;
  }
  return "env: " + oneLine(lines.empty() ? content : lines);
}

}  // namespace

QColor diffBackground(replay::RowKind kind) {
  switch (kind) {
    case replay::RowKind::Same:
      return {};
    case replay::RowKind::Changed:
      return QColor(255, 243, 205);  // amber: both sides, something differs
    case replay::RowKind::LeftOnly:
      return QColor(248, 215, 218);  // red: only on the left
    case replay::RowKind::RightOnly:
      return QColor(212, 237, 218);  // green: only on the right
  }
  return {};
}

DiffModel::DiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiffModel::setConversations(std::vector<replay::DiffStep> left,
                                 std::vector<replay::DiffStep> right) {
  beginResetModel();
  left_ = std::move(left);
  right_ = std::move(right);
  diff_ = replay::diffConversations(left_, right_);
  endResetModel();
}

int DiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(diff_.rows.size());
}

int DiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffModel::sideData(const std::optional<std::size_t>& step,
                             const std::vector<replay::DiffStep>& steps, int field) const {
  if (!step) {
    return {};
  }
  const replay::DiffStep& s = steps.at(*step);
  switch (field) {
    case StepField:
      // diffStepsOf lists a conversation in tree order, as the timeline: its number, then the id.
      return QStringLiteral("#%1 (id %2)").arg(timelineNumber(*step)).arg(s.step_id);
    case InstructionField:
      return QString::fromStdString(instructionOf(s));
    case DecisionField:
      return QString::fromStdString(oneLine(replay::decisionText(s)));
    default:
      return {};
  }
}

QVariant DiffModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) {
    return {};
  }
  const replay::DiffRow& row = diff_.rows.at(static_cast<std::size_t>(index.row()));
  if (role == KindRole) {
    return static_cast<int>(row.kind);
  }
  if (role == Qt::BackgroundRole) {
    const QColor color = diffBackground(row.kind);
    return color.isValid() ? QVariant(color) : QVariant();
  }
  if (role == Qt::ToolTipRole || (role == Qt::DisplayRole && index.column() == Differences)) {
    QStringList paths;
    for (const auto& path : row.differences) {
      paths << QString::fromStdString(path);
    }
    if (row.differences_truncated) {
      paths << QStringLiteral("…");
    }
    return paths.join(role == Qt::ToolTipRole ? QStringLiteral("\n") : QStringLiteral(", "));
  }
  if (role != Qt::DisplayRole) {
    return {};
  }
  const int column = index.column();
  if (column < RightStep) {
    return sideData(row.left, left_, column - LeftStep);
  }
  return sideData(row.right, right_, column - RightStep);
}

QVariant DiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  static const char* const kNames[] = {"Left step",  "Left instruction",  "Left decision",
                                       "Right step", "Right instruction", "Right decision",
                                       "Differs at"};
  return section >= 0 && section < ColumnCount ? QString(kNames[section]) : QVariant();
}

}  // namespace agentvcr::viewer
