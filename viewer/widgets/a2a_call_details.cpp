#include "widgets/a2a_call_details.hpp"

#include "models/a2a_text.hpp"
#include "models/text_format.hpp"
#include "widgets/json_view.hpp"

namespace agentvcr::viewer {

A2aCallDetails::A2aCallDetails(QWidget* parent)
    : QTabWidget(parent),
      call_(new TextPane(this)),
      artifacts_(new TextPane(this)),
      stream_(new TextPane(this)),
      http_(new TextPane(this)) {
  addTab(call_, tr("A2A call"));
  addTab(artifacts_, tr("Artifacts && history"));
  addTab(stream_, tr("Stream events"));
  addTab(http_, tr("HTTP"));
}

TextPane* A2aCallDetails::pane(Tab tab) const {
  switch (tab) {
    case CallTab:
      return call_;
    case ArtifactsTab:
      return artifacts_;
    case StreamTab:
      return stream_;
    case HttpTab:
      return http_;
  }
  return call_;
}

void A2aCallDetails::showCall(const store::A2aCallRow& call, const store::ArchiveReader& reader) {
  call_->setText(callText(call));
  artifacts_->setText(artifactsText(call));
  stream_->setText(streamEventsText(call, call.stream_event_count > 0
                                              ? reader.streamEvents(call.exchange_id)
                                              : std::vector<store::StreamEventRow>{}));
  if (auto exchange = reader.exchange(call.exchange_id)) {
    http_->setText(exchangeText(*exchange));
  } else {
    http_->setText("(exchange not found)");
  }
}

void A2aCallDetails::clearCall() {
  for (TextPane* pane : {call_, artifacts_, stream_, http_}) {
    pane->clear();
  }
}

}  // namespace agentvcr::viewer
