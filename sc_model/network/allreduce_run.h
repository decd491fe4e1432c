// What an allreduce across a network reports, whoever runs it (the hosts' ring, a protocol's
// in-network allreduce on its member hosts): the stats' "allreduce" section, the same keys for
// every model so that runs tabulate alike (docs/STATS.md, "Network runs"); the interface the
// network run asks it through; the member hosts hosts.members names, and their hosts.groups
// concurrent allreduces, reported as one.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/stats_tree.h"
#include "common/units.h"

namespace fs {

// A run without an allreduce reports the default: model "none", every count 0.
struct AllreduceStats {
  std::string model = "none";
  uint64_t hosts = 0, bytes = 0;  // members, and data bytes each
  uint64_t groups = 1;            // concurrent allreduces (hosts.groups), each of bytes per member
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
  double goodput_gbps = 0;        // a member's bytes over its group's time to the last result, mean of the groups
  bool results_ok = false;        // every member finished with exactly the reduction
  // The model's own counts (docs/STATS.md: an object, {} for a model that has none; the same
  // keys in every run of the model).
  std::map<std::string, uint64_t> details;
  // Each training job's own numbers, for a model that runs jobs (a2tp: docs/STATS.md); empty for
  // the others.
  std::vector<std::map<std::string, double>> jobs;
  // Samples in time of a model's numbers (a2tp with a2tp.sample_us: docs/STATS.md); empty for the
  // others.
  std::vector<std::map<std::string, double>> series;
  // Sets done_us, allreduce_gbps, goodput_gbps and results_ok of one group once hosts, bytes and
  // unfinished_ranks are counted: the last member finished at `done_at`; `right`: no result was
  // found wrong.
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

// Element `at` of the int32 data of member `rank` of group `group`, drawn from `values_seed` (the
// run's seed for the model's values): the same for every model that sums generated int32 data.
int32_t member_value(uint64_t values_seed, unsigned group, unsigned rank, uint64_t at);

// The concurrent allreduces of hosts.groups as one: counts summed (details key by key), levels
// the deepest, done_us the last group's, allreduce_gbps every member's bytes over it,
// goodput_gbps the mean of the groups', results_ok if every group's is.
AllreduceStats combine_groups(const std::vector<AllreduceStats>& groups);

class GroupedAllreduce : public NetworkAllreduce {
 public:
  explicit GroupedAllreduce(std::vector<std::unique_ptr<NetworkAllreduce>> groups) : groups_(std::move(groups)) {}
  AllreduceStats stats() const override;
  // The first group's failure, naming the group ("allreduce group 2 (hosts.groups): ...").
  std::string failure() const override;

 private:
  std::vector<std::unique_ptr<NetworkAllreduce>> groups_;
};

// The one allreduce of a run: `groups` itself when it holds one, else their GroupedAllreduce.
std::unique_ptr<NetworkAllreduce> grouped(std::vector<std::unique_ptr<NetworkAllreduce>> groups);

// hosts.members cut into `groups` (hosts.groups) groups of consecutive ranks, group g ranks
// g P / G to (g + 1) P / G - 1; InputError naming hosts.groups when a group would have fewer than
// `least` members (`model` says whose allreduce needs them).
std::vector<std::vector<unsigned>> member_groups(const std::vector<unsigned>& members, unsigned groups, unsigned least,
                                                 const std::string& model);

// The hosts `text` (hosts.members) names, in rank order: "all" for every host, or a list such as
// "0-7,12"; InputError naming hosts.members for a host the network lacks or a host given twice.
std::vector<unsigned> member_hosts(const std::string& text, unsigned hosts);

}  // namespace fs
