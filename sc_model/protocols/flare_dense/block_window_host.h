// The send loop of a closed-loop allreduce host, shared by the Flare dense and sparse hosts: the
// host sends its blocks in the order of allreduce_timing.h (staggered if hosts.stagger), never
// more than hosts.window in flight and never block b before block b - T is done (T: the block
// states the switch has for the allreduce, which share a state; a host whose blocks meet
// several switches says which blocks share, state_free); a block whose result is not
// back within hosts.timeout_ns of its send is sent again, and given up after kMaxSendAttempts
// sends. The protocol's host puts a block's packets on the link (send_block) and says when a
// block's whole result is back (result_complete).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <systemc>

#include "common/units.h"
#include "config/config.h"

namespace fs {

class BlockWindowHost : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(BlockWindowHost);
  // `blocks` blocks; `states` = T (0: not known); *done_at is raised to when this host finished.
  BlockWindowHost(sc_core::sc_module_name name, const HostsConfig& cfg, unsigned rank, unsigned hosts,
                  uint64_t blocks, unsigned states, Picos* done_at);

  uint64_t sends = 0, retransmissions = 0, completed = 0, max_in_flight = 0;
  uint64_t gave_up = 0;  // blocks abandoned after kMaxSendAttempts sends without a result

 protected:
  // Puts the block's packets on the link (the thread may wait); it is sent again unless its
  // result is complete within the timeout after send_block returns.
  virtual void send_block(uint32_t block) = 0;
  // The host is done with the block (result complete, or given up): drop what it kept of it.
  virtual void forget(uint32_t /*block*/) {}
  // The host is done with every block (its last result, or its last block given up).
  virtual void all_done() {}
  bool in_flight(uint32_t block) const { return in_flight_.count(block) != 0; }
  // Whether the block's state is free at every switch it meets: no block sharing it is
  // unfinished. On one switch, block - T is finished (T = `states`, 0: no rule); with
  // share_by_tree, block - d is for every distance d of its tree.
  bool state_free(uint64_t block) const;
  // Blocks go to trees round-robin (block b to tree b mod N) and share states at each switch of
  // a tree: `distances[t]` lists, per switch of tree t, the distance lcm(C S, N) to the next block
  // sharing its state there (C clusters, S states per cluster for the tree's allreduce).
  void share_by_tree(std::vector<std::vector<uint64_t>> distances) { by_tree_ = std::move(distances); }
  // The block's whole result is back (a block not in flight is ignored).
  void result_complete(uint32_t block);

  const HostsConfig cfg_;
  const unsigned rank_;

 private:
  void run();
  void send(uint32_t block);
  void finish(uint32_t block);  // block + T may go

  const unsigned hosts_;
  const uint64_t blocks_;
  const unsigned states_;
  const uint64_t group_;  // staggering happens within groups of this many blocks
  std::vector<std::vector<uint64_t>> by_tree_;  // share_by_tree's distances; empty: one switch
  Picos* done_at_;
  std::set<uint32_t> in_flight_;
  std::vector<bool> finished_;         // by block: result back or given up
  void clear_due(uint32_t block);       // the block is not to be sent again (now)
  std::map<uint32_t, Picos> due_;      // in-flight block -> when to send it again
  std::set<std::pair<Picos, uint32_t>> by_due_;  // the same, earliest first
  std::map<uint32_t, unsigned> sent_;  // unfinished block -> sends so far
  sc_core::sc_event got_result_;
};

// share_by_tree's distances from the block states at each switch of each tree: `states[t]` has,
// per switch of tree t, its C S for the tree's allreduce; distances are lcm(C S, N), N trees,
// each listed once.
std::vector<std::vector<uint64_t>> tree_sharing_distances(const std::vector<std::vector<uint64_t>>& states);
// The least of them (staggering's group size); 0 when there are none.
uint64_t nearest_sharing(const std::vector<std::vector<uint64_t>>& distances);

}  // namespace fs
