#pragma once

#include <string_view>

namespace agentvcr::protocol::detail {

/// The path of a request-target: origin-form as is, absolute-form without scheme and
/// authority; query string and fragment removed.
std::string_view pathOfTarget(std::string_view target);

}  // namespace agentvcr::protocol::detail
