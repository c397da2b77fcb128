// The curl command of one exchange, run by bash with curl replaced by a shell function that
// does with --data-binary what curl does: the body that would go out must be the recorded one.

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "agentvcr/store/export.hpp"
#include "store_test_support.hpp"

namespace agentvcr::store {
namespace {

using testing::TempDir;

/// Runs `command` under bash with a `curl` that writes the body it would send to `sent`:
/// "@-" reads stdin, "@name" reads the file name (as curl does), anything else is the body.
std::string bodyCurlWouldSend(const TempDir& dir, const std::string& command) {
  const std::string sent = dir.file("sent.bin");
  const std::string script = dir.file("resend.sh");
  std::ofstream(script, std::ios::binary) << "set -e\n"
                                          << "curl() {\n"
                                          << "  while [ $# -gt 0 ]; do\n"
                                          << "    if [ \"$1\" = --data-binary ]; then\n"
                                          << "      case \"$2\" in\n"
                                          << "        @-) cat ;;\n"
                                          << "        @*) cat -- \"${2#@}\" ;;\n"
                                          << "        *) printf '%s' \"$2\" ;;\n"
                                          << "      esac > " << shellQuote(sent) << "\n"
                                          << "    fi\n"
                                          << "    shift\n"
                                          << "  done\n"
                                          << "}\n"
                                          << command << "\n";
  EXPECT_EQ(std::system(("bash " + shellQuote(script)).c_str()), 0) << command;
  std::ifstream in(sent, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ExchangeRow postOf(std::string body) {
  ExchangeRow exchange;
  exchange.method = "POST";
  exchange.target = "/v1/responses";
  exchange.http_version = 11;
  exchange.request_headers = {{"Host", "agent.test"},
                              {"content-length", std::to_string(body.size())},
                              {"Connection", "keep-alive"},
                              {"Content-Type", "application/json"}};
  exchange.request_body = std::move(body);
  return exchange;
}

TEST(CurlCommandTest, SendsABodyStartingWithAtAsIsInsteadOfReadingAFile) {
  TempDir dir;
  const std::string decoy = dir.file("decoy.txt");
  std::ofstream(decoy) << "the file, not the body";
  const std::string body = "@" + decoy;
  const std::string command = curlCommand(postOf(body), "http://agent.test:9000");
  EXPECT_EQ(bodyCurlWouldSend(dir, command), body) << command;
}

TEST(CurlCommandTest, SendsABinaryBodyByteForByte) {
  TempDir dir;
  const std::string body("\x00\xff\xfe{'x'}\n\x80 $HOME\n", 17);
  const std::string command = curlCommand(postOf(body), "http://agent.test:9000");
  EXPECT_EQ(bodyCurlWouldSend(dir, command), body) << command;
}

TEST(CurlCommandTest, SendsAQuotedTextBodyByteForByte) {
  TempDir dir;
  const std::string body = "{\"say\": \"it's\"}\nline two $HOME `x` @not-first";
  const std::string command = curlCommand(postOf(body), "http://agent.test:9000");
  EXPECT_EQ(bodyCurlWouldSend(dir, command), body) << command;
}

TEST(CurlCommandTest, LeavesOutTheHeadersCurlSetsItself) {
  const std::string command = curlCommand(postOf("{}"), "http://agent.test:9000/base");
  EXPECT_EQ(command,
            "curl -sS -X 'POST' 'http://agent.test:9000/base/v1/responses' \\\n"
            "  -H 'Content-Type: application/json' \\\n"
            "  --data-binary '{}'");
}

}  // namespace
}  // namespace agentvcr::store
