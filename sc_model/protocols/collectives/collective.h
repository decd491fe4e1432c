// A host-based collective on a network's members, run from a schedule of transfers: the engine of
// the host baselines in-network allreduces are compared with (the parameter server and the
// hierarchical ring allreduce, schedules.h). Every member holds a vector of int32 values (drawn
// from the run's seed as the other int32 models draw theirs); the vector is cut into blocks of
// hosts.elem_bytes, one packet each. A transfer sends a run of blocks from one member to another,
// which adds them into its vector (reduce) or copies them over it (copy). A transfer's block goes
// once, for every transfer of the schedule it waits for whose blocks hold that block, that
// transfer's block has reached the sender: so a block is forwarded as soon as its part is in,
// pipelined packet by packet, as the ring allreduce pipelines. A member sends its ready blocks
// taking its transfers in turn, paced at its link's rate; each transfer keeps at most
// collectives.window packets unacknowledged, and the receiver acknowledges blocks cumulatively,
// every half window and at the transfer's end (a transfer's packets take one path and come in
// order). Lossless links are assumed: nothing is sent again, and a run that loses a packet ends
// saying the collective did not complete. When every transfer into a member has arrived, its
// vector must be the sum of every member's: checked exactly.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "network/allreduce_run.h"
#include "network/network.h"
#include "network/traffic.h"

namespace fs {

constexpr uint16_t kCollectiveUdpPort = 5204;
static_assert(kCollectiveUdpPort != kTrafficUdpPort, "the collectives share a host's UDP ports with background traffic");

struct CollectiveTransfer {
  unsigned from = 0, to = 0;          // ranks
  uint64_t first_block = 0, blocks = 0;
  bool reduce = true;                 // the receiver adds them in; else copies them over its own
  std::vector<unsigned> after;        // transfers (indices) into `from` it waits for, block by block
};

// What a schedule is: its transfers, and its steps (the longest chain of transfers each waiting
// for the one before: the ring's 2(N - 1)).
struct CollectiveSchedule {
  std::vector<CollectiveTransfer> transfers;
  unsigned steps = 0;
};

class Collective : public sc_core::sc_module, public NetworkAllreduce {
 public:
  SC_HAS_PROCESS(Collective);
  // `model` names it in the stats; `schedule` over the ranks of `members` (hosts) and
  // `blocks` blocks. InputError for a transfer the schedule cannot have (logic_error: a bug).
  Collective(sc_core::sc_module_name name, const Config& cfg, Network& net, const std::vector<unsigned>& members,
             const std::string& model, CollectiveSchedule schedule);
  ~Collective() override;

  AllreduceStats stats() const override;
  std::string failure() const override;

 private:
  class Member;
  friend class Member;
  int32_t value(unsigned rank, uint64_t element) const;
  uint64_t block_elements(uint64_t block) const;
  void check(unsigned rank, const std::vector<int32_t>& got);

  const Config cfg_;
  Network& net_;
  std::vector<unsigned> hosts_;
  std::string model_;
  CollectiveSchedule schedule_;
  uint64_t elements_ = 0, values_seed_ = 0;
  unsigned per_packet_ = 0, window_ = 0;
  std::vector<std::unique_ptr<Member>> members_;
  std::vector<uint32_t> sum_;  // every member's values summed (worked out at the first check)
  AllreduceStats base_;
  Picos done_at_ = 0;
  uint64_t wrong_ = 0;
  std::string first_problem_;
};

}  // namespace fs
