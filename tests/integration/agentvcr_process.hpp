#pragma once

// `agentvcr` as a child process, for the tests that need its exit status, its output, or a
// signal: SIGKILL mid-way, SIGTERM to drain, a deadline that turns a hang into a failure.

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace agentvcr::testing {

inline std::string readWhole(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

/// A running `agentvcr args...`, killed with SIGKILL if it still runs when destroyed.
class AgentvcrProcess {
 public:
  /// `out_path`, `err_path`: files for its stdout and stderr (empty: inherited). `as_nobody`:
  /// run as the `nobody` user (through setpriv), to test what it does without write access.
  /// `variables`: NAME=VALUE entries added to this process's environment for the child only.
  explicit AgentvcrProcess(const std::vector<std::string>& args, const std::string& out_path = {},
                           const std::string& err_path = {}, bool as_nobody = false,
                           std::vector<std::string> variables = {}) {
    std::vector<std::string> full;
    if (as_nobody) {
      full = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"};
    }
    full.push_back(AGENTVCR_BINARY);
    full.insert(full.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : full) {
      argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    // Ahead of the inherited entries: getenv() takes the first of a name.
    std::vector<char*> envp;
    for (auto& variable : variables) {
      envp.push_back(variable.data());
    }
    for (char** entry = environ; *entry != nullptr; ++entry) {
      envp.push_back(*entry);
    }
    envp.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    if (!out_path.empty()) {
      posix_spawn_file_actions_addopen(&files, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
    }
    if (!err_path.empty()) {
      posix_spawn_file_actions_addopen(&files, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
    }
    EXPECT_EQ(posix_spawn(&pid_, full[0].c_str(), &files, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&files);
  }

  ~AgentvcrProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  AgentvcrProcess(const AgentvcrProcess&) = delete;
  AgentvcrProcess& operator=(const AgentvcrProcess&) = delete;

  pid_t pid() const { return pid_; }

  void signal(int sig) const { ::kill(pid_, sig); }

  /// Waits for its end, killing it after `limit` (a failure: it should have ended). Returns its
  /// exit status, or minus the signal that ended it.
  int wait(std::chrono::milliseconds limit = std::chrono::minutes(2)) {
    if (const std::optional<int> status = waitFor(limit)) {
      return *status;
    }
    ADD_FAILURE() << "agentvcr did not end within " << limit.count() << " ms";
    int status = 0;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return exitStatus(status);
  }

  /// Waits for its end for at most `limit`, as wait() does; nullopt when it still runs then, and
  /// it goes on running.
  std::optional<int> waitFor(std::chrono::milliseconds limit) {
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        return std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
    return exitStatus(status);
  }

  /// Sends `sig` and waits for its end.
  int stop(int sig) {
    signal(sig);
    return wait();
  }

 private:
  /// The exit status in `status` (waitpid's), or minus the signal that ended the process.
  static int exitStatus(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }

  pid_t pid_ = -1;
};

/// The port of the URL a serving `agentvcr` wrote to its `--ready-file` (http://HOST:PORT), once
/// the file has it; 0 if it never does within `limit`.
inline std::uint16_t readyPort(const std::string& ready_file,
                               std::chrono::milliseconds limit = std::chrono::minutes(1)) {
  std::string url;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while ((url = readWhole(ready_file)).find('\n') == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline) {
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  url.resize(url.find('\n'));
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

/// What a finished `agentvcr` printed, and how it ended.
struct Finished {
  int status = 0;  ///< the exit status, or minus the signal that ended it
  std::string out;
  std::string err;
};

/// Runs `agentvcr args...` to its end (at most `limit`), its output kept in files of `dir`.
inline Finished runAgentvcr(const std::vector<std::string>& args, const std::string& dir,
                            std::chrono::milliseconds limit = std::chrono::minutes(1),
                            bool as_nobody = false) {
  const std::string out = dir + "/agentvcr.out";
  const std::string err = dir + "/agentvcr.err";
  AgentvcrProcess process(args, out, err, as_nobody);
  const int status = process.wait(limit);
  return {status, readWhole(out), readWhole(err)};
}

}  // namespace agentvcr::testing
