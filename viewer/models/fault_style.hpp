#pragma once

// How the viewer marks exchanges that agentvcr faulted on purpose (chaos, docs/record.md): one
// colour of their own, apart from the red of the agent's failures, so an injected fault never
// reads as the agent's.

#include <string>

#include <QColor>
#include <QString>

namespace agentvcr::viewer {

/// A light violet background: neither the red of failures nor the amber of warnings.
inline QColor faultBackground() {
  return QColor(226, 212, 250);
}

/// "chaos: rate_limit"
inline QString faultText(const std::string& kind) {
  return QStringLiteral("chaos: %1").arg(QString::fromStdString(kind));
}

}  // namespace agentvcr::viewer
