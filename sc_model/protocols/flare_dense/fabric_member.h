// A member host of an in-network allreduce on static reduction trees across a network (Flare
// dense's and sparse's): the send loop of block_window_host.h with block states shared per tree
// (block b goes to tree b mod N), on network host `host`, which takes what its switch sends to
// Flare's UDP port (accept) and hands the frames it sends to its NIC at line rate.
#pragma once
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "common/sc_time_util.h"
#include "flare/flare_proto.h"
#include "network/network.h"
#include "network/reduction_tree.h"
#include "protocols/flare_dense/block_window_host.h"

namespace fs {

class FabricMember : public BlockWindowHost, public PacketSinkIf {
 protected:
  // `sharing`: tree_sharing_distances() of the trees; `rank_in_tree`: host_ranks() of the host.
  FabricMember(sc_core::sc_module_name name, const HostsConfig& cfg, unsigned rank, unsigned members, uint64_t blocks,
               const std::vector<std::vector<uint64_t>>& sharing, Picos* done_at, Network& net, unsigned host,
               std::vector<uint16_t> rank_in_tree)
      : BlockWindowHost(name, cfg, rank, members, blocks, unsigned(nearest_sharing(sharing)), done_at),  // staggering
        net_(net),
        host_(host),
        rank_in_tree_(std::move(rank_in_tree)) {
    share_by_tree(sharing);
    net.host(host).bind_udp(FLARE_UDP_PORT_DEFAULT, this);
    net.join_allreduce(1);
  }

  unsigned tree_of(uint64_t block) const { return unsigned(block % rank_in_tree_.size()); }
  uint16_t rank_in(unsigned tree) const { return rank_in_tree_[tree]; }  // among its switch's children
  // Hands `frame` to the NIC and waits while the NIC sends it; *bytes_sent grows by its size.
  void send_frame(Bytes frame, uint64_t* bytes_sent) {
    HostPort& port = net_.host(host_);
    const Picos wire = port.nic().params().wire_time_of(frame.size());
    *bytes_sent += frame.size();
    auto p = std::make_shared<Packet>();
    p->data = std::move(frame);
    port.send(std::move(p));
    wait(ps_time(wire));
  }

  Network& net_;
  const unsigned host_;

 private:
  void all_done() override { net_.member_done(); }

  std::vector<uint16_t> rank_in_tree_;
};

// Which blocks share a state, as share_by_tree takes it: tree_sharing_distances() of the block
// states each switch of each tree holds for the tree's allreduce (id first_id + t), which
// `states_per_cluster(sw, id)` reads from the switch's installed tables (0: none for that id).
inline std::vector<std::vector<uint64_t>> fabric_sharing(
    Network& net, const std::vector<ReductionTree>& trees, uint64_t first_id,
    const std::function<uint64_t(Switch&, uint64_t)>& states_per_cluster) {
  std::vector<std::vector<uint64_t>> states(trees.size());
  for (size_t t = 0; t < trees.size(); ++t)
    for (size_t i = 0; i < net.switch_count(); ++i)
      if (trees[t].switches[i].in_tree) {
        Switch& sw = net.switch_at(i);
        if (const uint64_t s = states_per_cluster(sw, first_id + t)) states[t].push_back(s * sw.config().pspin.clusters);
      }
  return tree_sharing_distances(states);
}

}  // namespace fs
