// The a2tp protocol (ATP and A2TP: in-network aggregation for several training jobs sharing a
// switch's aggregators, with SwitchML-style static shares as the baseline) as a flaresim
// plug-in: its configuration section (a2tp.*), the a2tp handler set with its control plane, and
// its training jobs on a network's hosts (hosts.model a2tp, with the switch's part: a2tp_jobs.h).
#include "plugin/protocol.h"
#include "common/errors.h"
#include "protocols/a2tp/a2tp_config.h"
#include "protocols/a2tp/a2tp_jobs.h"
#include "protocols/a2tp/a2tp_role.h"
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
  std::vector<KeyChoice> host_models() const override {
    return {{kA2tpModel, "on a network: training jobs (hosts.groups of hosts.members, each's last host "
                         "its parameter server) push int32 gradients through the switch's aggregators under ATP's "
                         "or A2TP's windows (a2tp.*)"}};
  }
  std::vector<std::string> network_only_host_models() const override { return {kA2tpModel}; }
  std::unique_ptr<NetworkRole> network_role(const Config& cfg, const Topology& t) const override {
    return std::make_unique<A2tpFabricRole>(cfg, t);
  }
  std::unique_ptr<HostAgents> make_hosts(const std::string&, const Config&, Switch&) const override {
    throw InputError("hosts.model = a2tp runs on a network (network.topology leaf_spine with network.leaves 1 and "
                     "network.spines 0, or a topology file with one switch)");
  }

 private:
  A2tpControl control_;
};

}  // namespace

FS_PROTOCOL(A2tp);

}  // namespace fs
