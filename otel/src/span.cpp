#include "agentvcr/otel/span.hpp"

namespace agentvcr::otel {

const AttributeValue* Span::attribute(const std::string& key) const {
  for (const Attribute& a : attributes) {
    if (a.key == key) {
      return &a.value;
    }
  }
  return nullptr;
}

}  // namespace agentvcr::otel
