// Fixtures the in-network allreduce tests share: a three-level topology whose members' centre
// is one core switch, and a recorder of every frame a switch sends to a host.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "network/network.h"
#include "network/topology.h"

namespace fs_tb {

// core, agg0-1 (ports 0-1 down, 2 up), leaf0-3 (ports 0-1 hosts, 2 up), hosts h0-h7 two per
// leaf: the members' centre is core alone (two hops from every leaf; an agg is three from the
// far leaves), so a tree has three levels.
inline fs::Topology three_levels() {
  std::string text = "switch core ports=2\nswitch agg0 ports=3\nswitch agg1 ports=3\n";
  for (unsigned l = 0; l < 4; ++l) text += "switch leaf" + std::to_string(l) + " ports=3\n";
  for (unsigned h = 0; h < 8; ++h) text += "host h" + std::to_string(h) + "\n";
  for (unsigned a = 0; a < 2; ++a) {
    text += "link agg" + std::to_string(a) + ":2 core:" + std::to_string(a) + "\n";
    for (unsigned i = 0; i < 2; ++i)
      text += "link agg" + std::to_string(a) + ":" + std::to_string(i) + " leaf" + std::to_string(2 * a + i) + ":2\n";
  }
  for (unsigned h = 0; h < 8; ++h)
    text += "link leaf" + std::to_string(h / 2) + ":" + std::to_string(h % 2) + " h" + std::to_string(h) + "\n";
  return fs::parse_topology_text(text, "three.topo");
}

// Appends every frame a switch of `net` (built on `t`, which must outlive the run) sends to a
// host to (*to_hosts)[host], in departure order.
inline void record_frames_to_hosts(fs::Network& net, const fs::Topology& t,
                                   std::map<unsigned, std::vector<fs::Bytes>>* to_hosts) {
  const auto peers = t.peers();
  const auto switches = t.switches();
  for (size_t i = 0; i < switches.size(); ++i)
    net.switch_at(i).on_departure([to_hosts, &t, peers, node = switches[i]](unsigned port, fs::Picos, const fs::Packet& p) {
      const fs::PortPeer& far = peers[node][port];
      if (far.node >= 0 && t.nodes[size_t(far.node)].host) (*to_hosts)[t.nodes[size_t(far.node)].host_index].push_back(p.data);
    });
}

}  // namespace fs_tb
