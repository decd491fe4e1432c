// The rina protocol (Rina: ring allreduce with in-network aggregation at the top-of-rack switch)
// as a flaresim plug-in: its configuration section (rina.*) and the rina handler set with its
// control plane.
#include "plugin/protocol.h"
#include "protocols/rina/rina_config.h"
#include "protocols/rina/rina_setup.h"

extern "C" const fs_handler_set_desc_t rina_handler_set;

namespace fs {
namespace {

class Rina : public Protocol {
 public:
  std::string name() const override { return "rina"; }
  std::string doc() const override {
    return "Rina: the ring allreduce over groups, a rack behind an in-network-aggregation switch being one group "
           "(its agent's task pulls the rack's gradients into the switch's sum), autonomous workers the others "
           "(Rina IV)";
  }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kRinaSection, RinaConfig{}, rina_config_keys()}};
  }
  // No default parser rule: a network run with hosts.model rina routes UDP port 4970 to the set.
  std::vector<HandlerSetSpec> handler_sets() const override { return {{&rina_handler_set, &control_}}; }

 private:
  RinaControl control_;
};

}  // namespace

FS_PROTOCOL(Rina);

}  // namespace fs
