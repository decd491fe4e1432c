// The broken handler as a protocol (see native_faults.c): its handler set alone, registered
// through the plug-in interface, for the tests of native handler faults and the watchdog.
#include "plugin/protocol.h"

extern "C" const fs_handler_set_desc_t native_faults_handler_set;

namespace fs_tb {
namespace {

class NativeFaults : public fs::Protocol {
 public:
  std::string name() const override { return "native_faults"; }
  std::string doc() const override { return "the test suite's deliberately broken handler"; }
  std::vector<fs::HandlerSetSpec> handler_sets() const override { return {{&native_faults_handler_set, nullptr}}; }
};

}  // namespace

FS_PROTOCOL(NativeFaults);

}  // namespace fs_tb
