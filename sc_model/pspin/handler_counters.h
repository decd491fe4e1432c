// The counters of a handler run, summed per handler set: HandlerCounters with its operator+=,
// and the rows of handler_counters.def (JSON path, HPU models, doc) for the code that reports
// them, all generated from that one list. Plain C++, no SystemC.
#pragma once
#include <cstdint>
#include <string>

namespace fs {

// What the ISS (and for some, a native run) counted during one handler run.
struct HandlerCounters {
#define FS_HANDLER_COUNTER(field, json, models, from_iss, doc) uint64_t field = 0;
#include "pspin/handler_counters.def"
#undef FS_HANDLER_COUNTER

  HandlerCounters& operator+=(const HandlerCounters& o) {
#define FS_HANDLER_COUNTER(field, json, models, from_iss, doc) field += o.field;
#include "pspin/handler_counters.def"
#undef FS_HANDLER_COUNTER
    return *this;
  }
};

// One row of handler_counters.def.
struct HandlerCounterInfo {
  uint64_t HandlerCounters::*field;
  const char* json;    // key in handlers.<set>.iss; "group.key" for one inside object `group`
  const char* models;  // the HPU models that count it
  const char* doc;
};

inline constexpr HandlerCounterInfo kHandlerCounters[] = {
#define FS_HANDLER_COUNTER(field, json, models, from_iss, doc) {&HandlerCounters::field, json, models, doc},
#include "pspin/handler_counters.def"
#undef FS_HANDLER_COUNTER
};

// The table of the counters in docs/STATS.md (markdown, one line per counter, ending in a
// newline), as `flaresim info --counters` prints it.
std::string handler_counters_markdown();

}  // namespace fs
