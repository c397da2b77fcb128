#include "raw_client.hpp"

#include <stdexcept>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentvcr::testing {

RawClient::RawClient(std::uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    throw std::runtime_error("RawClient: cannot connect to port " + std::to_string(port));
  }
}

RawClient::~RawClient() {
  close();
}

void RawClient::send(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      throw std::runtime_error("RawClient: send failed");
    }
    sent += static_cast<std::size_t>(n);
  }
}

std::string RawClient::readAll(std::chrono::milliseconds quiet) {
  std::string received;
  char buffer[65536];
  for (;;) {
    pollfd poll_fd{fd_, POLLIN, 0};
    int ready = ::poll(&poll_fd, 1, static_cast<int>(quiet.count()));
    if (ready <= 0) {
      break;
    }
    auto n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n <= 0) {
      break;
    }
    received.append(buffer, static_cast<std::size_t>(n));
  }
  return received;
}

std::string RawClient::readUntil(const std::string& marker, std::chrono::milliseconds timeout) {
  std::string received;
  char buffer[65536];
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (received.find(marker) == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      break;
    }
    pollfd poll_fd{fd_, POLLIN, 0};
    if (::poll(&poll_fd, 1, static_cast<int>(left.count())) <= 0) {
      break;
    }
    auto n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n <= 0) {
      break;
    }
    received.append(buffer, static_cast<std::size_t>(n));
  }
  return received;
}

void RawClient::close() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

}  // namespace agentvcr::testing
