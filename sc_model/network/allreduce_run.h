// What an allreduce across a network reports, whoever runs it (the hosts' ring, a protocol's
// in-network allreduce on its member hosts): the stats' "allreduce" section, the same keys for
// every model so that runs tabulate alike (docs/STATS.md, "Network runs"); the interface the
// network run asks it through; and the member hosts hosts.members names.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/stats_tree.h"
#include "common/units.h"

namespace fs {

// A run without an allreduce reports the default: model "none", every count 0.
struct AllreduceStats {
  std::string model = "none";
  uint64_t hosts = 0, bytes = 0;  // members, and data bytes each
  uint64_t trees = 0;             // in-network reduction trees (0: the hosts reduce)
  uint64_t levels = 0;            // switches on the longest root-to-leaf path of a tree (0: none)
  uint64_t packets_sent = 0;      // data packets the members handed to their NICs, resends included
  uint64_t bytes_sent = 0;        // frame bytes the members handed to their NICs (data and ACKs)
  uint64_t acks_sent = 0;
  uint64_t retransmissions = 0;   // packets or segments sent again after a timeout
  uint64_t gave_up = 0;           // abandoned after the most sends without an answer
  uint64_t stray_packets = 0;     // frames to the allreduce's port that nothing expected
  uint64_t unfinished_ranks = 0;  // members still missing results at the end
  double done_us = 0;             // when the last member got its last result (0: one never did)
  double allreduce_gbps = 0;      // every member's bytes over done_us
  bool results_ok = false;        // every member finished with exactly the reduction
  // The model's own counts (docs/STATS.md: an object, {} for a model that has none; the same
  // keys in every run of the model).
  std::map<std::string, uint64_t> details;
  // Sets done_us, allreduce_gbps and results_ok once hosts, bytes and unfinished_ranks are
  // counted: the last member finished at `done_at`; `right`: no result was found wrong.
  void conclude(Picos done_at, bool right);
  void report(StatsTree& out) const;
};

class NetworkAllreduce {
 public:
  virtual ~NetworkAllreduce() = default;
  virtual AllreduceStats stats() const = 0;
  // Why the results are wrong or incomplete (for the CLI's error), "" if every member has them.
  virtual std::string failure() const = 0;
};

// The hosts `text` (hosts.members) names, in rank order: "all" for every host, or a list such as
// "0-7,12"; InputError naming hosts.members for a host the network lacks or a host given twice.
std::vector<unsigned> member_hosts(const std::string& text, unsigned hosts);

}  // namespace fs
