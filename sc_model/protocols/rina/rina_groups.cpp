// Rina's groups (see rina_groups.h).
#include "protocols/rina/rina_groups.h"

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

namespace fs {

namespace {

// For each switch (Topology::switches() order), the hosts nearest it: those at the least number
// of hops from it (its own hosts for a switch that has some; a fat tree's aggregation switch its
// pod's, a core every host).
std::vector<std::set<unsigned>> nearest_hosts(const Topology& t) {
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  std::vector<std::set<unsigned>> out;
  for (unsigned node : t.switches()) {
    std::vector<int> dist(t.nodes.size(), -1);
    std::deque<unsigned> todo{node};
    dist[node] = 0;
    int least = -1;
    std::set<unsigned> near;
    while (!todo.empty()) {
      const unsigned n = todo.front();
      todo.pop_front();
      if (least >= 0 && dist[n] > least) break;
      if (t.nodes[n].host) {
        least = dist[n];
        near.insert(t.nodes[n].host_index);
        continue;  // hosts forward nothing
      }
      for (const PortPeer& p : peers[n])
        if (p.node >= 0 && dist[size_t(p.node)] < 0) dist[size_t(p.node)] = dist[n] + 1, todo.push_back(unsigned(p.node));
    }
    out.push_back(std::move(near));
  }
  return out;
}

}  // namespace

std::vector<RinaGroup> rina_groups(const Topology& t, const std::vector<unsigned>& members,
                                   const std::vector<bool>& failed) {
  const std::vector<std::vector<PortPeer>> peers = t.peers();
  const std::vector<unsigned> hosts = t.hosts(), switches = t.switches();
  const std::vector<std::set<unsigned>> near = nearest_hosts(t);
  const auto down = [&](unsigned r) { return r < failed.size() && failed[r]; };
  // The INA switches, those with the most members nearest them first (then in switch order).
  std::vector<std::pair<unsigned, std::vector<unsigned>>> candidates;  // (switch, its nearest members' ranks)
  for (unsigned s = 0; s < switches.size(); ++s) {
    if (t.nodes[switches[s]].kind == SwitchKind::kPlain) continue;
    std::vector<unsigned> ranks;
    for (unsigned r = 0; r < members.size(); ++r)
      if (near[s].count(members[r])) ranks.push_back(r);
    if (ranks.size() >= 2) candidates.emplace_back(s, std::move(ranks));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::vector<bool> taken(members.size(), false);
  std::vector<RinaGroup> out;
  for (const auto& [s, ranks] : candidates) {
    // A switch whose members are (some of them) in a group already, one above it or beside it
    // with the same members, makes none; nor does one whose agent failed or that has a single
    // member left: its members join the groups of switches below it, or run autonomously.
    if (std::any_of(ranks.begin(), ranks.end(), [&](unsigned r) { return taken[r]; })) continue;
    std::vector<unsigned> live;
    for (unsigned r : ranks)
      if (!down(r)) live.push_back(r);
    if (down(ranks[0]) || live.size() < 2) continue;
    RinaGroup g;
    g.ina = true;
    g.tor = s;
    for (unsigned r : ranks) {
      taken[r] = true;
      g.above_racks |= unsigned(peers[hosts[members[r]]][0].node) != switches[s];
    }
    g.ranks = live;
    out.push_back(g);
  }
  for (unsigned r = 0; r < members.size(); ++r)
    if (!taken[r] && !down(r)) {
      RinaGroup g;
      g.ranks = {r};
      out.push_back(g);
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
