// A Rina training job on a network's hosts (hosts.model rina, Rina §IV-B): the members
// (hosts.members, in rank order) train data-parallel, each iteration computing (the model's
// time) and then reducing their int32 gradients with Rina's ring allreduce over groups
// (rina_groups.h): racks behind an INA switch run as one group through their agent and switch,
// the other members as autonomous workers.
//
// An iteration's chunk c goes around the ring (rina_proto.h): at its steps 1 .. G each group adds
// its gradients to the partial sum and sends it on to the next group's entry (its agent, or the
// autonomous worker). In an INA group the agent sends its switch a TASK for the step, at the
// start for its own chunk (step 1) and otherwise on the first packet of the partial sum that
// comes to it; the switch pulls the rack, every member sends its GRAD packets, the agent's
// holding the partial sum it got, and the switch's sum goes on. An autonomous worker adds its own
// packet to each packet of a partial sum it gets and sends it on. The complete sum (step G) is
// multicast to the completing rack and handed on from group to group (steps G + 1 .. 2G - 1),
// each INA switch multicasting it to its rack.
//
// A GRAD names the switch's slot x mod rina.aggregators, x = (iteration G + step - 1) P + packet
// (P: the most packets a chunk has), and a member sends x only once x - S is acknowledged, so no
// two open sums share a slot. Every sender (a member sending GRADs, an autonomous worker sending
// DATA) paces its packets at its full speed (rina.rate_gbps, the INA switches' aggregation rate,
// or its link's) and keeps no more unacknowledged than its window (rina_window.h: AIMD on the
// ACKs up to full speed; one window for ScatterReduce, starting at rina.window, one for handing
// complete sums on, starting at 1, Rina §IV-C1); an entry ACKs every DATA to its sender, with ECE
// if it arrived ECN-marked, an INA switch multicasting the ACK of its sum to its rack. An ACK
// covers a row of packets of one sender's stream (rina.ack_every at most, or what came within
// rina.ack_delay_ns of the row's first). Lossless
// links are assumed: nothing is sent again, and a run that loses a packet ends unfinished, saying
// so.
//
// Failures (rina.failed, Rina §IV-C2), at iteration boundaries: a member that fails takes no part
// from that iteration on, and the ring of every iteration is made of the members still up
// (rina_groups.h): a rack whose agent failed runs as autonomous workers, one that lost a worker
// runs without it, its agent excluding it; the sums are of the members up.
//
// Every member checks every packet of every chunk's sum against the sum worked out here from
// the generated gradients, and counts each delivery (each packet reaches each member once). The
// stats say the ring's groups and steps, each group's steps in the first iteration (which chunk,
// and when its entry began it: steps overlap, packet by packet), and the job's iteration time and
// training throughput (rina.batch samples a member an iteration).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "config/config.h"
#include "network/allreduce_run.h"
#include "network/network.h"
#include "network/traffic.h"
#include "plugin/protocol.h"
#include "protocols/rina/rina_groups.h"
#include "rina/rina_proto.h"

namespace fs {

constexpr const char* kRinaModel = "rina";
static_assert(RINA_UDP_PORT_DEFAULT != kTrafficUdpPort, "rina's frames share a host's UDP port");

// What the job needs of its set-up (rina.packet_bytes, the dtype, the groups' sizes, the slots,
// the workload); InputError naming the key.
void rina_check_setup(const Config& cfg, const std::vector<RinaGroup>& groups);

// rina.failed: each member's (by rank) first iteration it is down in, past the last
// (iterations + 1) for those that never fail; InputError naming the key and the entry.
std::vector<unsigned> rina_failures(const std::string& text, const std::vector<unsigned>& members, unsigned iterations);

struct RinaCounts {
  uint64_t tasks = 0;          // TASKs the agents sent
  uint64_t pulls = 0;          // PULLs the members took
  uint64_t grads = 0;          // GRAD packets the members sent
  uint64_t data = 0;           // DATA packets the autonomous workers sent
  uint64_t acks = 0;           // ACKs the entries sent
  uint64_t deliveries = 0;     // packets of a chunk's complete sum the members took
  uint64_t duplicate_deliveries = 0;
  uint64_t failed = 0;     // members that failed (rina.failed)
  uint64_t to_failed = 0;  // packets that reached a failed member's host
};

class RinaJobs : public sc_core::sc_module, public NetworkAllreduce {
 public:
  SC_HAS_PROCESS(RinaJobs);
  // On the hosts `members`; InputError naming the key for a set-up the job cannot run.
  RinaJobs(sc_core::sc_module_name name, const Config& cfg, Network& net, const std::vector<unsigned>& members);
  ~RinaJobs() override;

  AllreduceStats stats() const override;
  std::string failure() const override;

  const RinaRing& ring(unsigned iteration) const { return rings_.at(iteration); }
  int32_t value(unsigned iteration, unsigned rank, uint64_t element) const;
  unsigned live_iterations(unsigned rank) const;  // the iterations the member takes part in

 private:
  class Member;
  friend class Member;
  void check(unsigned iteration, unsigned rank, unsigned c, uint32_t j, const std::vector<int32_t>& got);
  void iteration_began(unsigned iteration, Picos compute_start);
  void iteration_done(unsigned iteration);
  void step_began(unsigned group, unsigned iteration, unsigned c, unsigned s);
  const std::vector<int32_t>& sum_of(unsigned iteration);
  uint64_t window_cuts() const;  // the members' windows halved by ECN

  const Config cfg_;
  Network& net_;
  std::vector<unsigned> hosts_;  // by rank
  std::vector<unsigned> fails_at_;  // by rank: the first iteration it is down in
  std::vector<RinaRing> rings_;     // by iteration
  std::vector<uint64_t> first_ordinal_, first_index_;  // by iteration: its first summing step's ordinal and GRAD x
  uint64_t values_seed_ = 0;
  unsigned per_packet_ = 0, iterations_ = 0, window_ = 0, slots_ = 0, ack_every_ = 1;
  Picos ack_delay_ = 0;
  Picos compute_ = 0;
  double batch_ = 0, rate_gbps_ = 0;
  std::vector<std::unique_ptr<Member>> members_;
  std::vector<Picos> began_, ended_;  // per iteration: the first compute start (kNever: none yet), the last result
  // Per group, the steps it began in the first iteration: (step, chunk, when its first packet came).
  std::vector<std::vector<std::tuple<unsigned, unsigned, Picos>>> sequence_;
  std::vector<int32_t> sum_;  // the reduction of the iteration sum_iteration_ (worked out on demand)
  int sum_iteration_ = -1;
  RinaCounts counts_;
  AllreduceStats base_;
  Picos done_at_ = 0;
  uint64_t wrong_ = 0;
  std::string first_problem_;
};

}  // namespace fs
