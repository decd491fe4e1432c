// The rina protocol (Rina: ring allreduce with in-network aggregation at the top-of-rack switch)
// as a flaresim plug-in: its configuration section (rina.*), the rina handler set with its
// control plane, and its training job on a network's hosts (hosts.model rina: rina_jobs.h).
#include "common/errors.h"
#include "plugin/protocol.h"
#include "protocols/rina/rina_config.h"
#include "protocols/rina/rina_jobs.h"
#include "protocols/rina/rina_role.h"
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
  std::vector<KeyChoice> host_models() const override {
    return {{kRinaModel, "on a network: a training job of hosts.members reducing int32 gradients with Rina's ring "
                         "allreduce, racks behind an inc switch as one group each (rina.*)"}};
  }
  std::vector<std::string> network_only_host_models() const override { return {kRinaModel}; }
  std::unique_ptr<NetworkRole> network_role(const Config& cfg, const Topology& t) const override {
    return std::make_unique<RinaFabricRole>(cfg, t);
  }
  std::unique_ptr<HostAgents> make_hosts(const std::string&, const Config&, Switch&) const override {
    throw InputError("hosts.model = rina runs on a network (network.topology leaf_spine, fat_tree, fat_tree3, "
                     "dragonfly or file)");
  }

 private:
  RinaControl control_;
};

}  // namespace

FS_PROTOCOL(Rina);

}  // namespace fs
