// The a2tp protocol (ATP and A2TP: in-network aggregation for several training jobs sharing a
// switch's aggregators, with SwitchML-style static shares as the baseline) as a flaresim
// plug-in: its configuration section (a2tp.*) and the a2tp handler set with its control plane.
#include "plugin/protocol.h"
#include "protocols/a2tp/a2tp_config.h"
#include "protocols/a2tp/a2tp_setup.h"

extern "C" const fs_handler_set_desc_t a2tp_handler_set;

namespace fs {
namespace {

class A2tp : public Protocol {
 public:
  std::string name() const override { return "a2tp"; }
  std::string doc() const override {
    return "ATP and A2TP: training jobs share the switch's aggregators by hashing, collisions go on to each job's "
           "parameter server, A2TP's collision bit; static shares as SwitchML's for comparison (A2TP 2-4)";
  }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kA2tpSection, A2tpConfig{}, a2tp_config_keys()}};
  }
  // No default parser rule: a run whose switch has aggregators routes UDP port 4960 (or its own)
  // to the set with parser.rules, as NetReduce's do.
  std::vector<HandlerSetSpec> handler_sets() const override { return {{&a2tp_handler_set, &control_}}; }

 private:
  A2tpControl control_;
};

}  // namespace

FS_PROTOCOL(A2tp);

}  // namespace fs
