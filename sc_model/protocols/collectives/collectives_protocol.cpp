// The host baselines in-network allreduces are compared with (Rina §VI-A4) as a flaresim plug-in:
// hosts.model ps (a parameter server, co-located: every member serves one shard) and
// hierarchical_ring (H-AR: reduce-scatter in each rack, a ring allreduce of each shard across the
// racks, allgather in each rack), run by the schedule engine (collective.h, schedules.h) on a
// network's members. No handler set: the switches only forward.
#include <map>

#include "common/errors.h"
#include "plugin/protocol.h"
#include "protocols/collectives/collective.h"
#include "protocols/collectives/collectives_config.h"
#include "protocols/collectives/schedules.h"

namespace fs {
namespace {

constexpr const char* kPs = "ps";
constexpr const char* kHierarchical = "hierarchical_ring";

// The members' racks (the members behind each switch, in rank order), racks in the order of
// their first rank; InputError unless every rack has as many members.
std::vector<std::vector<unsigned>> racks_of(const Topology& t, const std::vector<unsigned>& members) {
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<unsigned> hosts = t.hosts();
  std::map<int, std::vector<unsigned>> by_switch;
  std::vector<int> order;
  for (unsigned r = 0; r < members.size(); ++r) {
    const int sw = peers[hosts[members[r]]][0].node;
    if (!by_switch.count(sw)) order.push_back(sw);
    by_switch[sw].push_back(r);
  }
  std::vector<std::vector<unsigned>> racks;
  for (int sw : order) racks.push_back(by_switch[sw]);
  for (const auto& rack : racks)
    if (rack.size() != racks[0].size())
      throw InputError("hosts.members: hosts.model hierarchical_ring needs as many members behind every switch (" +
                       std::to_string(racks[0].size()) + " behind " + t.nodes[size_t(order[0])].name + ", " +
                       std::to_string(rack.size()) + " behind another)");
  return racks;
}

class CollectivesRole : public NetworkRole {
 public:
  CollectivesRole(const Config& cfg, const Topology& t) : cfg_(cfg) {
    if (cfg.hosts.model != kPs && cfg.hosts.model != kHierarchical) return;
    members_ = member_hosts(cfg.hosts.members, unsigned(t.hosts().size()));
    if (cfg.hosts.groups != 1) throw InputError("hosts.groups: hosts.model " + cfg.hosts.model + " runs one allreduce");
    if (cfg.hosts.elem_bytes % 4) throw InputError("hosts.elem_bytes: " + std::to_string(cfg.hosts.elem_bytes) + " is not a multiple of 4");
    if (cfg.hosts.model == kHierarchical) racks_ = racks_of(t, members_);
  }
  void configure_switch(unsigned, Config&) const override {}
  std::unique_ptr<NetworkAllreduce> attach(Network& net) const override {
    if (cfg_.hosts.model != kPs && cfg_.hosts.model != kHierarchical) return nullptr;
    const uint64_t per_packet = cfg_.hosts.elem_bytes / 4, elements = cfg_.hosts.bytes / 4;
    const uint64_t blocks = (elements + per_packet - 1) / per_packet;
    CollectiveSchedule s = cfg_.hosts.model == kPs ? ps_schedule(unsigned(members_.size()), blocks)
                                                   : hierarchical_schedule(racks_, blocks);
    return std::make_unique<Collective>(cfg_.hosts.model.c_str(), cfg_, net, members_, cfg_.hosts.model, std::move(s));
  }

 private:
  Config cfg_;
  std::vector<unsigned> members_;
  std::vector<std::vector<unsigned>> racks_;
};

class Collectives : public Protocol {
 public:
  std::string name() const override { return "collectives"; }
  std::string doc() const override {
    return "host baselines: a co-located parameter server (ps) and the hierarchical ring allreduce "
           "(hierarchical_ring), run on a network's members";
  }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kCollectivesSection, CollectivesConfig{}, collectives_config_keys()}};
  }
  std::vector<KeyChoice> host_models() const override {
    return {{kPs, "on a network: a parameter server co-located with the members, each serving one shard (int32 sums)"},
            {kHierarchical, "on a network: the hierarchical ring allreduce (H-AR): reduce-scatter in each rack, a ring "
                            "allreduce of each shard across the racks, allgather in each rack (int32 sums)"}};
  }
  std::vector<std::string> network_only_host_models() const override { return {kPs, kHierarchical}; }
  std::unique_ptr<NetworkRole> network_role(const Config& cfg, const Topology& t) const override {
    return std::make_unique<CollectivesRole>(cfg, t);
  }
  std::unique_ptr<HostAgents> make_hosts(const std::string& model, const Config&, Switch&) const override {
    throw InputError("hosts.model = " + model + " runs on a network (network.topology leaf_spine, fat_tree, "
                     "fat_tree3, dragonfly or file)");
  }
};

}  // namespace

FS_PROTOCOL(Collectives);

}  // namespace fs
