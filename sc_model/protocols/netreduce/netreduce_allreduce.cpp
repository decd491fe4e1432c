// NetReduce's hosts on a network and its switches' part (see netreduce_allreduce.h).
#include "protocols/netreduce/netreduce_allreduce.h"

#include <algorithm>

#include "common/errors.h"
#include "common/sc_time_util.h"
#include "netreduce/netreduce_switch.h"
#include "protocols/netreduce/netreduce_config.h"
#include "protocols/netreduce/netreduce_ring.h"
#include "protocols/netreduce/roce_ring.h"

namespace fs {
namespace {

NetReduceRingShape shape_of(const Config& cfg) {
  const NetReduceConfig& c = netreduce_config(cfg);
  NetReduceRingShape s;
  s.ring_id = c.ring_id;
  s.bytes = cfg.hosts.bytes;
  s.mtu = c.mtu;
  s.msg_packets = c.msg_packets;
  s.window = c.window;
  s.timeout = Picos(cfg.hosts.timeout_ns) * kPicosPerNs;
  s.seed = cfg.seed;
  return s;
}

// The ring's sum of element i.
int32_t ring_sum(const std::vector<uint64_t>& states, uint64_t i) {
  uint32_t s = 0;
  for (uint64_t st : states) s += uint32_t(gradient_at(st, i));
  return int32_t(s);
}

// What every member's NIC did, summed, into `s`; its details.
void add_nic_counts(AllreduceStats& s, const RoceNicCounts& n) {
  s.packets_sent += n.packets_sent;
  s.bytes_sent += n.bytes_sent;
  s.acks_sent += n.acks_sent;
  s.retransmissions += n.resent;
  s.stray_packets += n.bad_frames + n.unknown_qp;
  s.details["naks_sent"] += n.naks_sent;
  s.details["timeouts"] += n.timeouts;
  s.details["duplicates"] += n.duplicates;
  s.details["out_of_order"] += n.out_of_order;
}

// Checks the results when the run is over and reports them.
class RingResults : public NetworkAllreduce {
 public:
  RingResults(std::string model, const Config& cfg, const std::vector<unsigned>& members)
      : model_(std::move(model)), bytes_(cfg.hosts.bytes) {
    for (unsigned r = 0; r < members.size(); ++r)
      states_.push_back(gradient_state(cfg.seed, netreduce_config(cfg).ring_id, r));
  }
  // Every member's NIC counts summed, the unfinished ones, the last finish, and the model's own details.
  AllreduceStats stats() const override {
    AllreduceStats s;
    s.model = model_;
    s.hosts = ranks();
    s.bytes = bytes_;
    Picos last = 0;
    for (unsigned r = 0; r < ranks(); ++r) {
      add_nic_counts(s, nic(r).counts());
      s.unfinished_ranks += !finished(r);
      last = std::max(last, done_at(r));
    }
    add_details(s);
    s.conclude(last, problem().empty());
    return s;
  }
  std::string failure() const override {
    const AllreduceStats s = stats();
    if (s.unfinished_ranks)
      return "the " + model_ + " allreduce did not complete: " + std::to_string(s.unfinished_ranks) + " of " +
             std::to_string(s.hosts) + " members are missing results" + missing_detail();
    if (!problem().empty()) return "the " + model_ + " allreduce's results are wrong: " + problem();
    return "";
  }

 protected:
  virtual unsigned ranks() const = 0;
  virtual const RoceNic& nic(unsigned r) const = 0;
  virtual bool finished(unsigned r) const = 0;
  virtual Picos done_at(unsigned r) const = 0;
  virtual void add_details(AllreduceStats& s) const = 0;
  // The first wrong element ("" if none) of finished members.
  virtual std::string problem() const = 0;
  virtual std::string missing_detail() const { return ""; }
  std::string model_;
  uint64_t bytes_;
  std::vector<uint64_t> states_;
};

class NetReduceAllreduce : public RingResults {
 public:
  // `levels`: of switches that aggregate (1: the rack's; 2: leaves and their root).
  NetReduceAllreduce(const Config& cfg, Network& net, const std::vector<unsigned>& members, unsigned levels)
      : RingResults(kNetReduceModel, cfg, members),
        ring_(std::make_unique<NetReduceRing>("netreduce", net, members, shape_of(cfg))),
        levels_(levels) {}

 private:
  unsigned ranks() const override { return ring_->ranks(); }
  const RoceNic& nic(unsigned r) const override { return ring_->nic(r); }
  bool finished(unsigned r) const override { return ring_->results(r) == ring_->messages(); }
  Picos done_at(unsigned r) const override { return ring_->done_at(r); }
  void add_details(AllreduceStats& s) const override {
    uint64_t most = 0;
    for (unsigned r = 0; r < ranks(); ++r) most = std::max<uint64_t>(most, ring_->most_in_flight(r));
    s.trees = 1, s.levels = levels_;
    s.details["messages"] = ring_->messages();
    s.details["most_in_flight"] = most;
  }
  std::string problem() const override {
    for (unsigned r = 0; r < ring_->ranks(); ++r) {
      if (ring_->results(r) != ring_->messages()) continue;
      for (uint64_t m = 0; m < ring_->messages(); ++m) {
        const std::vector<int32_t> got = ring_->received(r, m);
        for (uint64_t i = 0; i < got.size(); ++i) {
          const uint64_t at = m * ring_->message_elements(0) + i;
          if (got[i] != ring_sum(states_, at))
            return "rank " + std::to_string(r) + " has " + std::to_string(got[i]) + " for element " + std::to_string(at) +
                   " (message " + std::to_string(m) + "), not the sum " + std::to_string(ring_sum(states_, at));
        }
      }
    }
    return "";
  }
  std::string missing_detail() const override {
    for (unsigned r = 0; r < ring_->ranks(); ++r)
      if (ring_->results(r) != ring_->messages())
        return " (rank " + std::to_string(r) + " has " + std::to_string(ring_->results(r)) + " of " +
               std::to_string(ring_->messages()) + " messages' results)";
    return "";
  }
  std::unique_ptr<NetReduceRing> ring_;
  unsigned levels_;
};

class RoceRingAllreduce : public RingResults {
 public:
  RoceRingAllreduce(const Config& cfg, Network& net, const std::vector<unsigned>& members)
      : RingResults(kRoceRingModel, cfg, members),
        ring_(std::make_unique<RoceRing>("roce_ring", net, members, shape_of(cfg))) {}

 private:
  unsigned ranks() const override { return ring_->ranks(); }
  const RoceNic& nic(unsigned r) const override { return ring_->nic(r); }
  bool finished(unsigned r) const override { return ring_->done_at(r) != 0; }
  Picos done_at(unsigned r) const override { return ring_->done_at(r); }
  void add_details(AllreduceStats& s) const override { s.details["chunks_per_segment"] = ring_->chunks_per_segment(); }
  std::string problem() const override {
    for (unsigned r = 0; r < ring_->ranks(); ++r) {
      if (!ring_->done_at(r)) continue;
      const std::vector<int32_t>& v = ring_->vector(r);
      for (uint64_t i = 0; i < v.size(); ++i)
        if (v[i] != ring_sum(states_, i))
          return "rank " + std::to_string(r) + " has " + std::to_string(v[i]) + " for element " + std::to_string(i) +
                 ", not the sum " + std::to_string(ring_sum(states_, i));
    }
    return "";
  }
  std::unique_ptr<RoceRing> ring_;
};

bool is_ours(const std::string& model) { return model == kNetReduceModel || model == kRoceRingModel; }

bool linked(const std::vector<std::vector<PortPeer>>& peers, unsigned a, unsigned b) {
  return std::any_of(peers[a].begin(), peers[a].end(), [b](const PortPeer& p) { return p.node == int(b); });
}

// The names of the topology's switches `indices` (of t.switches()), for a message.
std::string switch_names(const Topology& t, const std::vector<unsigned>& indices) {
  std::string out;
  for (unsigned i : indices) out += (out.empty() ? "" : ", ") + t.nodes[t.switches()[i]].name;
  return out;
}

void add_parser_rule(Config& c) {
  if (c.parser.rules.find("-> netreduce") == std::string::npos)
    c.parser.rules = std::string(kNetReduceParserRule) + (c.parser.rules.empty() ? "" : "; " + c.parser.rules);
}

}  // namespace

NetReduceFabricRole::NetReduceFabricRole(const Config& cfg, const Topology& t) : cfg_(cfg) {
  if (!is_ours(cfg.hosts.model)) return;
  members_ = member_hosts(cfg.hosts.members, unsigned(t.hosts().size()));
  if (cfg.hosts.groups != 1)
    throw InputError("hosts.groups: hosts.model " + cfg.hosts.model + " runs one ring (hosts.groups 1), not " +
                     std::to_string(cfg.hosts.groups));
  check_netreduce_shape(netreduce_config(cfg));
  if (cfg.hosts.model != kNetReduceModel) return;
  if (members_.size() > NETREDUCE_MAX_RANKS)
    throw InputError("hosts.members: a NetReduce ring has at most " + std::to_string(NETREDUCE_MAX_RANKS) +
                     " workers (an aggregator's bitmap of ranks), not " + std::to_string(members_.size()));
  // Each member's rack: the switch its host hangs off (the i-th of the topology's switches).
  const auto peers = t.peers();
  const std::vector<unsigned> host_nodes = t.hosts(), switch_nodes = t.switches();
  std::vector<unsigned> rack_of_rank;
  for (unsigned h : members_) {
    const unsigned node = unsigned(peers[host_nodes[h]][0].node);
    rack_of_rank.push_back(unsigned(std::find(switch_nodes.begin(), switch_nodes.end(), node) - switch_nodes.begin()));
  }
  leaves_ = rack_of_rank;
  std::sort(leaves_.begin(), leaves_.end());
  leaves_.erase(std::unique(leaves_.begin(), leaves_.end()), leaves_.end());
  if (leaves_.size() == 1) {
    rack_switch_ = int(leaves_[0]);
    leaves_.clear();
    check_runs_handlers(t, {unsigned(rack_switch_)});
    return;
  }
  // Across racks (3.3): the racks' switches are the leaves, under the first switch linked to all.
  if (leaves_.size() > NETREDUCE_MAX_CHILDREN)
    throw InputError("hosts.members: the ring's hosts hang off " + std::to_string(leaves_.size()) +
                     " switches; NetReduce aggregates a ring across at most " + std::to_string(NETREDUCE_MAX_CHILDREN) +
                     " racks");
  for (unsigned i = 0; i < switch_nodes.size() && root_ < 0; ++i)
    if (std::none_of(leaves_.begin(), leaves_.end(), [&](unsigned l) { return l == i || !linked(peers, switch_nodes[i], switch_nodes[l]); }))
      root_ = int(i);
  if (root_ < 0)
    throw InputError("hosts.members: the ring's hosts hang off switches " + switch_names(t, leaves_) +
                     ", and no switch is linked to all of them: NetReduce aggregates a ring across racks at a root "
                     "switch above the racks' switches (3.3)");
  for (unsigned r : rack_of_rank)
    leaf_of_rank_.push_back(unsigned(std::find(leaves_.begin(), leaves_.end(), r) - leaves_.begin()));
  std::vector<unsigned> all = leaves_;
  all.push_back(unsigned(root_));
  check_runs_handlers(t, all);
}

void NetReduceFabricRole::check_runs_handlers(const Topology& t, const std::vector<unsigned>& switches) {
  for (unsigned i : switches) {
    const TopoNode& n = t.nodes[t.switches()[i]];
    if (n.kind == SwitchKind::kPlain)
      throw InputError("network.kinds: switch " + n.name + " is plain, but the NetReduce ring needs it to aggregate (" +
                       "make it inc or calibrated)");
  }
}

void NetReduceFabricRole::configure_switch(unsigned index, Config& c) const {
  if (cfg_.hosts.model != kNetReduceModel) return;
  NetReduceConfig& n = netreduce_config(c);
  if (int(index) == rack_switch_) {
    n.ranks = unsigned(members_.size());
    add_parser_rule(c);
    return;
  }
  const auto leaf = std::find(leaves_.begin(), leaves_.end(), index);
  if (leaf == leaves_.end() && int(index) != root_) return;
  n.ranks = unsigned(members_.size());
  n.tier.address = index + 1;  // fs_fabric_switch_ipv4's numbering
  for (unsigned l : leaves_) n.tier.leaves.push_back(l + 1);
  if (leaf != leaves_.end()) {
    n.tier.role = NETREDUCE_ROLE_LEAF;
    n.tier.parent = unsigned(root_) + 1;
    n.tier.leaf = unsigned(leaf - leaves_.begin());
    n.tier.leaf_of_rank = leaf_of_rank_;
  } else {
    n.tier.role = NETREDUCE_ROLE_ROOT;
  }
  add_parser_rule(c);
}

std::unique_ptr<NetworkAllreduce> NetReduceFabricRole::attach(Network& net) const {
  if (cfg_.hosts.model == kNetReduceModel)
    return std::make_unique<NetReduceAllreduce>(cfg_, net, members_, leaves_.empty() ? 1 : 2);
  if (cfg_.hosts.model == kRoceRingModel) return std::make_unique<RoceRingAllreduce>(cfg_, net, members_);
  return nullptr;
}

}  // namespace fs
