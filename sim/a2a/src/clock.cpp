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

}  // namespace agentvcr::sim::a2a
