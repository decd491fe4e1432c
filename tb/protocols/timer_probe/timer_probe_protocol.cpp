// The timer probe as a protocol (see timer_probe.c): its handler set alone, registered through
// the plug-in interface, for the timer tests.
#include "plugin/protocol.h"

extern "C" const fs_handler_set_desc_t timer_probe_handler_set;

namespace fs_tb {
namespace {

class TimerProbe : public fs::Protocol {
 public:
  std::string name() const override { return "timer_probe"; }
  std::string doc() const override { return "the test suite's timer probe"; }
  std::vector<fs::HandlerSetSpec> handler_sets() const override { return {{&timer_probe_handler_set, nullptr}}; }
};

}  // namespace

FS_PROTOCOL(TimerProbe);

}  // namespace fs_tb
