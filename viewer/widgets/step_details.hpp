#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include <QTabWidget>

#include "agentvcr/store/archive_reader.hpp"
#include "models/steps_model.hpp"

namespace agentvcr::viewer {

class SideBySideDiff;
class TextPane;

/// What one step holds, in tabs: the step (instruction with decoded env lines, decisions,
/// status), tools and attributes as given, memory (given → returned, side by side), each
/// internal step (component, origin, full prompt, raw output) and the raw HTTP exchange.
///
/// A tab is filled when it is first shown (or asked for): a step of a long history holds
/// hundreds of kilobytes of prompts and bodies, and laying them all out, for tabs nobody looks
/// at, took most of the time to show a step.
class StepDetails : public QTabWidget {
  Q_OBJECT

 public:
  enum Tab { StepTab, ToolsTab, MemoryTab, InternalStepsTab, HttpTab };

  explicit StepDetails(QWidget* parent = nullptr);

  /// The step's row and candidates are read now; its bodies and blobs when a tab that shows
  /// them is shown, from `reader`.
  void showStep(const TimelineStep& step, std::shared_ptr<const store::ArchiveReader> reader);
  void clearStep();

  /// The text of a tab, filled now if it was not yet; nullptr for MemoryTab, which is memory().
  TextPane* pane(Tab tab);

  /// The memory the step was given (left) against the memory its first candidate returned,
  /// filled now if it was not yet.
  SideBySideDiff* memory();

 private:
  /// What showStep() read, for the tabs filled later.
  struct Shown {
    TimelineStep entry;
    store::StepRow step;
    std::vector<store::CandidateRow> candidates;
    std::shared_ptr<const store::ArchiveReader> reader;
  };

  /// Fills `tab` from shown_ unless it shows that step already.
  void fill(Tab tab);

  std::optional<Shown> shown_;
  std::array<bool, HttpTab + 1> filled_{};
  TextPane* step_;
  TextPane* tools_;
  SideBySideDiff* memory_;
  TextPane* internal_steps_;
  TextPane* http_;
};

}  // namespace agentvcr::viewer
