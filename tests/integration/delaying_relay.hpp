#pragma once

// A TCP relay on 127.0.0.1 that holds every chunk it forwards for a delay the test sets at any
// moment: a slow network between a client and a server, for fault campaigns.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentvcr::testing {

class DelayingRelay {
 public:
  /// Listens on a free port of 127.0.0.1 and relays each connection to 127.0.0.1:`target`.
  explicit DelayingRelay(std::uint16_t target) : target_(target) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    if (listener_ < 0 || ::bind(listener_, asSockaddr(address), sizeof address) != 0 ||
        ::listen(listener_, 64) != 0 || ::getsockname(listener_, asSockaddr(address), &length)) {
      throw std::runtime_error("DelayingRelay: cannot listen");
    }
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { acceptLoop(); });
  }

  ~DelayingRelay() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);  // accept() returns
    acceptor_.join();
    {
      std::lock_guard lock(mutex_);
      for (const int fd : sockets_) {
        ::shutdown(fd, SHUT_RDWR);  // every pump's read() returns
      }
    }
    for (std::thread& pump : pumps_) {
      pump.join();
    }
    for (const int fd : sockets_) {
      ::close(fd);
    }
    ::close(listener_);
  }

  DelayingRelay(const DelayingRelay&) = delete;
  DelayingRelay& operator=(const DelayingRelay&) = delete;

  std::uint16_t port() const { return port_; }

  /// How long each chunk waits before it is forwarded, from now on (0: not at all).
  void setDelay(std::chrono::milliseconds delay) { delay_ms_ = delay.count(); }

 private:
  static sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    return address;
  }

  static sockaddr* asSockaddr(sockaddr_in& address) {
    return reinterpret_cast<sockaddr*>(&address);
  }

  void acceptLoop() {
    while (!stopping_) {
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) {
        return;
      }
      const int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address = loopback(target_);
      if (server < 0 || ::connect(server, asSockaddr(address), sizeof address) != 0) {
        ::close(client);
        if (server >= 0) {
          ::close(server);
        }
        continue;
      }
      std::lock_guard lock(mutex_);
      sockets_.push_back(client);
      sockets_.push_back(server);
      pumps_.emplace_back([this, client, server] { pump(client, server); });
      pumps_.emplace_back([this, client, server] { pump(server, client); });
    }
  }

  /// Forwards `from` to `to` until either side closes, each chunk after the delay.
  void pump(int from, int to) {
    char buffer[64 * 1024];
    for (;;) {
      const ssize_t n = ::read(from, buffer, sizeof buffer);
      if (n <= 0) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_.load()));
      for (ssize_t sent = 0; sent < n;) {
        const ssize_t w =
            ::send(to, buffer + sent, static_cast<std::size_t>(n - sent), MSG_NOSIGNAL);
        if (w <= 0) {
          ::shutdown(from, SHUT_RDWR);
          return;
        }
        sent += w;
      }
    }
    ::shutdown(to, SHUT_RDWR);  // the other direction ends too
  }

  std::uint16_t target_;
  std::uint16_t port_ = 0;
  int listener_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<long> delay_ms_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<int> sockets_;  // closed at the end only: a descriptor is never reused meanwhile
  std::vector<std::thread> pumps_;
};

}  // namespace agentvcr::testing
