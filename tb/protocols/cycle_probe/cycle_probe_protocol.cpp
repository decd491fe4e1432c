// The cycle probes as a protocol (see cycle_probe.c, send_probe.c): their handler sets, registered
// through the plug-in interface, for the cycle accounting tests.
#include "plugin/protocol.h"

extern "C" const fs_handler_set_desc_t cycle_probe_handler_set;
extern "C" const fs_handler_set_desc_t send_probe_handler_set;

namespace fs_tb {
namespace {

class CycleProbe : public fs::Protocol {
 public:
  std::string name() const override { return "cycle_probe"; }
  std::string doc() const override { return "the test suite's handlers of known cycles"; }
  std::vector<fs::HandlerSetSpec> handler_sets() const override {
    return {{&cycle_probe_handler_set, nullptr}, {&send_probe_handler_set, nullptr}};
  }
};

}  // namespace

FS_PROTOCOL(CycleProbe);

}  // namespace fs_tb
