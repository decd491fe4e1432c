// Rina's groups (see rina_groups.h).
#include "protocols/rina/rina_groups.h"

#include <algorithm>
#include <map>

namespace fs {

std::vector<RinaGroup> rina_groups(const Topology& t, const std::vector<unsigned>& members) {
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<unsigned> hosts = t.hosts(), switches = t.switches();
  std::map<unsigned, std::vector<unsigned>> racks;  // a switch node's members' ranks
  for (unsigned r = 0; r < members.size(); ++r) racks[unsigned(peers[hosts[members[r]]][0].node)].push_back(r);
  std::vector<RinaGroup> out;
  for (const auto& [node, ranks] : racks) {
    if (t.nodes[node].kind != SwitchKind::kPlain && ranks.size() >= 2) {
      RinaGroup g;
      g.ina = true;
      g.tor = unsigned(std::find(switches.begin(), switches.end(), node) - switches.begin());
      g.ranks = ranks;
      out.push_back(g);
      continue;
    }
    for (unsigned r : ranks) {
      RinaGroup g;
      g.ranks = {r};
      out.push_back(g);
    }
  }
  std::sort(out.begin(), out.end(), [](const RinaGroup& a, const RinaGroup& b) { return a.ranks[0] < b.ranks[0]; });
  return out;
}

}  // namespace fs
