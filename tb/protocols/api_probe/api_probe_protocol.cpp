// The api_probe handler set as a plug-in (see api_probe.h): only its handler set, with no
// configuration, control plane or trace syntax of its own.
#include "protocols/api_probe/api_probe.h"

#include "plugin/protocol.h"

extern "C" const fs_handler_set_desc_t api_probe_handler_set;

namespace fs_tb {
namespace {

class ApiProbe : public fs::Protocol {
 public:
  std::string name() const override { return "api_probe"; }
  std::string doc() const override { return "the test suite's handler API probe"; }
  std::vector<fs::HandlerSetSpec> handler_sets() const override { return {{&api_probe_handler_set, nullptr}}; }
};

}  // namespace

FS_PROTOCOL(ApiProbe);

}  // namespace fs_tb
