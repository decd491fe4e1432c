// The canary protocol (Canary: congestion-aware in-network allreduce on dynamic trees) as a
// flaresim plug-in: its configuration section (canary.*), the canary handler set and its control
// plane, the default parser rule for its UDP port, its host model (network runs only) and its
// network role (canary_allreduce.h: every switch gets its Canary address, and with
// hosts.model = canary the member hosts run the allreduce).
#include "canary/canary_proto.h"
#include "common/errors.h"
#include "plugin/protocol.h"
#include "protocols/canary/canary_allreduce.h"
#include "protocols/canary/canary_config.h"
#include "protocols/canary/canary_setup.h"

extern "C" const fs_handler_set_desc_t canary_handler_set;

namespace fs {
namespace {

class Canary : public Protocol {
 public:
  std::string name() const override { return "canary"; }
  std::string doc() const override {
    return "Canary: in-network allreduce on dynamic, congestion-aware trees: timeout-based aggregation, a leader "
           "host per block, collisions and tree restoration, loss recovery (Canary 3-4)";
  }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kCanarySection, CanaryConfig{}, canary_config_keys()}};
  }
  std::vector<HandlerSetSpec> handler_sets() const override { return {{&canary_handler_set, &control_}}; }
  std::vector<std::string> default_parser_rules() const override {
    return {"udp_dport=" + std::to_string(CANARY_UDP_PORT_DEFAULT) + " -> canary"};
  }
  std::vector<KeyChoice> host_models() const override {
    return {{kCanaryModel, "on a network: hosts.members run Canary allreduces (canary.*): int32 sums of hosts.bytes, a "
                           "packet per block, a leader per block, loss recovery by retransmission requests"}};
  }
  std::vector<std::string> network_only_host_models() const override { return {kCanaryModel}; }
  std::unique_ptr<NetworkRole> network_role(const Config& cfg, const Topology& t) const override {
    return std::make_unique<CanaryFabricRole>(cfg, t);
  }
  std::unique_ptr<HostAgents> make_hosts(const std::string&, const Config&, Switch&) const override {
    throw InputError("hosts.model = canary runs on a network (network.topology leaf_spine, fat_tree, fat_tree3, dragonfly or file; a "
                     "single switch is a file with one switch)");
  }

 private:
  CanaryControl control_;
};

}  // namespace

FS_PROTOCOL(Canary);

}  // namespace fs
