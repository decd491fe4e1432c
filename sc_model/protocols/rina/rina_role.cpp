// Rina's part in a network run (see rina_role.h).
#include "protocols/rina/rina_role.h"

#include <algorithm>
#include <map>

#include "common/errors.h"
#include "fs_packet.h"
#include "protocols/rina/rina_config.h"
#include "protocols/rina/rina_jobs.h"
#include "switch/router.h"

namespace fs {

RinaFabricRole::RinaFabricRole(const Config& cfg, const Topology& t) : cfg_(cfg) {
  if (cfg.hosts.model != kRinaModel) return;
  members_ = member_hosts(cfg.hosts.members, unsigned(t.hosts().size()));
  if (cfg.hosts.groups != 1)
    throw InputError("hosts.groups: hosts.model rina runs one training job (its groups are its racks)");
  const std::vector<RinaGroup> groups = rina_groups(t, members_);
  rina_check_setup(cfg, groups);
  const std::vector<unsigned> fails_at = rina_failures(rina_config(cfg).failed, members_, rina_config(cfg).iterations);
  ina_switch_.assign(t.switches().size(), false);
  routes_.assign(t.switches().size(), "");
  std::set<std::pair<unsigned, uint32_t>> routed;  // (switch, group address) with a route
  const NextHops hops = next_hops(t);
  switch_hops_ = switch_next_hops(t);
  parts_.assign(t.switches().size(), {});
  for (const RinaGroup& g : groups)
    if (g.ina) ina_switch_[g.tor] = true;  // its handler runs even once failures leave it no group
  // Every iteration's groups (failures may make new ones below a group that lost its agent).
  for (unsigned i = 0; i < rina_config(cfg).iterations; ++i) {
    std::vector<bool> down(members_.size());
    for (size_t r = 0; r < members_.size(); ++r) down[r] = fails_at[r] <= i;
    for (const RinaGroup& g : rina_groups(t, members_, down)) {
      if (!g.ina) continue;
      ina_switch_[g.tor] = true;
      if (g.above_racks) route_group(t, hops, g, routed);
    }
  }
}

// A group above racks: the switches between its switch and its members copy what it multicasts
// to them (to the group's address) on towards them, by multicast routes. Those copies must go
// down a tree: a switch reached by two of them on different ports would deliver twice.
void RinaFabricRole::route_group(const Topology& t, const NextHops& hops, const RinaGroup& g,
                                 std::set<std::pair<unsigned, uint32_t>>& routed) {
  const std::vector<unsigned> switches = t.switches();
  const uint32_t address = rina_group_ipv4(fs_host_ipv4(members_[g.ranks[0]]));
  std::map<unsigned, std::pair<int, std::set<unsigned>>> below;  // switch: (ingress port, ports out)
  for (unsigned r : g.ranks) {
    const std::vector<RouteHop> path =
        route_walk(t, hops, switches[g.tor], members_[r], cfg_.routing.multipath,
                   "hosts.model rina with an INA switch above racks needs dst, so that what the switch multicasts to "
                   "its racks follows fixed routes");
    for (size_t k = 1; k < path.size(); ++k) {
      auto [it, fresh] = below.try_emplace(path[k].sw, path[k].in, std::set<unsigned>{});
      if (!fresh && it->second.first != path[k].in)
        throw InputError("network.kinds: the routes from " + t.nodes[switches[g.tor]].name + " to the members below "
                         "it reach " + t.nodes[switches[path[k].sw]].name + " on two ports (" +
                         std::to_string(it->second.first) + " and " + std::to_string(path[k].in) +
                         "): its copies to them would not form a tree, so it cannot be their group's INA switch");
      it->second.second.insert(path[k].out);
    }
  }
  for (const auto& [sw, entry] : below) {
    if (!routed.insert({sw, address}).second) continue;
    const std::vector<unsigned> ports(entry.second.begin(), entry.second.end());
    routes_[sw] += (routes_[sw].empty() ? "" : "; ") + multicast_route(address, ports);
  }
  // The INA switches the members' GRADs pass on their way up sum them there: each its part, the
  // members whose GRADs pass it, and copies the group's packets down towards them.
  std::map<unsigned, RinaSumPart> parts;
  for (size_t m = 0; m < g.ranks.size(); ++m) {
    const std::vector<RouteHop> up = route_walk_to_switch(
        t, switch_hops_, t.hosts()[members_[g.ranks[m]]], g.tor, cfg_.routing.multipath,
        "hosts.model rina with an INA switch above racks needs dst, so that its members' GRADs follow fixed routes");
    for (const RouteHop& hop : up) {
      if (t.nodes[switches[hop.sw]].kind == SwitchKind::kPlain) continue;
      RinaSumPart& part = parts[hop.sw];
      part.group_switch = fs_fabric_switch_ipv4(g.tor + 1), part.group_address = address;
      part.mask |= 1u << m;
    }
  }
  for (auto& [sw, part] : parts) {
    const auto it = below.find(sw);
    if (it == below.end())
      throw InputError("network.kinds: " + t.nodes[switches[sw]].name + " is on its members' way up to " +
                       t.nodes[switches[g.tor]].name + " but not on that switch's way down to them: it cannot sum "
                       "their gradients for it");
    part.down.assign(it->second.second.begin(), it->second.second.end());
    std::vector<RinaSumPart>& mine = parts_[sw];
    const auto same = std::find_if(mine.begin(), mine.end(), [&](const RinaSumPart& p) {
      return p.group_switch == part.group_switch && p.group_address == part.group_address;
    });
    if (same == mine.end()) {
      mine.push_back(part);
    } else if (same->mask != part.mask || same->down != part.down) {
      throw InputError("rina.failed: the group of " + t.nodes[switches[g.tor]].name + " loses members below " +
                       t.nodes[switches[sw]].name + ", which sums their gradients for it: not modelled");
    }
  }
}

void RinaFabricRole::configure_switch(unsigned index, Config& c) const {
  if (cfg_.hosts.model != kRinaModel) return;
  rina_config(c).switch_address = index + 1;
  if (!routes_[index].empty())
    c.routing.routes += (c.routing.routes.empty() ? "" : "; ") + routes_[index];
  rina_config(c).sum_parts = parts_[index];
  if (!ina_switch_[index] && parts_[index].empty()) {
    rina_config(c).aggregators = 0;  // a switch of no group's: it only forwards
    return;
  }
  const std::string rule = "udp_dport=" + std::to_string(RINA_UDP_PORT_DEFAULT) + " -> rina";
  if (c.parser.rules.find("-> rina") == std::string::npos)
    c.parser.rules = rule + (c.parser.rules.empty() ? "" : "; " + c.parser.rules);
}

std::unique_ptr<NetworkAllreduce> RinaFabricRole::attach(Network& net) const {
  if (cfg_.hosts.model != kRinaModel) return nullptr;
  return std::make_unique<RinaJobs>("rina", cfg_, net, members_);
}

}  // namespace fs
