// Canary's hosts: ordinary members and block leaders (see canary_allreduce.h).
#include "protocols/canary/canary_allreduce.h"

#include <algorithm>
#include <deque>
#include <set>

#include "common/errors.h"
#include "common/fnv1a.h"
#include "common/sc_time_util.h"
#include "fs_packet.h"
#include "protocols/canary/canary_config.h"
#include "protocols/canary/canary_frame.h"
#include "protocols/flare_dense/allreduce_timing.h"

namespace fs {
namespace {

constexpr uint64_t kNoiseStream = 0x6e6f6973;  // "nois": a host's noise draws

// The network host an IPv4 source address is, or -1 (a switch's).
int host_of_ipv4(uint32_t ip) { return (ip >> 16) == (fs_host_ipv4(0) >> 16) ? int(ip & 0xFFFFu) : -1; }

}  // namespace

// One member host: its sends (in block order, at line rate), its timeouts and requests, and the
// blocks it leads.
class CanaryAllreduce::Member : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(Member);
  Member(sc_core::sc_module_name name, CanaryAllreduce& owner, unsigned group, unsigned rank, unsigned host)
      : sc_core::sc_module(name), owner_(owner), group_(group), rank_(rank), host_(host) {
    const uint64_t n = size();
    blocks_.resize(owner.blocks_);
    for (uint64_t b = rank; b < owner.blocks_; b += n) leads_[b];
    owner.net_.host(host).bind_udp(CANARY_UDP_PORT_DEFAULT, this);
    SC_THREAD(run);
  }

  void accept(PacketPtr p) override;

  uint64_t completed = 0;  // blocks whose result it has (or, as leader, made)
  uint64_t gave_up = 0;

 private:
  struct Block {  // a block it sends (led by another)
    unsigned attempt = 0;
    unsigned requests = 0;  // since its latest send
    bool done = false;
    Picos due = 0;  // when it asks again (0: not waiting)
  };
  struct Lead {  // a block it leads
    unsigned attempt = 0;
    std::vector<uint32_t> acc;
    uint64_t counted = 0;
    std::set<std::pair<uint16_t, uint32_t>> collisions;  // (switch address, port)
    std::set<unsigned> fallback_from;                   // hosts whose data it has (fallback)
    bool complete = false;
    std::vector<int32_t> result;
  };

  unsigned size() const { return unsigned(owner_.groups_[group_].hosts.size()); }
  unsigned app() const { return owner_.groups_[group_].app; }
  unsigned leader_of(uint64_t b) const { return owner_.groups_[group_].hosts[b % size()]; }
  uint32_t id_of(uint64_t b, unsigned attempt) const { return canary_id(app(), uint32_t(attempt * owner_.blocks_ + b)); }
  bool fallback(unsigned attempt) const { return attempt >= owner_.max_attempts_; }
  std::vector<int32_t> own_data(uint64_t b) const {
    std::vector<int32_t> v(owner_.elements(b));
    for (unsigned i = 0; i < v.size(); ++i) v[i] = owner_.value(group_, rank_, b, i);
    return v;
  }

  void run();
  void send_data(uint64_t b);
  void timed_out(uint64_t b);
  void wait_for(uint64_t b) {
    Block& k = blocks_[b];
    if (k.due) due_.erase({k.due, b});
    k.due = now_ps() + owner_.timeout_;
    due_.insert({k.due, b});
  }
  void block_done() {
    if (++completed != owner_.blocks_) return;
    owner_.done_at_ = std::max(owner_.done_at_, now_ps());
    Group& g = owner_.groups_[group_];
    if (++g.done == g.hosts.size()) g.done_at = now_ps();
    owner_.net_.member_done();
  }
  // A frame to the NIC (its queue sends it at line rate); the time it takes on the wire.
  Picos send(const canary_header_t& h, const std::vector<int32_t>& data) {
    auto p = std::make_shared<Packet>();
    p->data = build_canary_packet(h, host_, data);
    owner_.base_.bytes_sent += p->data.size();
    HostPort& port = owner_.net_.host(host_);
    const Picos wire = port.nic().params().wire_time_of(p->data.size());
    port.send(std::move(p));
    return wire;
  }
  canary_header_t header(uint32_t destination, uint32_t id, uint16_t counter, uint8_t flags) const {
    canary_header_t h{};
    h.destination = destination, h.id = id, h.counter = counter, h.hosts = uint16_t(size()), h.flags = flags;
    return h;
  }

  void member_take(const CanaryPacket& c, uint64_t b, unsigned attempt);
  void leader_take(const CanaryPacket& c, uint64_t b, unsigned attempt, int from);
  void lead_complete(uint64_t b);
  void lead_failed(uint64_t b, unsigned requester);

  CanaryAllreduce& owner_;
  const unsigned group_, rank_, host_;
  std::vector<Block> blocks_;
  std::map<uint64_t, Lead> leads_;
  std::deque<uint64_t> again_;                 // blocks to send again (a new attempt), first
  std::set<std::pair<Picos, uint64_t>> due_;   // (when, block) of the requests to come
  uint64_t noise_draws_ = 0;
  sc_core::sc_event wake_;
};

void CanaryAllreduce::Member::run() {
  const unsigned n = size();
  uint64_t next = 0;  // the next block to send for the first time
  for (;;) {
    while (next < owner_.blocks_ && next % n == rank_) ++next;  // its own: the leader sends nothing
    const Picos now = now_ps();
    if (!again_.empty()) {
      const uint64_t b = again_.front();
      again_.pop_front();
      if (!blocks_[b].done) send_data(b);
    } else if (!due_.empty() && due_.begin()->first <= now) {
      const uint64_t b = due_.begin()->second;
      due_.erase(due_.begin());
      blocks_[b].due = 0;
      timed_out(b);
    } else if (next < owner_.blocks_) {
      send_data(next++);
    } else if (due_.empty()) {
      wait(wake_);
    } else {
      wait(ps_time(due_.begin()->first - now), wake_);
    }
  }
}

// The block's data under its current attempt, paced at the NIC's rate (after canary.noise's
// delay, if drawn), then the wait for its result.
void CanaryAllreduce::Member::send_data(uint64_t b) {
  Block& k = blocks_[b];
  if (owner_.noise_ > 0) {
    const uint64_t draw = timing_draw(owner_.seed_, kNoiseStream, host_, ++noise_draws_);
    if (double(draw >> 11) * 0x1p-53 < owner_.noise_) {
      ++owner_.counts_.noise_delays;
      wait(ps_time(owner_.noise_delay_));
      if (k.done) return;
    }
  }
  const uint8_t flags = fallback(k.attempt) ? CANARY_FLAG_BYPASS : 0;
  ++owner_.base_.packets_sent;
  const Picos wire = send(header(fs_host_ipv4(leader_of(b)), id_of(b, k.attempt), 1, flags), own_data(b));
  k.requests = 0;
  wait_for(b);
  wait(ps_time(wire));
}

// No result within the timeout: a retransmission request to the leader, or in the fallback the
// data again; after kCanaryMaxRequests of them the block is given up.
void CanaryAllreduce::Member::timed_out(uint64_t b) {
  Block& k = blocks_[b];
  if (k.done) return;
  if (++k.requests > kCanaryMaxRequests) {
    ++gave_up;
    return;
  }
  if (fallback(k.attempt)) {
    ++owner_.base_.retransmissions;
    again_.push_back(b);
    return;
  }
  ++owner_.counts_.requests;
  ++owner_.base_.acks_sent;
  send(header(fs_host_ipv4(leader_of(b)), id_of(b, k.attempt), 0, CANARY_FLAG_BYPASS), {});
  wait_for(b);
}

void CanaryAllreduce::Member::accept(PacketPtr p) {
  CanaryPacket c;
  std::string why;
  if (!parse_canary_packet(p->data.data(), p->data.size(), &c, &why)) return void(++owner_.base_.stray_packets);
  const uint32_t seq = canary_id_sequence(c.h.id);
  const uint64_t b = seq % owner_.blocks_;
  const unsigned attempt = unsigned(seq / owner_.blocks_);
  if (canary_id_app(c.h.id) != app() || attempt > owner_.max_attempts_ ||
      (!c.elements.empty() && c.elements.size() != owner_.elements(b)))
    return void(++owner_.base_.stray_packets);
  const uint32_t src = uint32_t(p->data[FS_ETH_BYTES + 12]) << 24 | uint32_t(p->data[FS_ETH_BYTES + 13]) << 16 |
                       uint32_t(p->data[FS_ETH_BYTES + 14]) << 8 | p->data[FS_ETH_BYTES + 15];
  if (b % size() == rank_ && !(c.h.flags & CANARY_FLAG_MULTICAST))
    leader_take(c, b, attempt, host_of_ipv4(src));
  else
    member_take(c, b, attempt);
}

// At a host that does not lead the block: its result, or a failure of its current attempt.
void CanaryAllreduce::Member::member_take(const CanaryPacket& c, uint64_t b, unsigned attempt) {
  Block& k = blocks_[b];
  if (b % size() == rank_) return void(++owner_.counts_.duplicate_results);  // its own broadcast, back
  if (c.elements.empty()) {
    if (c.h.counter != 0) return void(++owner_.base_.stray_packets);
    if (k.done || attempt != k.attempt) return;  // a failure it has acted on (or moot)
    ++k.attempt;
    again_.push_back(b);
    wake_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  if (!(c.h.flags & (CANARY_FLAG_MULTICAST | CANARY_FLAG_BYPASS))) return void(++owner_.base_.stray_packets);
  if (k.done) return void(++owner_.counts_.duplicate_results);
  k.done = true;
  if (k.due) due_.erase({k.due, b}), k.due = 0;
  owner_.check(host_, group_, b, c.elements);
  block_done();
}

// At the block's leader: data to fold in, or a host's retransmission request.
void CanaryAllreduce::Member::leader_take(const CanaryPacket& c, uint64_t b, unsigned attempt, int from) {
  Lead& l = leads_[b];
  if (c.elements.empty()) {  // a request
    if (c.h.counter != 0 || from < 0) return void(++owner_.base_.stray_packets);
    if (l.complete) {
      ++owner_.counts_.results_resent;
      return void(send(header(fs_host_ipv4(unsigned(from)), c.h.id, uint16_t(size() - 1), CANARY_FLAG_BYPASS), l.result));
    }
    if (attempt == l.attempt) return lead_failed(b, unsigned(from));
    if (attempt < l.attempt)  // it missed the failure of that attempt
      send(header(fs_host_ipv4(unsigned(from)), c.h.id, 0, CANARY_FLAG_BYPASS), {});
    return;
  }
  if (l.complete || attempt != l.attempt) {
    if (l.complete && fallback(attempt) && from >= 0) {  // a fallback sender that missed the result
      ++owner_.counts_.results_resent;
      return void(send(header(fs_host_ipv4(unsigned(from)), c.h.id, uint16_t(size() - 1), CANARY_FLAG_BYPASS), l.result));
    }
    return void(++owner_.counts_.late_packets);
  }
  if (fallback(attempt) && (from < 0 || !l.fallback_from.insert(unsigned(from)).second))
    return void(++owner_.counts_.late_packets);  // a resend it has already
  ++owner_.counts_.leader_packets;
  if ((c.h.flags & CANARY_FLAG_BYPASS) && c.h.switch_address != 0) {
    ++owner_.counts_.collisions;
    l.collisions.insert({c.h.switch_address, c.h.children});
  }
  if (l.acc.empty()) l.acc.assign(owner_.elements(b), 0);
  for (size_t i = 0; i < l.acc.size(); ++i) l.acc[i] += uint32_t(c.elements[i]);
  l.counted += c.h.counter;
  if (l.counted >= size() - 1u) lead_complete(b);
}

// Every host's data is in: the result, checked, goes out as the broadcast (and to the subtrees
// behind collisions), or in the fallback to each host.
void CanaryAllreduce::Member::lead_complete(uint64_t b) {
  Lead& l = leads_[b];
  l.complete = true;
  l.result = own_data(b);
  for (size_t i = 0; i < l.result.size(); ++i) l.result[i] = int32_t(uint32_t(l.result[i]) + l.acc[i]);
  if (l.counted != size() - 1u && !owner_.wrong_++)
    owner_.first_problem_ = "host " + std::to_string(host_) + ", leader of block " + std::to_string(b) +
                            ": counters add up to " + std::to_string(l.counted) + " hosts, not " +
                            std::to_string(size() - 1);
  owner_.check(host_, group_, b, l.result);
  const uint32_t id = id_of(b, l.attempt);
  const uint16_t counter = uint16_t(size() - 1);
  if (fallback(l.attempt)) {
    ++owner_.counts_.fallback_blocks;
    for (unsigned h : owner_.groups_[group_].hosts)
      if (h != host_) send(header(fs_host_ipv4(h), id, counter, CANARY_FLAG_BYPASS), l.result);
  } else {
    send(header(fs_host_ipv4(host_), id, counter, CANARY_FLAG_MULTICAST), l.result);
    for (const auto& [sw, port] : l.collisions) {
      canary_header_t h = header(fs_fabric_switch_ipv4(sw), id, counter, CANARY_FLAG_BYPASS | CANARY_FLAG_MULTICAST);
      h.switch_address = sw, h.children = port;
      ++owner_.counts_.restorations;
      send(h, l.result);
    }
  }
  l.acc.clear();
  l.collisions.clear();
  block_done();
}

// A request for the attempt it is collecting: some packet was lost (3.3). The failure goes down
// the tree (freeing the descriptors it meets) and to the requester; the block's next attempt
// starts.
void CanaryAllreduce::Member::lead_failed(uint64_t b, unsigned requester) {
  Lead& l = leads_[b];
  ++owner_.counts_.failures;
  const uint32_t id = id_of(b, l.attempt);
  send(header(fs_host_ipv4(host_), id, 0, CANARY_FLAG_MULTICAST), {});
  send(header(fs_host_ipv4(requester), id, 0, CANARY_FLAG_BYPASS), {});
  ++l.attempt;
  l.acc.clear();
  l.counted = 0;
  l.collisions.clear();
  l.fallback_from.clear();
}

void check_canary_setup(const Config& cfg, size_t members) {
  const CanaryConfig& c = canary_config(cfg);
  if (members < 2)
    throw InputError("hosts.members: a Canary allreduce needs at least 2 hosts (a leader and a sender); got " +
                     std::to_string(members));
  if (cfg.hosts.dtype != "int32" || cfg.hosts.op != "sum")
    throw InputError("hosts.dtype, hosts.op: Canary's switches sum int32 elements; set hosts.dtype int32 and hosts.op sum");
  if (cfg.hosts.elem_bytes % CANARY_ELEMENT_BYTES || cfg.hosts.elem_bytes > CANARY_ELEMENTS * CANARY_ELEMENT_BYTES)
    throw InputError("hosts.elem_bytes: a Canary packet carries whole int32 elements, at most " +
                     std::to_string(CANARY_ELEMENTS) + " (" + std::to_string(CANARY_ELEMENTS * CANARY_ELEMENT_BYTES) +
                     " bytes); got " + std::to_string(cfg.hosts.elem_bytes));
  if (cfg.hosts.bytes % CANARY_ELEMENT_BYTES)
    throw InputError("hosts.bytes: " + std::to_string(cfg.hosts.bytes) + " bytes are not whole int32 elements");
  if (cfg.hosts.loss > 0)
    throw InputError("hosts.loss: Canary's hosts lose nothing themselves; their losses are the network's "
                     "(network.link_loss, a link's loss= or queue_bytes= in a topology file)");
  if (c.app + cfg.hosts.groups > (1u << CANARY_APP_BITS))
    throw InputError("canary.app + hosts.groups: the groups' application ids go up to " +
                     std::to_string((1u << CANARY_APP_BITS) - 1));
  const uint64_t per_packet = cfg.hosts.elem_bytes / CANARY_ELEMENT_BYTES;
  const uint64_t blocks = (cfg.hosts.bytes / CANARY_ELEMENT_BYTES + per_packet - 1) / per_packet;
  if ((uint64_t(c.max_attempts) + 1) * blocks > (1ull << (32 - CANARY_APP_BITS)))
    throw InputError("hosts.bytes: " + std::to_string(blocks) + " blocks under " + std::to_string(c.max_attempts + 1) +
                     " ids each (canary.max_attempts + 1) exceed the ids' " + std::to_string(32 - CANARY_APP_BITS) +
                     "-bit sequence numbers");
}

CanaryAllreduce::CanaryAllreduce(sc_core::sc_module_name name, const Config& cfg, Network& net,
                                 const std::vector<unsigned>& members)
    : sc_core::sc_module(name), net_(net), bytes_(cfg.hosts.bytes) {
  const CanaryConfig& c = canary_config(cfg);
  check_canary_setup(cfg, members.size());
  per_packet_ = cfg.hosts.elem_bytes / CANARY_ELEMENT_BYTES;
  blocks_ = (bytes_ / CANARY_ELEMENT_BYTES + per_packet_ - 1) / per_packet_;
  max_attempts_ = c.max_attempts;
  timeout_ = Picos(cfg.hosts.timeout_ns) * kPicosPerNs;
  noise_ = c.noise;
  noise_delay_ = Picos(c.noise_ns) * kPicosPerNs;
  seed_ = cfg.seed;
  values_seed_ = component_seed(cfg.seed, "canary.values");
  const std::vector<std::vector<unsigned>> cut = member_groups(members, cfg.hosts.groups, 2, "Canary");
  for (unsigned g = 0; g < cut.size(); ++g) {
    Group grp;
    grp.app = c.app + g;
    grp.hosts = cut[g];
    groups_.push_back(std::move(grp));
  }
  net.join_allreduce(members.size());
  for (unsigned g = 0; g < groups_.size(); ++g)
    for (unsigned r = 0; r < groups_[g].hosts.size(); ++r)
      members_.push_back(std::make_unique<Member>(("member" + std::to_string(members_.size())).c_str(), *this, g, r,
                                                  groups_[g].hosts[r]));
}

CanaryAllreduce::~CanaryAllreduce() = default;

unsigned CanaryAllreduce::elements(uint64_t block) const {
  const uint64_t total = bytes_ / CANARY_ELEMENT_BYTES;
  return unsigned(std::min<uint64_t>(per_packet_, total - block * per_packet_));
}

int32_t CanaryAllreduce::value(unsigned group, unsigned rank, uint64_t block, unsigned i) const {
  return member_value(values_seed_, group, rank, block * per_packet_ + i);
}

std::vector<int32_t> CanaryAllreduce::reduction(unsigned group, uint64_t block) const {
  std::vector<uint32_t> sum(elements(block), 0);
  for (unsigned r = 0; r < groups_[group].hosts.size(); ++r)
    for (unsigned i = 0; i < sum.size(); ++i) sum[i] += uint32_t(value(group, r, block, i));
  return std::vector<int32_t>(sum.begin(), sum.end());
}

const std::vector<int32_t>& CanaryAllreduce::reference(unsigned group, uint64_t block) {
  Reference& r = references_[{group, block}];
  if (r.values.empty()) r.values = reduction(group, block);
  return r.values;
}

void CanaryAllreduce::release_reference(unsigned group, uint64_t block) {
  const auto it = references_.find({group, block});
  if (it != references_.end() && ++it->second.takers == groups_[group].hosts.size()) references_.erase(it);
}

void CanaryAllreduce::check(unsigned host, unsigned group, uint64_t block, const std::vector<int32_t>& got) {
  const std::vector<int32_t>& want = reference(group, block);
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (!wrong_++)
        first_problem_ = "host " + std::to_string(host) + ", block " + std::to_string(block) + ", element " +
                         std::to_string(i) + ": got " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
      break;
    }
  release_reference(group, block);
}

AllreduceStats CanaryAllreduce::stats() const {
  AllreduceStats s = base_;
  s.model = kCanaryModel;
  s.hosts = members_.size();
  s.bytes = bytes_;
  s.gave_up = 0;
  s.unfinished_ranks = 0;
  for (const auto& m : members_) {
    s.gave_up += m->gave_up;
    s.unfinished_ranks += m->completed != blocks_;
  }
  s.details = {{"requests", counts_.requests},
               {"results_resent", counts_.results_resent},
               {"failures", counts_.failures},
               {"fallback_blocks", counts_.fallback_blocks},
               {"leader_packets", counts_.leader_packets},
               {"collisions", counts_.collisions},
               {"restorations", counts_.restorations},
               {"noise_delays", counts_.noise_delays},
               {"late_packets", counts_.late_packets},
               {"duplicate_results", counts_.duplicate_results}};
  s.conclude(done_at_, !wrong_);
  // Each group's goodput: a member's bytes over the group's time (0 for one not done), averaged.
  s.groups = groups_.size();
  s.goodput_gbps = 0;
  for (const Group& g : groups_)
    if (g.done == g.hosts.size() && g.done_at)
      s.goodput_gbps += double(bytes_) * 8.0 * 1e3 / double(g.done_at) / double(groups_.size());
  return s;
}

std::string CanaryAllreduce::failure() const {
  if (wrong_)
    return "the Canary allreduce's results are wrong: " + std::to_string(wrong_) + " wrong in all; the first: " +
           first_problem_;
  const AllreduceStats s = stats();
  for (const auto& m : members_)
    if (m->completed != blocks_)
      return "the Canary allreduce did not complete: " + std::to_string(s.unfinished_ranks) + " of " +
             std::to_string(members_.size()) + " members are missing results (the first of them has " +
             std::to_string(m->completed) + " of " + std::to_string(blocks_) + " blocks; " +
             std::to_string(s.gave_up) + " blocks given up in all)";
  return "";
}

CanaryFabricRole::CanaryFabricRole(const Config& cfg, const Topology& t) : cfg_(cfg) {
  if (cfg.hosts.model != kCanaryModel) return;
  members_ = member_hosts(cfg.hosts.members, unsigned(t.hosts().size()));
  check_canary_setup(cfg, members_.size());
  member_groups(members_, cfg.hosts.groups, 2, "Canary");  // refuses too many groups now
}

void CanaryFabricRole::configure_switch(unsigned index, Config& c) const {
  if (cfg_.hosts.model == kCanaryModel) canary_config(c).switch_address = index + 1;
}

std::unique_ptr<NetworkAllreduce> CanaryFabricRole::attach(Network& net) const {
  if (cfg_.hosts.model != kCanaryModel) return nullptr;
  return std::make_unique<CanaryAllreduce>("canary", cfg_, net, members_);
}

}  // namespace fs
