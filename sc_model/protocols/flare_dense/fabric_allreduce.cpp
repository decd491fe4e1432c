// Flare dense on static reduction trees across a network (see fabric_allreduce.h).
#include "protocols/flare_dense/fabric_allreduce.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/errors.h"
#include "fs_packet.h"
#include "common/fnv1a.h"
#include "common/float_bits.h"
#include "flare/flare_dense.h"
#include "net/frame.h"
#include "network/network.h"
#include "protocols/flare_dense/allreduce_gen.h"
#include "protocols/flare_dense/fabric_member.h"
#include "protocols/flare_dense/flare_frame.h"
#include "protocols/flare_dense/flare_setup.h"

namespace fs {
namespace {

constexpr const char* kModel = "allreduce";

// The reduction of every member's elements of one block, as results must carry it.
struct BlockReduction {
  Bytes exact;                     // integers, and float32 min/max: the exact result
  std::vector<double> sum, bound;  // float32 sums: the exact sum and the rounding allowed
  unsigned pending = 0;            // members still to get (or give up) the block
};

}  // namespace

// The allreduce on the member hosts: one FabricHost per member, and the reductions the results
// are checked against, kept while a member still waits for them.
class FabricAllreduce : public sc_core::sc_module, public NetworkAllreduce {
 public:
  FabricAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net, const FlareFabricRole::Group& group);
  ~FabricAllreduce() override;
  AllreduceStats stats() const override;
  std::string failure() const override;

 private:
  class FabricHost;
  friend class FabricHost;
  uint64_t blocks() const { return (bytes_ / dsize_ + per_block_ - 1) / per_block_; }
  uint16_t count_of(uint64_t b) const {
    return uint16_t(std::min<uint64_t>(per_block_, bytes_ / dsize_ - b * per_block_));
  }
  // The group's rank r is member first_rank_ + r of hosts.members, whose data it sends.
  Bytes contribution(unsigned rank, uint64_t b) const {
    return host_elements_at(seed_, first_rank_ + rank, dtype_, b * per_block_, count_of(b));
  }
  // "" if `got` (the elements of block b's result) is the reduction, else what is wrong.
  std::string check(uint64_t b, const uint8_t* got, size_t len);
  BlockReduction& reduction(uint64_t b);
  void release(uint64_t b);

  Network& net_;
  uint64_t bytes_ = 0, seed_ = 0;
  uint8_t dtype_ = FLARE_INT32, op_ = FLARE_OP_SUM;
  unsigned dsize_ = 4, per_block_ = 0;  // element bytes, elements per block
  uint32_t first_id_ = 0;
  unsigned first_rank_ = 0;
  unsigned levels_ = 0, trees_ = 0;
  std::vector<std::unique_ptr<FabricHost>> hosts_;
  std::map<uint64_t, BlockReduction> reductions_;
  std::vector<std::vector<uint64_t>> sharing_;  // by tree: the distances to blocks sharing a state (share_by_tree)
  Picos done_at_ = 0;
  uint64_t wrong_ = 0, stray_ = 0, bytes_sent_ = 0;
  std::string first_problem_;
};

// A member host: the shared send loop, its frames to its NIC, results from its host port.
class FabricAllreduce::FabricHost : public FabricMember {
 public:
  FabricHost(sc_core::sc_module_name name, FabricAllreduce& owner, const Config& cfg, unsigned rank, unsigned members,
             unsigned host, std::vector<uint16_t> rank_in_tree)
      : FabricMember(name, cfg.hosts, rank, members, owner.blocks(), owner.sharing_, &owner.done_at_, owner.net_, host,
                     std::move(rank_in_tree)),
        owner_(owner) {}

  void accept(PacketPtr p) override {
    const FrameInfo f = parse_frame(p->data.data(), p->data.size());
    flare_header_t h;
    if (!f.ok || !f.udp || f.l4_len < FLARE_HEADER_BYTES) return void(++owner_.stray_);
    flare_decode(p->data.data() + f.l4_offset, &h);
    const uint64_t b = h.block_id;
    if (h.version != FLARE_VERSION || h.kind != FLARE_KIND_RESULT ||
        h.allreduce_id != owner_.first_id_ + tree_of(b) || b >= owner_.blocks() || !in_flight(uint32_t(b)))
      return void(++owner_.stray_);
    const std::string wrong = owner_.check(b, p->data.data() + f.l4_offset + FLARE_HEADER_BYTES,
                                           f.l4_len - FLARE_HEADER_BYTES);
    if (!wrong.empty() && !owner_.wrong_++)
      owner_.first_problem_ = "host " + std::to_string(host_) + ", block " + std::to_string(b) + ": " + wrong;
    result_complete(uint32_t(b));
  }

 private:
  // Block b goes to tree b mod N (block id b: at every switch consecutive blocks have
  // consecutive home clusters, whatever tree they take); the host waits while its NIC sends it.
  void send_block(uint32_t b) override {
    const unsigned t = tree_of(b);
    flare_header_t h{};
    h.version = FLARE_VERSION;
    h.kind = FLARE_KIND_CONTRIB;
    h.dtype = owner_.dtype_;
    h.op = owner_.op_;
    h.allreduce_id = owner_.first_id_ + t;
    h.block_id = b;
    h.sender_rank = rank_in(t);
    h.elem_count = owner_.count_of(b);
    const Bytes elems = owner_.contribution(rank_, b);
    send_frame(build_flare_packet(h, uint16_t(host_), elems.data(), elems.size()), &owner_.bytes_sent_);
  }
  void forget(uint32_t b) override { owner_.release(b); }

  FabricAllreduce& owner_;
};

FabricAllreduce::FabricAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net,
                                 const FlareFabricRole::Group& group)
    : sc_core::sc_module(name), net_(net) {
  const std::vector<unsigned>& members = group.members;
  const std::vector<ReductionTree>& trees = group.trees;
  const HostsConfig& hc = cfg.hosts;
  if (!flare_dtype_from_name(hc.dtype, &dtype_) || !flare_op_from_name(hc.op, &op_))
    throw std::logic_error("FabricAllreduce: hosts.dtype and hosts.op are choice keys");
  dsize_ = flare_dtype_bytes(dtype_);
  if (hc.elem_bytes % dsize_ || hc.bytes % dsize_)
    throw InputError("hosts.elem_bytes (" + std::to_string(hc.elem_bytes) + ") and hosts.bytes (" +
                     std::to_string(hc.bytes) + ") must be whole " + hc.dtype + " elements of " +
                     std::to_string(dsize_) + " bytes");
  bytes_ = hc.bytes;
  per_block_ = hc.elem_bytes / dsize_;
  seed_ = cfg.seed;  // the data a single switch's allreduce hosts of the same ranks send
  first_id_ = group.first_id;
  first_rank_ = group.first_rank;
  trees_ = unsigned(trees.size());
  if (blocks() > (uint64_t(1) << 32) - 1)
    throw InputError("hosts.bytes / hosts.elem_bytes: more blocks than a 32-bit block id numbers");

  for (const ReductionTree& t : trees) levels_ = std::max(levels_, t.levels);
  const int set = find_handler_set("flare_dense");
  sharing_ = fabric_sharing(net, trees, first_id_, [set](Switch& sw, uint64_t id) -> uint64_t {
    for (const FlareAllreduce& a : flare_allreduces(sw.config(), sw.pspin().set_memory(set).l1_bytes))
      if (a.id == id) return a.states_per_cluster;
    return 0;
  });
  hosts_.reserve(members.size());
  for (unsigned r = 0; r < members.size(); ++r)
    hosts_.push_back(std::make_unique<FabricHost>(("member" + std::to_string(r)).c_str(), *this, cfg, r,
                                                  unsigned(members.size()), members[r],
                                                  host_ranks(net.topology(), trees, members[r])));
}

FabricAllreduce::~FabricAllreduce() = default;

BlockReduction& FabricAllreduce::reduction(uint64_t b) {
  auto it = reductions_.find(b);
  if (it != reductions_.end()) return it->second;
  BlockReduction& r = reductions_[b];
  r.pending = unsigned(hosts_.size());
  const uint16_t count = count_of(b);
  const bool float_sum = dtype_ == FLARE_FLOAT32 && op_ == FLARE_OP_SUM;
  if (float_sum) r.sum.assign(count, 0.0), r.bound.assign(count, 0.0);
  for (unsigned rank = 0; rank < hosts_.size(); ++rank) {
    const Bytes in = contribution(rank, b);
    if (float_sum) {
      for (size_t i = 0; i < count; ++i) {
        const double v = float_of_bits(fs_le32(&in[4 * i]));
        r.sum[i] += v;
        r.bound[i] += std::fabs(v);
      }
    } else if (rank == 0) {
      r.exact = in;
    } else {
      fold_elements(r.exact, in, dtype_, op_);
    }
  }
  // Any order of n - 1 float additions is off by at most (n - 1) u (sum of magnitudes), u = 2^-24.
  for (double& bound : r.bound) bound *= double(hosts_.size() - 1) * std::ldexp(1.0, -24);
  return r;
}

std::string FabricAllreduce::check(uint64_t b, const uint8_t* got, size_t len) {
  const BlockReduction& r = reduction(b);
  const uint16_t count = count_of(b);
  if (len != size_t(count) * dsize_)
    return std::to_string(len) + " element bytes, expected " + std::to_string(size_t(count) * dsize_);
  if (r.sum.empty()) {
    for (size_t i = 0; i < len; ++i)
      if (got[i] != r.exact[i]) return "element " + std::to_string(i / dsize_) + " differs from the reduction";
    return "";
  }
  for (size_t i = 0; i < count; ++i) {
    const double v = float_of_bits(fs_le32(got + 4 * i));
    if (!(std::fabs(v - r.sum[i]) <= r.bound[i]))
      return "element " + std::to_string(i) + " is " + std::to_string(v) + ", the sum is " + std::to_string(r.sum[i]);
  }
  return "";
}

void FabricAllreduce::release(uint64_t b) {
  auto it = reductions_.find(b);
  if (it != reductions_.end() && --it->second.pending == 0) reductions_.erase(it);
}

AllreduceStats FabricAllreduce::stats() const {
  AllreduceStats s;
  s.model = kModel;
  s.hosts = hosts_.size();
  s.bytes = bytes_;
  s.trees = trees_;
  s.levels = levels_;
  for (const auto& h : hosts_) {
    s.packets_sent += h->sends;
    s.retransmissions += h->retransmissions;
    s.gave_up += h->gave_up;
    s.unfinished_ranks += h->completed != blocks();
  }
  s.bytes_sent = bytes_sent_;
  s.stray_packets = stray_;
  s.conclude(done_at_, !wrong_);
  return s;
}

std::string FabricAllreduce::failure() const {
  if (wrong_) return "the Flare allreduce's results are wrong: " + std::to_string(wrong_) + " wrong in all; the first: " + first_problem_;
  const AllreduceStats s = stats();
  if (!s.unfinished_ranks) return "";
  for (const auto& h : hosts_)
    if (h->completed != blocks())
      return "the Flare allreduce did not complete: " + std::to_string(s.unfinished_ranks) + " of " + std::to_string(hosts_.size()) +
             " members are missing results (the first of them has " + std::to_string(h->completed) + " of " +
             std::to_string(blocks()) + " blocks; " + std::to_string(s.gave_up) + " blocks given up in all)";
  return "";
}

FlareFabricRole::FlareFabricRole(const Config& cfg, const Topology& t) : cfg_(cfg) {
  active_ = cfg.hosts.model == kModel;
  if (!active_) return;
  if (cfg.hosts.loss > 0)
    throw InputError("hosts.loss: a network's Flare hosts lose nothing themselves; their losses are the network's "
                     "drops (a link's queue_bytes in a topology file)");
  const std::vector<unsigned> members = member_hosts(cfg.hosts.members, unsigned(t.hosts().size()));
  const FlareConfig& f = flare_config(cfg);
  const unsigned n = cfg.hosts.groups;
  if (uint64_t(f.allreduce_id) + uint64_t(n) * f.trees - 1 > 0xFFFFFFFFull)
    throw InputError("flare.allreduce_id + hosts.groups x flare.trees - 1 exceeds the 32-bit allreduce id");
  const std::vector<std::vector<unsigned>> cut = member_groups(members, n, 1, "Flare");
  for (unsigned g = 0; g < n; ++g) {
    Group grp;
    grp.members = cut[g];
    grp.first_id = uint32_t(f.allreduce_id + g * f.trees);
    grp.first_rank = unsigned(g * members.size() / n);
    const std::string roots = g ? "flare.tree_roots/group" + std::to_string(g) : "flare.tree_roots";
    grp.trees = allreduce_trees(t, grp.members, f.trees, component_seed(cfg.seed, roots), "Flare");
    groups_.push_back(std::move(grp));
  }
}

void FlareFabricRole::configure_switch(unsigned index, Config& c) const {
  std::string entries;
  for (const Group& g : groups_)
    if (const std::string mine = tree_entries(g.trees, index, g.first_id); !mine.empty())
      entries += (entries.empty() ? "" : "; ") + mine;
  flare_config(c).allreduces = entries.empty() ? kFlareNoAllreduces : entries;
}

std::unique_ptr<NetworkAllreduce> FlareFabricRole::attach(Network& net) const {
  if (!active_) return nullptr;
  std::vector<std::unique_ptr<NetworkAllreduce>> all;
  for (size_t g = 0; g < groups_.size(); ++g)
    all.push_back(std::make_unique<FabricAllreduce>(
        (g ? "flare_allreduce" + std::to_string(g) : std::string("flare_allreduce")).c_str(), cfg_, net, groups_[g]));
  return grouped(std::move(all));
}

}  // namespace fs
