#pragma once

// The one place that spells out which Asio/Beast flavour agentvcr uses. Asio and Beast are
// compiled once (net/src/beast_impl.cpp, separate compilation). Only net/ and proxy/ (and their
// tests) include this, and only from their sources and Beast-level headers: the rest of
// agentvcr never sees Asio (scripts/check-includes).

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "agentvcr/protocol/exchange.hpp"

namespace agentvcr::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

/// Completion token for the data path: errors come back as values, never as exceptions.
inline constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

/// The header lines of `fields` in their order and spelling.
protocol::Headers toHeaders(const http::fields& fields);

}  // namespace agentvcr::net
