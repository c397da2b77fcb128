#pragma once

// The one place that spells out which Asio/Beast flavour agentvcr uses. Asio and Beast are
// compiled once (src/beast_impl.cpp, separate compilation); every other file includes this.

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

namespace agentvcr::proxy {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

/// Completion token for the data path: errors come back as values, never as exceptions.
inline constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

}  // namespace agentvcr::proxy
