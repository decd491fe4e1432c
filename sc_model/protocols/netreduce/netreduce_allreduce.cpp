// NetReduce's hosts on a network and its switches' part (see netreduce_allreduce.h).
#include "protocols/netreduce/netreduce_allreduce.h"

#include <algorithm>

#include "common/errors.h"
#include "common/sc_time_util.h"
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
  NetReduceAllreduce(const Config& cfg, Network& net, const std::vector<unsigned>& members)
      : RingResults(kNetReduceModel, cfg, members),
        ring_(std::make_unique<NetReduceRing>("netreduce", net, members, shape_of(cfg))) {}

 private:
  unsigned ranks() const override { return ring_->ranks(); }
  const RoceNic& nic(unsigned r) const override { return ring_->nic(r); }
  bool finished(unsigned r) const override { return ring_->results(r) == ring_->messages(); }
  Picos done_at(unsigned r) const override { return ring_->done_at(r); }
  void add_details(AllreduceStats& s) const override {
    uint64_t most = 0;
    for (unsigned r = 0; r < ranks(); ++r) most = std::max<uint64_t>(most, ring_->most_in_flight(r));
    s.trees = 1, s.levels = 1;  // the rack's switch
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

}  // namespace

NetReduceFabricRole::NetReduceFabricRole(const Config& cfg, const Topology& t) : cfg_(cfg) {
  if (!is_ours(cfg.hosts.model)) return;
  members_ = member_hosts(cfg.hosts.members, unsigned(t.hosts().size()));
  if (cfg.hosts.groups != 1)
    throw InputError("hosts.groups: hosts.model " + cfg.hosts.model + " runs one ring (hosts.groups 1), not " +
                     std::to_string(cfg.hosts.groups));
  check_netreduce_shape(netreduce_config(cfg));
  if (cfg.hosts.model != kNetReduceModel) return;
  if (members_.size() > 255)
    throw InputError("hosts.members: a NetReduce ring has at most 255 workers (the INA header's rank), not " +
                     std::to_string(members_.size()));
  // The switch every member hangs off: the ring's rack.
  const auto peers = t.peers();
  const std::vector<unsigned> host_nodes = t.hosts(), switch_nodes = t.switches();
  int rack = -1;
  for (unsigned h : members_) {
    const int node = peers[host_nodes[h]][0].node;
    if (rack >= 0 && node != rack)
      throw InputError("hosts.members: hosts " + std::to_string(members_.front()) + " and " + std::to_string(h) +
                       " hang off different switches; NetReduce aggregates a ring within one rack (multi-rack "
                       "NetReduce, 3.3, is not built yet)");
    rack = node;
  }
  rack_switch_ = int(std::find(switch_nodes.begin(), switch_nodes.end(), unsigned(rack)) - switch_nodes.begin());
}

void NetReduceFabricRole::configure_switch(unsigned index, Config& c) const {
  if (cfg_.hosts.model != kNetReduceModel || int(index) != rack_switch_) return;
  netreduce_config(c).ranks = unsigned(members_.size());
  if (c.parser.rules.find("-> netreduce") == std::string::npos)
    c.parser.rules = std::string(kNetReduceParserRule) + (c.parser.rules.empty() ? "" : "; " + c.parser.rules);
}

std::unique_ptr<NetworkAllreduce> NetReduceFabricRole::attach(Network& net) const {
  if (cfg_.hosts.model == kNetReduceModel) return std::make_unique<NetReduceAllreduce>(cfg_, net, members_);
  if (cfg_.hosts.model == kRoceRingModel) return std::make_unique<RoceRingAllreduce>(cfg_, net, members_);
  return nullptr;
}

}  // namespace fs
