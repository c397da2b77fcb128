#include "widgets/step_details.hpp"

#include <optional>
#include <sstream>
#include <vector>

#include "agentvcr/replay/text_diff.hpp"
#include "models/text_format.hpp"
#include "widgets/json_view.hpp"
#include "widgets/side_by_side_diff.hpp"

namespace agentvcr::viewer {
namespace {

using protocol::Json;

Json blobJson(const store::ArchiveReader& reader, std::uint64_t hash) {
  auto text = reader.blob(hash);
  if (!text) {
    return nullptr;
  }
  auto parsed = protocol::parseJson(*text);
  return parsed.value ? std::move(*parsed.value) : Json(*text);
}

std::string pretty(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace);
}

std::string stepText(const store::StepRow& step, int number,
                     const std::vector<store::CandidateRow>& candidates,
                     std::optional<std::int64_t> latency) {
  std::ostringstream out;
  // The timeline's number first, as the timeline and the search show it; the ids after it.
  out << "#" << number << " · step id " << step.id << " · conversation " << step.conversation_id
      << " · exchange " << step.exchange_id << " · input id " << step.source_id << " · depth "
      << step.depth;
  if (step.parent_ambiguity > 1) {
    out << " · parent ambiguous among " << step.parent_ambiguity << " candidates";
  }
  out << "\n\n" << step.instruction_type << " instruction:\n" << step.instruction_content << "\n";
  if (step.instruction_type == "env") {
    out << "\ndecoded:\n";
    for (const EnvLine& line : envLines(step.env_feedback)) {
      out << "  " << line.text << (line.failure ? "   <-- failure" : "") << "\n";
    }
  }
  for (const auto& candidate : candidates) {
    out << "\ncandidate " << candidate.candidate_index << " · " << candidate.status << "\n";
    if (candidate.status == "error") {
      out << "  error " << candidate.error_code.value_or("") << ": "
          << candidate.error_message.value_or("");
      if (candidate.error_component) {
        out << " (component " << *candidate.error_component << ")";
      }
      out << "\n";
      continue;
    }
    if (candidate.say && !candidate.say->empty()) {
      out << "  say: " << *candidate.say << "\n";
    }
    for (const std::string& call : toolCallTexts(candidate.tool_calls.value_or("[]"))) {
      out << "  tool call: " << call << "\n";
    }
  }
  if (latency) {
    out << "\nlatency: " << durationText(*latency) << "\n";
  }
  return out.str();
}

std::string internalStepsText(const std::vector<store::CandidateRow>& candidates,
                              const store::ArchiveReader& reader) {
  std::ostringstream out;
  for (const auto& candidate : candidates) {
    for (const auto& internal : reader.internalSteps(candidate.id)) {
      out << "━━ candidate " << candidate.candidate_index << " · internal step "
          << internal.position << " · " << internal.step_key.value_or("(no id)") << " · component "
          << internal.component.value_or("?") << " · origin " << internal.origin.value_or("?")
          << "\n";
      if (internal.full_prompt) {
        out << "── full prompt\n" << *internal.full_prompt << "\n";
      }
      if (internal.output_raw) {
        out << "── raw output\n" << *internal.output_raw << "\n";
      }
      if (!internal.full_prompt && !internal.output_raw) {
        out << prettyJson(internal.body) << "\n";
      }
      out << "\n";
    }
  }
  const std::string text = out.str();
  return text.empty() ? "(no internal steps)" : text;
}

}  // namespace

StepDetails::StepDetails(QWidget* parent)
    : QTabWidget(parent),
      step_(new TextPane(this)),
      tools_(new TextPane(this)),
      memory_(new SideBySideDiff(this)),
      internal_steps_(new TextPane(this)),
      http_(new TextPane(this)) {
  addTab(step_, tr("Step"));
  addTab(tools_, tr("Tools && attributes"));
  addTab(memory_, tr("Memory"));
  addTab(internal_steps_, tr("Internal steps"));
  addTab(http_, tr("HTTP"));
  memory_->setTitles(tr("memory given"), tr("memory returned by candidate 0"));
  connect(this, &QTabWidget::currentChanged, this, [this](int index) { fill(Tab(index)); });
}

void StepDetails::showStep(const TimelineStep& entry,
                           std::shared_ptr<const store::ArchiveReader> reader) {
  // The timeline keeps an outline of each step: the row, its decoded feedback and its
  // candidates are read now, for this step only.
  std::optional<store::StepRow> step = reader->step(entry.step.id);
  if (!step) {
    clearStep();
    return;
  }
  std::vector<store::CandidateRow> candidates = reader->candidates(step->id);
  shown_ = Shown{entry, std::move(*step), std::move(candidates), std::move(reader)};
  filled_.fill(false);
  fill(Tab(currentIndex()));
}

void StepDetails::fill(Tab tab) {
  if (!shown_ || filled_[tab]) {
    return;
  }
  filled_[tab] = true;
  const store::ArchiveReader& reader = *shown_->reader;
  const store::StepRow& step = shown_->step;
  const std::vector<store::CandidateRow>& candidates = shown_->candidates;
  switch (tab) {
    case StepTab:
      step_->setText(stepText(step, shown_->entry.number, candidates, shown_->entry.latencyNs()));
      return;
    case ToolsTab:
      tools_->setText("tools:\n" + pretty(blobJson(reader, step.tools_hash)) + "\n\nattributes:\n" +
                      pretty(blobJson(reader, step.attributes_hash)) + "\n\nextra_keys:\n" +
                      pretty(blobJson(reader, step.extra_keys_hash)));
      return;
    case MemoryTab: {
      const Json given = blobJson(reader, step.memory_hash);
      const Json returned =
          candidates.empty() ? given : blobJson(reader, candidates.front().memory_hash);
      memory_->setLines(replay::prettyJsonLines(given), replay::prettyJsonLines(returned));
      return;
    }
    case InternalStepsTab:
      internal_steps_->setText(internalStepsText(candidates, reader));
      return;
    case HttpTab:
      if (auto exchange = reader.exchange(step.exchange_id)) {
        http_->setText(exchangeText(*exchange));
      } else {
        http_->setText("(exchange not found)");
      }
      return;
  }
}

void StepDetails::clearStep() {
  shown_.reset();
  filled_.fill(false);
  for (TextPane* pane : {step_, tools_, internal_steps_, http_}) {
    pane->clear();
  }
  memory_->clear();
}

TextPane* StepDetails::pane(Tab tab) {
  fill(tab);
  switch (tab) {
    case StepTab:
      return step_;
    case ToolsTab:
      return tools_;
    case MemoryTab:
      return nullptr;
    case InternalStepsTab:
      return internal_steps_;
    case HttpTab:
      return http_;
  }
  return step_;
}

SideBySideDiff* StepDetails::memory() {
  fill(MemoryTab);
  return memory_;
}

}  // namespace agentvcr::viewer
