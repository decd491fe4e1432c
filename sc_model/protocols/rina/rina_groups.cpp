// Rina's groups (see rina_groups.h).
#include "protocols/rina/rina_groups.h"

#include <algorithm>
#include <map>

namespace fs {

std::vector<RinaGroup> rina_groups(const Topology& t, const std::vector<unsigned>& members,
                                   const std::vector<bool>& failed) {
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<unsigned> hosts = t.hosts(), switches = t.switches();
  std::map<unsigned, std::vector<unsigned>> racks;  // a switch node's members' ranks
  for (unsigned r = 0; r < members.size(); ++r) racks[unsigned(peers[hosts[members[r]]][0].node)].push_back(r);
  const auto down = [&](unsigned r) { return r < failed.size() && failed[r]; };
  std::vector<RinaGroup> out;
  for (const auto& [node, ranks] : racks) {
    std::vector<unsigned> live;
    for (unsigned r : ranks)
      if (!down(r)) live.push_back(r);
    const bool ina = t.nodes[node].kind != SwitchKind::kPlain && ranks.size() >= 2;
    if (ina && !down(ranks[0]) && live.size() >= 2) {
      RinaGroup g;
      g.ina = true;
      g.tor = unsigned(std::find(switches.begin(), switches.end(), node) - switches.begin());
      g.ranks = live;
      out.push_back(g);
      continue;
    }
    for (unsigned r : live) {
      RinaGroup g;
      g.ranks = {r};
      out.push_back(g);
    }
  }
  std::sort(out.begin(), out.end(), [](const RinaGroup& a, const RinaGroup& b) { return a.ranks[0] < b.ranks[0]; });
  return out;
}

RinaRing::RinaRing(std::vector<RinaGroup> g, size_t ranks, uint64_t elements_, unsigned per_packet_)
    : groups(std::move(g)), group_of_rank(ranks, -1), elements(elements_), per_packet(per_packet_) {
  for (unsigned k = 0; k < groups.size(); ++k)
    for (unsigned r : groups[k].ranks) group_of_rank[r] = int(k);
  for (unsigned c = 0; c < groups.size(); ++c) most_packets = std::max(most_packets, chunk_packets(c));
}

uint32_t RinaRing::chunk_packets(unsigned c) const {
  const uint64_t n = chunk_start(c + 1) - chunk_start(c);
  return uint32_t((n + per_packet - 1) / per_packet);
}

unsigned RinaRing::packet_elements(unsigned c, uint32_t j) const {
  const uint64_t n = chunk_start(c + 1) - chunk_start(c);
  return unsigned(std::min<uint64_t>(per_packet, n - uint64_t(j) * per_packet));
}

uint64_t RinaRing::packets() const {
  uint64_t n = 0;
  for (unsigned c = 0; c < groups.size(); ++c) n += chunk_packets(c);
  return n;
}

}  // namespace fs
