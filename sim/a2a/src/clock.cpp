#include "agentvcr/sim/a2a/clock.hpp"

#include <cstdio>

namespace agentvcr::sim::a2a {

using namespace std::chrono;

TimePoint ManualClock::now() const {
  return TimePoint(duration_cast<system_clock::duration>(nanoseconds(nanoseconds_.load())));
}

std::int64_t ManualClock::toNanoseconds(TimePoint when) {
  return duration_cast<nanoseconds>(when.time_since_epoch()).count();
}

std::string isoTimestamp(TimePoint when) {
  const auto day = floor<days>(when);
  const year_month_day date{day};
  const hh_mm_ss<milliseconds> time{floor<milliseconds>(when - day)};
  char text[40];
  std::snprintf(text, sizeof(text), "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<int>(time.hours().count()),
                static_cast<int>(time.minutes().count()), static_cast<int>(time.seconds().count()),
                static_cast<int>(time.subseconds().count()));
  return text;
}

std::string httpDate(TimePoint when) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto day = floor<days>(when);
  const year_month_day date{day};
  const hh_mm_ss<seconds> time{floor<seconds>(when - day)};
  char text[40];
  std::snprintf(text, sizeof(text), "%s, %02u %s %04d %02d:%02d:%02d GMT",
                kDays[weekday{day}.c_encoding()], static_cast<unsigned>(date.day()),
                kMonths[static_cast<unsigned>(date.month()) - 1], static_cast<int>(date.year()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()));
  return text;
}

namespace {

/// Reads exactly `width` digits at `at`, advancing it.
std::optional<int> digits(std::string_view text, std::size_t& at, std::size_t width) {
  if (text.size() < at + width) {
    return std::nullopt;
  }
  int value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    const char c = text[at + i];
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  at += width;
  return value;
}

bool expect(std::string_view text, std::size_t& at, std::string_view any_of) {
  if (at < text.size() && any_of.find(text[at]) != std::string_view::npos) {
    ++at;
    return true;
  }
  return false;
}

}  // namespace

std::optional<TimePoint> parseIsoTimestamp(std::string_view text) {
  std::size_t at = 0;
  const auto year = digits(text, at, 4);
  const bool dash1 = expect(text, at, "-");
  const auto month = digits(text, at, 2);
  const bool dash2 = expect(text, at, "-");
  const auto day = digits(text, at, 2);
  const bool t = expect(text, at, "Tt");
  const auto hour = digits(text, at, 2);
  const bool colon1 = expect(text, at, ":");
  const auto minute = digits(text, at, 2);
  const bool colon2 = expect(text, at, ":");
  const auto second = digits(text, at, 2);
  if (!year || !month || !day || !hour || !minute || !second || !dash1 || !dash2 || !t || !colon1 ||
      !colon2) {
    return std::nullopt;
  }
  const year_month_day date{std::chrono::year(*year),
                            std::chrono::month(static_cast<unsigned>(*month)),
                            std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  nanoseconds fraction{0};
  if (expect(text, at, ".")) {
    std::int64_t scale = 100'000'000;
    const std::size_t first = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      fraction += nanoseconds((text[at] - '0') * scale);
      scale /= 10;
      ++at;
    }
    if (at == first) {
      return std::nullopt;
    }
  }
  minutes offset{0};
  if (!expect(text, at, "Zz")) {
    const bool ahead = at < text.size() && text[at] == '+';
    if (!expect(text, at, "+-")) {
      return std::nullopt;
    }
    const auto offset_hours = digits(text, at, 2);
    const bool colon = expect(text, at, ":");
    const auto offset_minutes = digits(text, at, 2);
    if (!offset_hours || !colon || !offset_minutes || *offset_hours > 23 || *offset_minutes > 59) {
      return std::nullopt;
    }
    offset = hours(*offset_hours) + minutes(*offset_minutes);
    if (!ahead) {
      offset = -offset;
    }
  }
  if (at != text.size()) {
    return std::nullopt;
  }
  const auto local = sys_days(date) + hours(*hour) + minutes(*minute) + seconds(*second) + fraction;
  return time_point_cast<system_clock::duration>(local - offset);
}

}  // namespace agentvcr::sim::a2a
