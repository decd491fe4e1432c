// Background traffic between a network's hosts (the traffic section): each sending host starts
// traffic.messages messages of traffic.message_bytes at exponentially distributed intervals
// (mean: the message's time on its link / traffic.load; with traffic.schedule, a load that steps
// in time: a Poisson process whose rate follows it), to a peer the pattern picks: uniform
// (a random other sending host per message: Canary's background), permutation (one peer for the
// run, a random derangement) or incast (traffic.incast_target). A message is UDP packets of at
// most traffic.mtu_payload bytes from its own source port (a flow per message, for ECMP), marked
// ECT(0) if traffic.ecn; a message is complete when all its packets arrived, its completion time
// measured from when it was started. All draws come from the run's seed.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/stats_tree.h"
#include "config/config.h"
#include "network/network.h"

namespace fs {

// The stats' "traffic" section of these messages (report_traffic("none", 0, 0, {}, 0, out): a
// run without background traffic, the same keys).
struct TrafficMessage;
void report_traffic(const std::string& pattern, size_t hosts, size_t senders,
                    const std::vector<TrafficMessage>& messages, uint64_t stray, StatsTree& out);

// The UDP destination port of background packets.
constexpr uint16_t kTrafficUdpPort = 5201;

// traffic.schedule: (from, load) steps in time order, the first from 0; InputError naming the key
// and the entry for a malformed one. Empty text: no steps.
std::vector<std::pair<Picos, double>> parse_traffic_schedule(const std::string& text);

struct TrafficMessage {
  unsigned src = 0, dst = 0;
  uint64_t bytes = 0;
  uint32_t packets = 0, received = 0;
  uint32_t ecn_marked = 0;  // packets that arrived marked CE
  Picos started = 0, done = 0;  // done: its last packet arrived (0: not complete)
};

class BackgroundTraffic : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(BackgroundTraffic);
  // On the hosts traffic.hosts names; InputError for a bad host list or incast target.
  BackgroundTraffic(sc_core::sc_module_name name, const Config& cfg, Network& net);

  void accept(PacketPtr p) override;  // a background packet at its destination host
  const std::vector<TrafficMessage>& messages() const { return messages_; }
  // The stats' "traffic" section (docs/STATS.md).
  void report(StatsTree& out) const;
  uint64_t unfinished() const;  // messages started and not complete

 private:
  void send_all();           // the one thread starting every host's messages in time order
  unsigned pick_peer(unsigned sender_rank);
  void start_message(unsigned sender_rank);

  TrafficConfig cfg_;
  Network& net_;
  std::vector<unsigned> hosts_;    // the sending and receiving hosts, by rank
  std::vector<unsigned> senders_;  // ranks that send
  std::vector<unsigned> perm_;     // permutation: each rank's peer rank
  std::vector<uint64_t> rng_;      // per rank: its splitmix64 state
  std::vector<uint32_t> sent_;     // messages started, per rank
  // Where the next message of a host starts after one at `from`: `draw` (an exponential of mean
  // 1) spent at the rate of the load in force, load / `wire` messages per ps (`wire`: a message's
  // time on the host's link); kNever if the load stays 0 from then on.
  Picos next_start(Picos from, double draw, double wire) const;
  static constexpr Picos kNever = ~Picos(0);
  std::vector<std::pair<Picos, double>> schedule_;  // (from, load); traffic.load alone if empty
  std::vector<TrafficMessage> messages_;
  std::vector<std::vector<uint32_t>> by_sender_;  // message indices per sending host
  uint64_t stray_ = 0;  // background packets that named no message
};

}  // namespace fs
