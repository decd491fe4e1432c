// Flare sparse on static reduction trees across a network (see sparse_fabric.h).
#include "protocols/flare_sparse/sparse_fabric.h"

#include <algorithm>
#include <map>

#include "common/errors.h"
#include "common/fnv1a.h"
#include "network/network.h"
#include "protocols/flare_dense/fabric_member.h"
#include "protocols/flare_sparse/sparcml_allreduce.h"
#include "protocols/flare_sparse/sparse_config.h"
#include "protocols/flare_sparse/sparse_setup.h"
#include "protocols/flare_sparse/sparse_verify.h"
#include "protocols/flare_sparse/sparse_workload.h"

namespace fs {

// The allreduce on the member hosts: one SparseMember per member, sharing the workload.
class SparseFabricAllreduce : public sc_core::sc_module, public NetworkAllreduce {
 public:
  SparseFabricAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net,
                        const std::vector<unsigned>& members, const std::vector<ReductionTree>& trees);
  ~SparseFabricAllreduce() override;
  AllreduceStats stats() const override;
  std::string failure() const override;

 private:
  class SparseMember;
  friend class SparseMember;

  Network& net_;
  SparseWorkload w_;
  uint64_t bytes_ = 0;
  uint32_t first_id_ = 0;
  unsigned levels_ = 0;
  std::vector<std::vector<uint64_t>> sharing_;  // by tree (share_by_tree)
  std::vector<std::unique_ptr<SparseMember>> members_;
  Picos done_at_ = 0;
  uint64_t packets_sent_ = 0, bytes_sent_ = 0, stray_ = 0, wrong_ = 0;
  std::string first_problem_;
};

// A member host: the shared send loop, its blocks' packets to its NIC, result packets from its
// host port merged per block and checked once the block is complete.
class SparseFabricAllreduce::SparseMember : public FabricMember {
 public:
  SparseMember(sc_core::sc_module_name name, SparseFabricAllreduce& owner, const Config& cfg, unsigned rank,
               unsigned members, unsigned host, std::vector<uint16_t> rank_in_tree)
      : FabricMember(name, cfg.hosts, rank, members, owner.w_.blocks(), owner.sharing_, &owner.done_at_, owner.net_,
                     host, std::move(rank_in_tree)),
        owner_(owner) {}

  void accept(PacketPtr p) override {
    SparsePacket r;
    std::string why;
    if (!parse_sparse_packet(p->data.data(), p->data.size(), &r, &why)) return void(++owner_.stray_);
    const uint32_t b = r.h.block_id;
    if (r.h.kind != FLARE_KIND_RESULT || b >= owner_.w_.blocks() ||
        r.h.allreduce_id != owner_.first_id_ + tree_of(b))
      return void(++owner_.stray_);
    if (!in_flight(b)) return;  // done with already (or given up): a late copy
    Result& got = results_[b];
    if (!got.shards.take(r.h)) return;  // a duplicate of a shard it has
    const SparseExpectedBlock& want = owner_.w_.reference[b];
    fold_sparse_pairs(want.dtype, want.op, r.pairs, got.merged);
    if (!got.shards.complete()) return;
    const std::string wrong = compare_sparse_block(want, got.merged);
    if (!wrong.empty() && !owner_.wrong_++)
      owner_.first_problem_ = "host " + std::to_string(host_) + ", block " + std::to_string(b) + ": " + wrong;
    result_complete(b);
  }

 private:
  struct Result {
    ResultShards shards;
    std::map<uint32_t, uint32_t> merged;  // the pairs so far, folded
  };

  void forget(uint32_t b) override { results_.erase(b); }

  // Block b's packets, under tree b mod N's id and the host's rank in that tree, back to back at
  // the NIC's rate; a retransmission stops early if the result completes meanwhile.
  void send_block(uint32_t b) override {
    const unsigned t = tree_of(b);
    for (Bytes& frame : sparse_block_frames_as(owner_.w_, rank_, b, uint16_t(host_), owner_.first_id_ + t, rank_in(t))) {
      if (!in_flight(b)) return;
      ++owner_.packets_sent_;
      send_frame(std::move(frame), &owner_.bytes_sent_);
    }
  }

  SparseFabricAllreduce& owner_;
  std::map<uint32_t, Result> results_;  // in-flight block -> its result packets so far
};

SparseFabricAllreduce::SparseFabricAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net,
                                             const std::vector<unsigned>& members,
                                             const std::vector<ReductionTree>& trees)
    : sc_core::sc_module(name),
      net_(net),
      w_(make_sparse_workload(sparse_workload_options(cfg, unsigned(members.size())))),
      bytes_(cfg.hosts.bytes),
      first_id_(sparse_config(cfg).allreduce_id) {
  for (const ReductionTree& t : trees) levels_ = std::max(levels_, t.levels);
  const int set = find_handler_set("flare_sparse");
  sharing_ = fabric_sharing(net, trees, first_id_, [set](Switch& sw, uint64_t id) -> uint64_t {
    for (const SparseAllreduce& a : sparse_allreduces(sw.config(), sw.pspin().set_memory(set).l1_bytes))
      if (a.table.allreduce_id == id) return a.table.states_per_cluster;
    return 0;
  });
  for (unsigned r = 0; r < members.size(); ++r)
    members_.push_back(std::make_unique<SparseMember>(("member" + std::to_string(r)).c_str(), *this, cfg, r,
                                                      unsigned(members.size()), members[r],
                                                      host_ranks(net.topology(), trees, members[r])));
}

SparseFabricAllreduce::~SparseFabricAllreduce() = default;

AllreduceStats SparseFabricAllreduce::stats() const {
  AllreduceStats s;
  s.model = kSparseAllreduceModel;
  s.hosts = members_.size();
  s.bytes = bytes_;
  s.trees = sharing_.size();
  s.levels = levels_;
  for (const auto& m : members_) {
    s.retransmissions += m->retransmissions;
    s.gave_up += m->gave_up;
    s.unfinished_ranks += m->completed != w_.blocks();
  }
  s.packets_sent = packets_sent_;
  s.bytes_sent = bytes_sent_;
  s.stray_packets = stray_;
  s.conclude(done_at_, !wrong_);
  return s;
}

std::string SparseFabricAllreduce::failure() const {
  if (wrong_)
    return "the Flare sparse allreduce's results are wrong: " + std::to_string(wrong_) +
           " blocks wrong in all; the first: " + first_problem_;
  const AllreduceStats s = stats();
  for (const auto& m : members_)
    if (m->completed != w_.blocks())
      return "the Flare sparse allreduce did not complete: " + std::to_string(s.unfinished_ranks) + " of " +
             std::to_string(members_.size()) + " members are missing results (the first of them has " +
             std::to_string(m->completed) + " of " + std::to_string(w_.blocks()) + " blocks; " +
             std::to_string(s.gave_up) + " blocks given up in all)";
  return "";
}

FlareSparseFabricRole::FlareSparseFabricRole(const Config& cfg, const Topology& t) : cfg_(cfg) {
  const std::string& model = cfg.hosts.model;
  if (model != kSparseAllreduceModel && model != kSparcmlModel) return;
  if (cfg.hosts.loss > 0)
    throw InputError("hosts.loss: a network's sparse allreduce hosts lose nothing themselves; their losses are the "
                     "network's drops (a link's queue_bytes in a topology file)");
  if (cfg.hosts.groups != 1)
    throw InputError("hosts.groups = " + std::to_string(cfg.hosts.groups) + ": hosts.model = " + model +
                     " runs one allreduce on hosts.members; concurrent ones run with ring, allreduce or canary");
  members_ = member_hosts(cfg.hosts.members, unsigned(t.hosts().size()));
  if (model == kSparcmlModel) return;  // hosts only: no trees, any switch
  const FlareSparseConfig& f = sparse_config(cfg);
  if (uint64_t(f.allreduce_id) + f.trees - 1 > 0xFFFFFFFFull)
    throw InputError("flare_sparse.allreduce_id + flare_sparse.trees - 1 exceeds the 32-bit allreduce id");
  trees_ = allreduce_trees(t, members_, f.trees, component_seed(cfg.seed, "flare_sparse.tree_roots"), "Flare sparse");
}

void FlareSparseFabricRole::configure_switch(unsigned index, Config& c) const {
  if (cfg_.hosts.model != kSparseAllreduceModel) return;  // the run is not a sparse one
  sparse_config(c).allreduces = tree_entries(trees_, index, sparse_config(cfg_).allreduce_id);
  sparse_config(c).ports = "";  // so a switch on no tree holds no sparse allreduce
}

std::unique_ptr<NetworkAllreduce> FlareSparseFabricRole::attach(Network& net) const {
  if (cfg_.hosts.model == kSparseAllreduceModel)
    return std::make_unique<SparseFabricAllreduce>("flare_sparse_allreduce", cfg_, net, members_, trees_);
  if (cfg_.hosts.model == kSparcmlModel) return std::make_unique<SparcmlAllreduce>("sparcml", cfg_, net, members_);
  return nullptr;
}

}  // namespace fs
