#pragma once

#include <QTabWidget>

#include "agentvcr/store/archive_reader.hpp"

namespace agentvcr::viewer {

class TextPane;

/// What one A2A call holds, in tabs: the call (ids, method, skill, state, the user text and the
/// answer text, the error with retryAfter and data), the artifacts and task history
/// pretty-printed, the events of a streamed answer with their arrival offsets, and the raw
/// HTTP exchange (as for a MAGMA step).
class A2aCallDetails : public QTabWidget {
  Q_OBJECT

 public:
  enum Tab { CallTab, ArtifactsTab, StreamTab, HttpTab };

  explicit A2aCallDetails(QWidget* parent = nullptr);

  /// Stream events and the exchange are read now, for this call only.
  void showCall(const store::A2aCallRow& call, const store::ArchiveReader& reader);
  void clearCall();

  TextPane* pane(Tab tab) const;

 private:
  TextPane* call_;
  TextPane* artifacts_;
  TextPane* stream_;
  TextPane* http_;
};

}  // namespace agentvcr::viewer
