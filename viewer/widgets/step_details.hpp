#pragma once

#include <QTabWidget>

#include "agentvcr/store/archive_reader.hpp"
#include "models/steps_model.hpp"

namespace agentvcr::viewer {

class SideBySideDiff;
class TextPane;

/// What one step holds, in tabs: the step (instruction with decoded env lines, decisions,
/// status), tools and attributes as given, memory (given → returned, side by side), each
/// internal step (component, origin, full prompt, raw output) and the raw HTTP exchange.
class StepDetails : public QTabWidget {
  Q_OBJECT

 public:
  enum Tab { StepTab, ToolsTab, MemoryTab, InternalStepsTab, HttpTab };

  explicit StepDetails(QWidget* parent = nullptr);

  /// The step's row, candidates, bodies and blobs are read now, for this step only.
  void showStep(const TimelineStep& step, const store::ArchiveReader& reader);
  void clearStep();

  /// The text of a tab; nullptr for MemoryTab, which is memory().
  TextPane* pane(Tab tab) const;

  /// The memory the step was given (left) against the memory its first candidate returned.
  SideBySideDiff* memory() const { return memory_; }

 private:
  TextPane* step_;
  TextPane* tools_;
  SideBySideDiff* memory_;
  TextPane* internal_steps_;
  TextPane* http_;
};

}  // namespace agentvcr::viewer
