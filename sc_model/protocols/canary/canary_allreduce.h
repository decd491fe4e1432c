// Canary's hosts on a network (hosts.model = canary): hosts.members, cut into hosts.groups
// groups of consecutive ranks (group g is application canary.app + g), each run an allreduce of
// hosts.bytes of int32 sums. A group's data is cut into blocks of hosts.elem_bytes (one packet,
// at most CANARY_ELEMENTS elements, Canary 5); block b's leader is the group's rank b mod n
// (3.1.4), and its id is canary_id(app, attempt x blocks + b).
//
// A host that does not lead block b sends its packet (counter 1, hosts n, destination the
// leader) in block order at line rate, noise aside (canary.noise), and waits for the result. If
// none comes within hosts.timeout_ns it asks the leader to retransmit (a bypass packet with
// counter 0 and no data) and waits again (3.3). A leader folds what reaches it (the root
// switch's aggregate, stragglers, packets bypassed by collisions) with its own data; once the
// counters add up to n - 1 it sends the result to its switch as a broadcast (multicast bit) and
// a restoration packet to every (switch, port) a collision was reported from (3.2.1). To a
// request it answers with the result if it has it, else with a failure: a failure broadcast
// down the tree and to the requester (counter 0, no data), after which every host sends the
// block again under the next attempt's id. After canary.max_attempts ids the block is reduced
// through the leader alone: hosts send their data as bypass packets, again on each timeout, and
// the leader answers each with the result (its fallback, 3.3).
//
// Every result is checked against the reduction computed here from the workload. The hosts'
// work takes no simulated time: the network is what is measured.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "canary/canary_proto.h"
#include "config/config.h"
#include "network/allreduce_run.h"
#include "network/network.h"
#include "network/traffic.h"
#include "plugin/protocol.h"

namespace fs {

constexpr const char* kCanaryModel = "canary";
static_assert(CANARY_UDP_PORT_DEFAULT != kTrafficUdpPort, "Canary's frames share a host's UDP port");
// A host sends at most this many retransmission requests (or fallback sends) for one attempt of
// a block without an answer, then gives the block up.
constexpr unsigned kCanaryMaxRequests = 16;

// What the hosts did, beyond the AllreduceStats every model reports (its details).
struct CanaryHostCounts {
  uint64_t requests = 0;         // retransmission requests
  uint64_t results_resent = 0;   // results a leader sent again to one host
  uint64_t failures = 0;         // failure broadcasts: a block tried again under a new id
  uint64_t fallback_blocks = 0;  // blocks reduced through the leader alone (canary.max_attempts failures)
  uint64_t leader_packets = 0;   // data packets the leaders took in (the ideal: one per block)
  uint64_t collisions = 0;       // of them, bypassed by a collision
  uint64_t restorations = 0;     // restoration packets the leaders sent
  uint64_t noise_delays = 0;     // packets a host delayed by canary.noise_ns
  uint64_t late_packets = 0;     // data for an attempt the leader was no longer collecting
  uint64_t duplicate_results = 0;  // results a host already had
};

// InputError naming the key for a set-up the hosts cannot run with `members` members.
void check_canary_setup(const Config& cfg, size_t members);

class CanaryAllreduce : public sc_core::sc_module, public NetworkAllreduce {
 public:
  // On the hosts `members`; InputError naming the key for a workload it cannot run.
  CanaryAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net, const std::vector<unsigned>& members);
  ~CanaryAllreduce() override;

  AllreduceStats stats() const override;
  std::string failure() const override;
  const CanaryHostCounts& counts() const { return counts_; }

  uint64_t blocks() const { return blocks_; }
  unsigned elements(uint64_t block) const;  // in block `block` (the last may have fewer)
  // Element i of block b of the rank-r host of group g, and the reduction of its group.
  int32_t value(unsigned group, unsigned rank, uint64_t block, unsigned i) const;
  std::vector<int32_t> reduction(unsigned group, uint64_t block) const;

 private:
  class Member;
  friend class Member;
  struct Group {
    unsigned app = 0;
    std::vector<unsigned> hosts;  // by rank
    unsigned done = 0;            // members with every result
    Picos done_at = 0;            // when the last of them got its last
  };
  // The reduction of block b of group g, computed once and kept until all its members took it.
  const std::vector<int32_t>& reference(unsigned group, uint64_t block);
  void release_reference(unsigned group, uint64_t block);
  void check(unsigned host, unsigned group, uint64_t block, const std::vector<int32_t>& got);

  Network& net_;
  uint64_t bytes_ = 0, blocks_ = 0;
  unsigned per_packet_ = 0;  // elements of a full block
  unsigned max_attempts_ = 0;
  Picos timeout_ = 0, noise_delay_ = 0;
  double noise_ = 0;
  uint64_t seed_ = 0, values_seed_ = 0;
  std::vector<Group> groups_;
  std::vector<std::unique_ptr<Member>> members_;
  struct Reference {
    std::vector<int32_t> values;
    unsigned takers = 0;
  };
  std::map<std::pair<unsigned, uint64_t>, Reference> references_;
  Picos done_at_ = 0;
  AllreduceStats base_;
  CanaryHostCounts counts_;
  uint64_t wrong_ = 0;
  std::string first_problem_;
};

// Canary's part in a network run: switch i is Canary switch i + 1 (canary.switch_address, its
// fs_fabric_switch_ipv4 address), and with hosts.model = canary the members run CanaryAllreduce.
class CanaryFabricRole : public NetworkRole {
 public:
  // InputError for a bad member list.
  CanaryFabricRole(const Config& cfg, const Topology& t);
  void configure_switch(unsigned index, Config& c) const override;
  std::unique_ptr<NetworkAllreduce> attach(Network& net) const override;

 private:
  Config cfg_;
  std::vector<unsigned> members_;
};

}  // namespace fs
