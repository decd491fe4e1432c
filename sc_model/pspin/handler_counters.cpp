// The docs table of the handler counters (see handler_counters.h).
#include "pspin/handler_counters.h"

namespace fs {

std::string handler_counters_markdown() {
  std::string s = "| key in `handlers.<set>.iss` | counted with `hpu.model` | meaning |\n| --- | --- | --- |\n";
  for (const HandlerCounterInfo& c : kHandlerCounters)
    s += std::string("| `") + c.json + "` | " + c.models + " | " + c.doc + " |\n";
  return s;
}

}  // namespace fs
