// The fault probe as a protocol (see fault_probe.c): its handler set alone, registered through
// the plug-in interface, for the debugging tests.
#include "plugin/protocol.h"

extern "C" const fs_handler_set_desc_t fault_probe_handler_set;

namespace fs_tb {
namespace {

class FaultProbe : public fs::Protocol {
 public:
  std::string name() const override { return "fault_probe"; }
  std::string doc() const override { return "the test suite's broken handlers"; }
  std::vector<fs::HandlerSetSpec> handler_sets() const override { return {{&fault_probe_handler_set, nullptr}}; }
};

}  // namespace

FS_PROTOCOL(FaultProbe);

}  // namespace fs_tb
