// The netreduce protocol (NetReduce: in-network aggregation transparent to RoCEv2) as a flaresim
// plug-in: its configuration section (netreduce.*), the netreduce handler set and its control
// plane, its host models (network runs only): netreduce, a ring of RDMA workers whose rack
// switch aggregates, and roce_ring, the host ring allreduce over the same transport, and its
// network role (netreduce_allreduce.h).
#include "common/errors.h"
#include "plugin/protocol.h"
#include "protocols/netreduce/netreduce_allreduce.h"
#include "protocols/netreduce/netreduce_config.h"
#include "protocols/netreduce/netreduce_setup.h"

extern "C" const fs_handler_set_desc_t netreduce_handler_set;

namespace fs {
namespace {

class NetReduce : public Protocol {
 public:
  std::string name() const override { return "netreduce"; }
  std::string doc() const override {
    return "NetReduce: in-network aggregation of a ring allreduce's RDMA writes, transparent to RoCEv2: connection "
           "lookup table, aggregators per message and packet, go-back-N hosts (NetReduce 3)";
  }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kNetReduceSection, NetReduceConfig{}, netreduce_config_keys()}};
  }
  std::vector<HandlerSetSpec> handler_sets() const override { return {{&netreduce_handler_set, &control_}}; }
  std::vector<KeyChoice> host_models() const override {
    return {{kNetReduceModel, "on a network: hosts.members form a ring of RDMA workers (netreduce.*), each writing its "
                              "hosts.bytes of int32 gradients in messages to its successor; their switch aggregates "
                              "them (NetReduce)"},
            {kRoceRingModel, "on a network: hosts.members run the ring allreduce of hosts.bytes of int32 over RDMA "
                             "writes (NetReduce's baseline, the same transport and netreduce.mtu)"}};
  }
  std::vector<std::string> network_only_host_models() const override { return {kNetReduceModel, kRoceRingModel}; }
  std::unique_ptr<NetworkRole> network_role(const Config& cfg, const Topology& t) const override {
    return std::make_unique<NetReduceFabricRole>(cfg, t);
  }
  std::unique_ptr<HostAgents> make_hosts(const std::string& model, const Config&, Switch&) const override {
    throw InputError("hosts.model = " + model + " runs on a network (network.topology leaf_spine, fat_tree, fat_tree3, dragonfly or file; "
                     "one rack is a file with one switch, or leaf_spine with one leaf)");
  }

 private:
  NetReduceControl control_;
};

}  // namespace

FS_PROTOCOL(NetReduce);

}  // namespace fs
