#pragma once

#include <memory>
#include <string>

#include "agentvcr/a2a_mock/clock.hpp"
#include "agentvcr/a2a_mock/config.hpp"
#include "agentvcr/a2a_mock/engine.hpp"
#include "agentvcr/proxy/local_service.hpp"
#include "agentvcr/proxy/server.hpp"

namespace agentvcr::proxy {

/// The A2A mock engine as a LocalHandler. The engine keeps tasks, counters and its id
/// sequence, so one mutex serialises the calls; several workers may call the handler at once.
/// Streams are computed whole under the lock and written outside it, at their own pace.
LocalHandler a2aMockRoutes(std::shared_ptr<a2a_mock::MockEngine> engine);

/// `agentvcr mock a2a` as an object: the engine behind an HTTP/1.1 server.
///
/// Thread-safety: start(), stop() and the accessors are called from one controlling thread.
class A2aMockService {
 public:
  /// Binds at once (throws boost::system::system_error when the address is taken) and throws
  /// std::invalid_argument for a config the engine refuses. When `config.public_url` is empty
  /// the card's url is the bound address plus the endpoint path.
  A2aMockService(a2a_mock::MockConfig config, std::shared_ptr<const a2a_mock::Clock> clock,
                 ServerOptions server);

  void start() { server_->start(); }

  void stop() { server_->stop(); }

  tcp::endpoint endpoint() const { return server_->endpoint(); }

  /// "http://host:port" of the bound address.
  std::string baseUrl() const;

  /// Where the card sends clients: the public URL.
  const std::string& publicUrl() const { return public_url_; }

  const a2a_mock::Profile& profile() const { return engine_->profile(); }

 private:
  std::shared_ptr<a2a_mock::MockEngine> engine_;
  std::unique_ptr<Server> server_;
  std::string public_url_;
};

}  // namespace agentvcr::proxy
