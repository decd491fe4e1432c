// A Rina training job's members (see rina_jobs.h).
#include "protocols/rina/rina_jobs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/fnv1a.h"
#include "common/text.h"
#include "common/sc_time_util.h"
#include "fs_packet.h"
#include "network/training_models.h"
#include "protocols/rina/rina_config.h"
#include "protocols/rina/rina_frame.h"
#include "protocols/rina/rina_window.h"

namespace fs {
namespace {

// A packet of a chunk's step in one iteration.
using PacketKey = std::tuple<unsigned, unsigned, unsigned, uint32_t>;  // iteration, chunk, step, packet
constexpr Picos kNever = ~Picos(0);

}  // namespace

// One member: its iterations (compute, then its part of that iteration's ring), its sends under
// its windows, and what it takes. A member that fails stops before its failure's iteration.
class RinaJobs::Member : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(Member);
  Member(sc_core::sc_module_name name, RinaJobs& owner, unsigned rank)
      : sc_core::sc_module(name),
        owner_(owner),
        rank_(rank),
        host_(owner.hosts_[rank]),
        gbps_(owner.rate_gbps_ > 0 ? std::min(owner.rate_gbps_, owner.net_.host(host_).nic().params().gbps)
                                   : owner.net_.host(host_).nic().params().gbps),
        scatter_(owner.window_, owner.window_),
        gather_(1, owner.window_) {
    owner.net_.host(host_).bind_udp(RINA_UDP_PORT_DEFAULT, this);
    SC_THREAD(run);
    SC_THREAD(send_loop);
    SC_THREAD(ack_loop);
  }

  void accept(PacketPtr p) override;
  // Done: every iteration it takes part in has its results.
  bool done() const { return iterations_done_ == owner_.live_iterations(rank_); }
  uint64_t window_cuts() const { return scatter_.cuts() + gather_.cuts(); }

 private:
  // What the member is in one iteration's ring.
  struct Role {
    bool live = false;
    unsigned group = 0, member = 0;
    bool ina = false;
    uint32_t tor = 0, next_entry = 0;
    std::vector<uint32_t> rack;  // the group's members' IPv4 addresses, member order
    bool agent() const { return ina && member == 0; }
    bool entry() const { return member == 0; }  // the group's entry: its agent, or the autonomous worker
  };
  struct Send {
    rina_header_t h{};
    uint32_t dst = 0;
    bool ready = true;
    std::vector<int32_t> values;
  };
  struct Iteration {
    uint64_t have = 0;  // packets of the complete sums taken
    std::set<std::pair<unsigned, uint32_t>> got;  // (chunk, packet)
    std::map<std::tuple<unsigned, unsigned, uint32_t>, std::vector<int32_t>> partial;  // (chunk, step, packet)
    std::set<std::pair<unsigned, unsigned>> tasked;  // (chunk, step) whose TASK the agent sent
    std::set<std::pair<unsigned, unsigned>> began;   // (chunk, step) the group's entry began
  };
  // Packets of one sender's stream (a chunk's step) taken in a row, not yet acknowledged.
  struct AckRun {
    uint32_t first = 0, count = 0;
    bool ce = false;
    Picos since = 0;  // when its first packet came
  };
  using Stream = std::tuple<uint32_t, unsigned, unsigned, unsigned>;  // sender, iteration, chunk, step
  struct Flight {
    bool grad = false, gather = false;  // a GRAD; a complete sum handed on (the AllGather window's)
    uint64_t slot_index = 0;            // a GRAD's x
    Picos sent_at = 0;
  };
  static bool gathers(const Send& s) { return s.h.kind == RINA_DATA && (s.h.flags & RINA_FLAG_FULL); }

  const RinaRing& ring(unsigned i) const { return owner_.rings_[i]; }
  const Role& role(unsigned i);
  std::vector<int32_t> local(unsigned iteration, unsigned c, uint32_t j) const {
    const RinaRing& r = ring(iteration);
    std::vector<int32_t> v(r.packet_elements(c, j));
    const uint64_t first = r.chunk_start(c) + uint64_t(j) * r.per_packet;
    for (unsigned k = 0; k < v.size(); ++k) v[k] = owner_.value(iteration, rank_, first + k);
    return v;
  }
  // The summing steps over the iterations, in order: step s of iteration i is the
  // (G_0 + .. + G_{i-1} + s - 1)-th; and the GRAD slot index x of a packet of it (rina_jobs.h).
  uint64_t ordinal(unsigned i, unsigned s) const { return owner_.first_ordinal_[i] + (s - 1); }
  uint64_t index_of(unsigned i, unsigned s, uint32_t j) const {
    return owner_.first_index_[i] + uint64_t(s - 1) * ring(i).most_packets + j;
  }
  rina_header_t header(uint8_t kind, unsigned iteration, unsigned c, unsigned s, uint32_t j = 0) const {
    rina_header_t h{};
    h.kind = kind, h.iteration = uint16_t(iteration), h.chunk = uint16_t(c), h.step = uint16_t(s);
    h.groups = uint16_t(ring(iteration).size()), h.packet = uint16_t(j);
    return h;
  }

  void run();
  void send_loop();
  bool sendable(const Send& s);  // (and tells a window that holds it back)
  void send_now(const rina_header_t& h, uint32_t dst, const std::vector<int32_t>& values,
                const std::vector<uint32_t>& members = {});
  void start_iteration(unsigned iteration);
  void task(unsigned iteration, unsigned c, unsigned s);
  void pulled(const RinaPacket& p);
  void partial(const RinaPacket& p);
  void complete(const RinaPacket& p);
  void acked(const RinaPacket& p);
  bool settle(const PacketKey& key, bool ece);
  void ack(const RinaPacket& p, unsigned step);
  void flush(const Stream& s, const AckRun& r);
  void ack_loop();
  void take_result(const RinaPacket& p);
  void began(unsigned iteration, unsigned c, unsigned s) {
    if (iterations_[iteration].began.insert({c, s}).second) owner_.step_began(role(iteration).group, iteration, c, s);
  }

  RinaJobs& owner_;
  const unsigned rank_, host_;
  std::map<unsigned, Role> roles_;
  std::map<unsigned, Iteration> iterations_;
  unsigned iterations_done_ = 0;
  unsigned computed_ = 0;  // iterations whose gradients are computed (the first computed_)
  std::deque<Send> queue_;
  const double gbps_;               // the sender's full speed
  RinaWindow scatter_, gather_;      // the ScatterReduce and AllGather windows
  uint64_t scatter_flight_ = 0, gather_flight_ = 0;
  std::map<PacketKey, Flight> in_flight_;  // sent, unacknowledged
  std::set<uint64_t> open_slots_;          // the GRADs' slot indices among them
  std::set<uint64_t> pulled_;              // ordinals of the steps pulled, past pulled_upto_
  uint64_t pulled_upto_ = 0;               // every step of a lower ordinal has been pulled
  std::map<Stream, AckRun> acks_;          // what this entry has taken and not yet acknowledged
  sc_core::sc_event wake_, progress_, ack_wake_;
};

const RinaJobs::Member::Role& RinaJobs::Member::role(unsigned i) {
  auto it = roles_.find(i);
  if (it != roles_.end()) return it->second;
  Role r;
  const RinaRing& rg = ring(i);
  if (rg.group_of_rank[rank_] >= 0) {
    r.live = true;
    r.group = unsigned(rg.group_of_rank[rank_]);
    const RinaGroup& grp = rg.groups[r.group];
    r.ina = grp.ina;
    r.member = unsigned(std::find(grp.ranks.begin(), grp.ranks.end(), rank_) - grp.ranks.begin());
    if (r.ina) r.tor = fs_fabric_switch_ipv4(grp.tor + 1);
    for (unsigned k : grp.ranks) r.rack.push_back(fs_host_ipv4(owner_.hosts_[k]));
    // The next group's entry: its agent (or autonomous worker), or the switch of a group above
    // racks, which the paths to its agent need not all cross.
    const RinaGroup& next = rg.groups[(r.group + 1) % rg.size()];
    r.next_entry = next.above_racks ? fs_fabric_switch_ipv4(next.tor + 1) : fs_host_ipv4(owner_.hosts_[next.ranks[0]]);
  }
  return roles_.emplace(i, std::move(r)).first->second;
}

void RinaJobs::Member::run() {
  const unsigned live = owner_.live_iterations(rank_);
  for (unsigned i = 0; i < live; ++i) {
    const Picos start = now_ps();
    wait(ps_time(owner_.compute_));
    owner_.iteration_began(i, start);
    start_iteration(i);
    while (iterations_[i].have < ring(i).packets()) wait(progress_);
    owner_.iteration_done(i);
    iterations_.erase(i);
    ++iterations_done_;
  }
  if (live < owner_.iterations_) ++owner_.counts_.failed;  // from then on it is down
  owner_.done_at_ = std::max(owner_.done_at_, now_ps());
  owner_.net_.member_done();
}

// The iteration's first step: an agent tasks its switch with its own chunk, an autonomous worker
// sends its chunk's packets on; with one group its own gradient is the whole sum.
void RinaJobs::Member::start_iteration(unsigned i) {
  computed_ = i + 1;
  wake_.notify(sc_core::SC_ZERO_TIME);
  const Role& me = role(i);
  const unsigned c = me.group, groups = ring(i).size();
  if (me.entry()) began(i, c, 1);
  if (me.agent()) return task(i, c, 1);
  if (me.ina) return;  // its switch pulls it
  for (uint32_t j = 0; j < ring(i).chunk_packets(c); ++j) {
    RinaPacket own;
    own.h = header(RINA_DATA, i, c, 1, j);
    own.values = local(i, c, j);
    if (groups == 1) {
      own.h.flags = RINA_FLAG_FULL;
      take_result(own);
      continue;
    }
    Send s;
    s.h = own.h, s.dst = me.next_entry, s.values = std::move(own.values);
    queue_.push_back(std::move(s));
  }
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void RinaJobs::Member::task(unsigned i, unsigned c, unsigned s) {
  if (!iterations_[i].tasked.insert({c, s}).second) return;
  const Role& me = role(i);
  rina_header_t h = header(RINA_TASK, i, c, s);
  h.packet = uint16_t(ring(i).chunk_packets(c)), h.next = me.next_entry;
  ++owner_.counts_.tasks;
  send_now(h, me.tor, {}, me.rack);
}

bool RinaJobs::Member::sendable(const Send& s) {
  if (!s.ready || s.h.iteration >= computed_) return false;
  RinaWindow& w = gathers(s) ? gather_ : scatter_;
  if ((gathers(s) ? gather_flight_ : scatter_flight_) >= w.packets()) {
    w.held_back();
    return false;
  }
  if (s.h.kind != RINA_GRAD) return true;
  if (ordinal(s.h.iteration, s.h.step) >= pulled_upto_) return false;  // an earlier step's PULL is still to come
  return open_slots_.empty() || index_of(s.h.iteration, s.h.step, s.h.packet) < *open_slots_.begin() + owner_.slots_;
}

// Sends the queue's packets in order, each when it is ready and its window lets it go, paced at
// the sender's full speed (its link's wire time of the frame, stretched by the link's rate over
// full speed).
void RinaJobs::Member::send_loop() {
  const LinkParams& link = owner_.net_.host(host_).nic().params();
  for (;;) {
    while (queue_.empty() || !sendable(queue_.front())) wait(wake_);
    Send s = std::move(queue_.front());
    queue_.pop_front();
    Flight f;
    f.grad = s.h.kind == RINA_GRAD, f.gather = gathers(s), f.sent_at = now_ps();
    ++(f.gather ? gather_flight_ : scatter_flight_);
    if (f.grad) f.slot_index = index_of(s.h.iteration, s.h.step, s.h.packet), open_slots_.insert(f.slot_index);
    in_flight_[{s.h.iteration, s.h.chunk, s.h.step, s.h.packet}] = f;
    ++(s.h.kind == RINA_GRAD ? owner_.counts_.grads : owner_.counts_.data);
    const size_t bytes = RINA_PAYLOAD_OFFSET + RINA_HEADER_BYTES + s.values.size() * RINA_ELEMENT_BYTES;
    send_now(s.h, s.dst, s.values);
    wait(ps_time(Picos(std::llround(double(link.wire_time_of(bytes)) * link.gbps / gbps_))));
  }
}

void RinaJobs::Member::send_now(const rina_header_t& h, uint32_t dst, const std::vector<int32_t>& values,
                                const std::vector<uint32_t>& members) {
  auto p = std::make_shared<Packet>();
  p->data = build_rina_packet(h, host_, dst, values, members);
  ++owner_.base_.packets_sent;
  owner_.base_.bytes_sent += p->data.size();
  owner_.net_.host(host_).send(std::move(p));
}

void RinaJobs::Member::accept(PacketPtr pkt) {
  RinaPacket p;
  std::string why;
  if (!parse_rina_packet(pkt->data.data(), pkt->data.size(), &p, &why) || p.h.iteration >= owner_.iterations_ ||
      p.h.groups != ring(p.h.iteration).size())
    return void(++owner_.base_.stray_packets);
  if (p.h.iteration >= owner_.live_iterations(rank_)) return void(++owner_.counts_.to_failed);  // it is down
  if (p.h.kind == RINA_ACK) return acked(p);  // (of sends of an iteration this member may be done with)
  if (p.h.iteration < iterations_done_) return void(++owner_.base_.stray_packets);
  const Role& me = role(p.h.iteration);
  switch (p.h.kind) {
    case RINA_PULL:
      if (!me.ina || p.src_ipv4 != me.tor) break;
      return pulled(p);
    case RINA_DATA:
      return (p.h.flags & RINA_FLAG_FULL) ? complete(p) : partial(p);
    default:
      break;
  }
  ++owner_.base_.stray_packets;
}

// The switch pulls this member's packets of the chunk's step: queued in the order of iteration
// and step, and sent in that order, whatever order the pulls came in (a switch may hand two on
// out of order): a step's packets wait until every earlier step has been pulled; the agent's wait
// for the partial sum's packets too (step 1: none). A step waits only for other groups' earlier
// steps, so with every group going through its steps in order nothing waits in a circle.
void RinaJobs::Member::pulled(const RinaPacket& p) {
  ++owner_.counts_.pulls;
  const unsigned i = p.h.iteration, c = p.h.chunk, s = p.h.step;
  const Role& me = role(i);
  Iteration& it = iterations_[i];
  for (pulled_.insert(ordinal(i, s)); pulled_.count(pulled_upto_);) pulled_.erase(pulled_upto_++);
  auto at = queue_.begin();
  while (at != queue_.end() && std::make_pair(at->h.iteration, at->h.step) <= std::make_pair(p.h.iteration, p.h.step))
    ++at;
  for (uint32_t j = 0; j < ring(i).chunk_packets(c); ++j) {
    Send g;
    g.h = header(RINA_GRAD, i, c, s, j);
    g.h.member = uint8_t(me.member), g.h.members = uint8_t(me.rack.size());
    g.h.slot = uint16_t(index_of(i, s, j) % owner_.slots_);
    g.dst = me.tor;
    g.values = local(i, c, j);
    if (me.agent() && s > 1) {
      const auto part = it.partial.find({c, s - 1, j});
      g.ready = part != it.partial.end();
      if (g.ready) {
        for (size_t k = 0; k < g.values.size(); ++k) g.values[k] = int32_t(uint32_t(g.values[k]) + uint32_t(part->second[k]));
        it.partial.erase(part);
      }
    }
    at = std::next(queue_.insert(at, std::move(g)));
  }
  wake_.notify(sc_core::SC_ZERO_TIME);
}

// A packet of a partial sum for this group's next summing step: the agent keeps it for its GRAD
// (and tasks its switch on the first); an autonomous worker adds its own and sends it on.
void RinaJobs::Member::partial(const RinaPacket& p) {
  const Role& me = role(p.h.iteration);
  const unsigned groups = ring(p.h.iteration).size();
  if (!me.entry() || p.h.step >= groups ||
      p.values.size() != ring(p.h.iteration).packet_elements(p.h.chunk, p.h.packet))
    return void(++owner_.base_.stray_packets);
  ack(p, p.h.step);
  const unsigned i = p.h.iteration, c = p.h.chunk, s = p.h.step + 1;
  Iteration& it = iterations_[i];
  began(i, c, s);
  if (me.agent()) {
    task(i, c, s);
    // A GRAD of the step already queued waits for this packet.
    for (Send& q : queue_)
      if (!q.ready && q.h.iteration == i && q.h.chunk == c && q.h.step == s && q.h.packet == p.h.packet) {
        for (size_t k = 0; k < q.values.size(); ++k) q.values[k] = int32_t(uint32_t(q.values[k]) + uint32_t(p.values[k]));
        q.ready = true;
        wake_.notify(sc_core::SC_ZERO_TIME);
        return;
      }
    it.partial[{c, p.h.step, p.h.packet}] = p.values;
    return;
  }
  Send d;
  d.h = header(RINA_DATA, i, c, s, p.h.packet);
  d.h.flags = uint8_t(s == groups ? RINA_FLAG_FULL : 0);
  d.dst = me.next_entry;
  d.values = local(i, c, p.h.packet);
  for (size_t k = 0; k < d.values.size(); ++k) d.values[k] = int32_t(uint32_t(d.values[k]) + uint32_t(p.values[k]));
  if (s == groups) {
    RinaPacket own = p;
    own.h = d.h, own.values = d.values;
    take_result(own);
  }
  queue_.push_back(std::move(d));
  wake_.notify(sc_core::SC_ZERO_TIME);
}

// A packet of a chunk's complete sum: this member's result. The group's entry ACKs it unless its
// own switch made it; an autonomous worker hands it on unless its step is the chunk's last.
void RinaJobs::Member::complete(const RinaPacket& p) {
  if (p.values.size() != ring(p.h.iteration).packet_elements(p.h.chunk, p.h.packet))
    return void(++owner_.base_.stray_packets);
  const Role& me = role(p.h.iteration);
  const bool own_sum = me.ina && p.src_ipv4 == me.tor;
  if (own_sum && ring(p.h.iteration).size() == 1) {
    // A ring of one group has no next entry to ACK the switch's sum: the sum itself answers the
    // member's GRAD for the packet.
    settle({p.h.iteration, p.h.chunk, p.h.step, p.h.packet}, p.ce);
    wake_.notify(sc_core::SC_ZERO_TIME);
  }
  if (me.entry() && !own_sum) {
    // An INA switch relays it with its own step; the sender's is the one before.
    const unsigned s = me.ina ? p.h.step : p.h.step + 1u;
    ack(p, s - 1);
    began(p.h.iteration, p.h.chunk, s);
    if (!me.ina && s < 2 * ring(p.h.iteration).size() - 1) {
      Send d;
      d.h = p.h, d.h.step = uint16_t(s), d.dst = me.next_entry, d.values = p.values;
      queue_.push_back(std::move(d));
      wake_.notify(sc_core::SC_ZERO_TIME);
    }
  }
  take_result(p);
}

void RinaJobs::Member::take_result(const RinaPacket& p) {
  Iteration& it = iterations_[p.h.iteration];
  if (!it.got.insert({p.h.chunk, p.h.packet}).second) return void(++owner_.counts_.duplicate_deliveries);
  ++owner_.counts_.deliveries;
  owner_.check(p.h.iteration, rank_, p.h.chunk, p.h.packet, p.values);
  ++it.have;
  progress_.notify(sc_core::SC_ZERO_TIME);
}

// An ACK of packets `packet` .. `packet` + members - 1 of a chunk's step.
void RinaJobs::Member::acked(const RinaPacket& p) {
  for (uint32_t k = 0; k < p.h.members; ++k)
    if (!settle({p.h.iteration, p.h.chunk, p.h.step, p.h.packet + k}, p.h.flags & RINA_FLAG_ECE))
      ++owner_.base_.stray_packets;
  wake_.notify(sc_core::SC_ZERO_TIME);
}

// A packet in flight answered (ECE: it met congestion): out of its window; false if it was not.
bool RinaJobs::Member::settle(const PacketKey& key, bool ece) {
  const auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return false;
  if (it->second.grad) open_slots_.erase(it->second.slot_index);
  --(it->second.gather ? gather_flight_ : scatter_flight_);
  (it->second.gather ? gather_ : scatter_).acked(now_ps(), now_ps() - it->second.sent_at, ece);
  in_flight_.erase(it);
  return true;
}

// A DATA this group's entry took, sent at `step`, to be acknowledged to its sender: with the
// packets of its stream taken in a row before it, in one ACK once rina.ack_every of them came,
// the chunk's last came, the row broke, or rina.ack_delay_ns passed since its first.
void RinaJobs::Member::ack(const RinaPacket& p, unsigned step) {
  const Stream key{p.src_ipv4, p.h.iteration, p.h.chunk, step};
  auto it = acks_.find(key);
  if (it != acks_.end() && p.h.packet != it->second.first + it->second.count) {
    flush(it->first, it->second);
    acks_.erase(it);
    it = acks_.end();
  }
  if (it == acks_.end()) {
    AckRun r;
    r.first = p.h.packet, r.since = now_ps();
    it = acks_.emplace(key, r).first;
    ack_wake_.notify(sc_core::SC_ZERO_TIME);
  }
  AckRun& r = it->second;
  ++r.count, r.ce |= p.ce;
  if (r.count >= owner_.ack_every_ || uint32_t(p.h.packet) + 1 == ring(p.h.iteration).chunk_packets(p.h.chunk)) {
    flush(it->first, r);
    acks_.erase(it);
  }
}

void RinaJobs::Member::flush(const Stream& s, const AckRun& r) {
  rina_header_t a = header(RINA_ACK, std::get<1>(s), std::get<2>(s), std::get<3>(s), r.first);
  a.members = uint8_t(r.count), a.flags = uint8_t(r.ce ? RINA_FLAG_ECE : 0u);
  ++owner_.counts_.acks;
  ++owner_.base_.acks_sent;
  send_now(a, std::get<0>(s), {});
}

// Sends the ACKs whose rows waited rina.ack_delay_ns since their first packet.
void RinaJobs::Member::ack_loop() {
  for (;;) {
    if (acks_.empty()) {
      wait(ack_wake_);
      continue;
    }
    Picos first = ~Picos(0);
    for (const auto& [key, r] : acks_) first = std::min(first, r.since);
    const Picos due = first + owner_.ack_delay_;
    if (due > now_ps()) {
      wait(ps_time(due - now_ps()), ack_wake_);
      continue;
    }
    for (auto it = acks_.begin(); it != acks_.end();)
      if (it->second.since + owner_.ack_delay_ <= now_ps()) {
        flush(it->first, it->second);
        it = acks_.erase(it);
      } else {
        ++it;
      }
  }
}

namespace {

// The gradient bytes and compute time of an iteration, as rina.model says.
TrainingWorkload workload(const Config& cfg) {
  const RinaConfig& r = rina_config(cfg);
  return training_workload("rina.model", r.model, cfg.hosts.bytes, r.compute_us, r.scale, r.batch);
}

}  // namespace

std::vector<unsigned> rina_failures(const std::string& text, const std::vector<unsigned>& members, unsigned iterations) {
  std::vector<unsigned> at(members.size(), iterations + 1);
  std::stringstream in(text);
  for (std::string entry; std::getline(in, entry, ',');) {
    entry = trim(entry);
    if (entry.empty()) continue;
    const size_t sep = entry.find('@');
    const auto number = [&](const std::string& t, const char* what) {
      const std::string v = trim(t);
      if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos)
        throw InputError("rina.failed: '" + entry + "': the " + what + " '" + v + "' is not a number");
      return unsigned(std::stoul(v));
    };
    if (sep == std::string::npos) throw InputError("rina.failed: '" + entry + "' is not HOST@ITERATION");
    const unsigned host = number(entry.substr(0, sep), "host"), iteration = number(entry.substr(sep + 1), "iteration");
    const auto rank = std::find(members.begin(), members.end(), host);
    if (rank == members.end()) throw InputError("rina.failed: host " + std::to_string(host) + " is not a member (hosts.members)");
    if (iteration >= iterations)
      throw InputError("rina.failed: '" + entry + "': iteration " + std::to_string(iteration) + " of " +
                       std::to_string(iterations) + " (rina.iterations; the first is 0)");
    if (at[size_t(rank - members.begin())] <= iterations)
      throw InputError("rina.failed: host " + std::to_string(host) + " fails twice");
    at[size_t(rank - members.begin())] = iteration;
  }
  for (unsigned i = 0; i < iterations; ++i)
    if (std::all_of(at.begin(), at.end(), [i](unsigned f) { return f <= i; }))
      throw InputError("rina.failed: every member is down by iteration " + std::to_string(i));
  return at;
}

void rina_check_setup(const Config& cfg, const std::vector<RinaGroup>& groups) {
  const RinaConfig& r = rina_config(cfg);
  if (r.packet_bytes % RINA_ELEMENT_BYTES)
    throw InputError("rina.packet_bytes: " + std::to_string(r.packet_bytes) + " is not a multiple of 4");
  if (cfg.hosts.dtype != "int32" || cfg.hosts.op != "sum")
    throw InputError("hosts.dtype: Rina's workers reduce int32 gradients, summed (hosts.dtype int32, hosts.op sum)");
  if (groups.size() > RINA_MAX_GROUPS)
    throw InputError("hosts.members: " + std::to_string(groups.size()) + " groups in the ring, more than " +
                     std::to_string(RINA_MAX_GROUPS));
  for (const RinaGroup& g : groups) {
    if (g.ranks.size() > RINA_MAX_MEMBERS)
      throw InputError("hosts.members: a rack of " + std::to_string(g.ranks.size()) + " members behind one INA "
                       "switch, more than " + std::to_string(RINA_MAX_MEMBERS));
    if (g.ina && !r.aggregators)
      throw InputError("rina.aggregators: the INA switches of hosts.model rina need aggregator slots "
                       "(rina.aggregators >= 1)");
  }
  workload(cfg);
}

RinaJobs::RinaJobs(sc_core::sc_module_name name, const Config& cfg, Network& net, const std::vector<unsigned>& members)
    : sc_core::sc_module(name), cfg_(cfg), net_(net), hosts_(members) {
  const RinaConfig& r = rina_config(cfg);
  fails_at_ = rina_failures(r.failed, members, r.iterations);
  const TrainingWorkload w = workload(cfg);
  const uint64_t bytes = w.gradient_bytes;
  compute_ = w.compute;
  per_packet_ = r.packet_bytes / RINA_ELEMENT_BYTES;
  iterations_ = r.iterations, window_ = r.window, slots_ = std::max(1u, r.aggregators), batch_ = r.batch;
  rate_gbps_ = r.rate_gbps, ack_every_ = r.ack_every, ack_delay_ = Picos(r.ack_delay_ns) * kPicosPerNs;
  uint64_t ordinal = 0, index = 0;
  for (unsigned i = 0; i < iterations_; ++i) {
    std::vector<bool> down(members.size());
    for (unsigned rank = 0; rank < members.size(); ++rank) down[rank] = fails_at_[rank] <= i;
    rings_.emplace_back(rina_groups(net.topology(), members, down), members.size(), bytes / RINA_ELEMENT_BYTES,
                        per_packet_);
    rina_check_setup(cfg, rings_.back().groups);
    if (rings_.back().most_packets > 0xFFFF)
      throw InputError("rina.packet_bytes: a chunk of " + std::to_string(rings_.back().most_packets) +
                       " packets; at most 65535 (larger packets or more groups)");
    first_ordinal_.push_back(ordinal), first_index_.push_back(index);
    ordinal += rings_.back().size(), index += uint64_t(rings_.back().size()) * rings_.back().most_packets;
  }
  values_seed_ = component_seed(cfg.seed, "rina.values");
  began_.assign(iterations_, kNever), ended_.assign(iterations_, 0);
  sequence_.resize(rings_[0].size());
  net.join_allreduce(members.size());
  for (unsigned rank = 0; rank < members.size(); ++rank)
    members_.push_back(std::make_unique<Member>(("member" + std::to_string(rank)).c_str(), *this, rank));
}

RinaJobs::~RinaJobs() = default;

unsigned RinaJobs::live_iterations(unsigned rank) const { return std::min(fails_at_[rank], iterations_); }

int32_t RinaJobs::value(unsigned iteration, unsigned rank, uint64_t element) const {
  return member_value(values_seed_, iteration, rank, element);
}

// The sum of the live members' gradients (the failed take no part).
const std::vector<int32_t>& RinaJobs::sum_of(unsigned iteration) {
  if (sum_iteration_ != int(iteration)) {
    const RinaRing& r = rings_[iteration];
    std::vector<uint32_t> sum(r.elements, 0);
    for (unsigned rank = 0; rank < hosts_.size(); ++rank)
      if (r.group_of_rank[rank] >= 0)
        for (uint64_t e = 0; e < r.elements; ++e) sum[e] += uint32_t(value(iteration, rank, e));
    sum_.assign(sum.begin(), sum.end());
    sum_iteration_ = int(iteration);
  }
  return sum_;
}

void RinaJobs::check(unsigned iteration, unsigned rank, unsigned c, uint32_t j, const std::vector<int32_t>& got) {
  const std::vector<int32_t>& sum = sum_of(iteration);
  const uint64_t first = rings_[iteration].chunk_start(c) + uint64_t(j) * per_packet_;
  for (size_t k = 0; k < got.size(); ++k)
    if (got[k] != sum[first + k]) {
      if (!wrong_++)
        first_problem_ = "iteration " + std::to_string(iteration) + ", rank " + std::to_string(rank) + ", element " +
                         std::to_string(first + k) + ": got " + std::to_string(got[k]) + ", want " +
                         std::to_string(sum[first + k]);
      return;
    }
}

void RinaJobs::iteration_began(unsigned iteration, Picos compute_start) {
  began_[iteration] = std::min(began_[iteration], compute_start);
}

void RinaJobs::iteration_done(unsigned iteration) { ended_[iteration] = std::max(ended_[iteration], now_ps()); }

void RinaJobs::step_began(unsigned group, unsigned iteration, unsigned c, unsigned s) {
  if (iteration == 0) sequence_[group].push_back({s, c, now_ps()});
}

AllreduceStats RinaJobs::stats() const {
  AllreduceStats s = base_;
  s.model = kRinaModel;
  s.hosts = hosts_.size();
  s.bytes = rings_[0].elements * RINA_ELEMENT_BYTES * iterations_;
  s.unfinished_ranks = 0;
  for (const auto& m : members_) s.unfinished_ranks += !m->done();
  unsigned ina = 0;
  for (const RinaGroup& g : rings_[0].groups) ina += g.ina;
  const uint64_t G = rings_[0].size();
  s.details = {{"ring_groups", G},
               {"ina_groups", ina},
               {"autonomous_workers", G - ina},
               {"steps", 2 * G - 1},
               {"ring_steps", 2 * (hosts_.size() - 1)},
               {"tasks", counts_.tasks},
               {"pulls", counts_.pulls},
               {"grads", counts_.grads},
               {"data", counts_.data},
               {"deliveries", counts_.deliveries},
               {"duplicate_deliveries", counts_.duplicate_deliveries},
               {"window_cuts", window_cuts()},
               {"failed", counts_.failed},
               {"to_failed", counts_.to_failed},
               {"last_ring_groups", rings_.back().size()}};
  s.conclude(done_at_, !wrong_);
  double iteration_ps = 0;
  unsigned done = 0;
  for (unsigned i = 0; i < iterations_; ++i)
    if (ended_[i] && !s.unfinished_ranks) ++done, iteration_ps += double(ended_[i] - began_[i]);
  std::map<std::string, double> row;
  row["job"] = 0;
  row["workers"] = double(hosts_.size());
  row["iterations"] = done;
  row["iteration_us"] = done ? iteration_ps / done / double(kPicosPerUs) : 0.0;
  double live = 0;  // members an iteration, on average (the failed train no more)
  for (unsigned i = 0; i < iterations_; ++i)
    for (int g : rings_[i].group_of_rank) live += g >= 0 ? 1.0 / iterations_ : 0.0;
  row["samples_per_s"] = done ? batch_ * live / (iteration_ps / done / 1e12) : 0.0;
  s.jobs.push_back(std::move(row));
  for (unsigned g = 0; g < sequence_.size(); ++g) {
    std::vector<std::tuple<unsigned, unsigned, Picos>> steps = sequence_[g];
    std::sort(steps.begin(), steps.end());
    for (const auto& [step, c, at] : steps)
      s.series.push_back({{"group", g}, {"chunk", c}, {"step", step}, {"t_us", double(at) / double(kPicosPerUs)}});
  }
  return s;
}

uint64_t RinaJobs::window_cuts() const {
  uint64_t n = 0;
  for (const auto& m : members_) n += m->window_cuts();
  return n;
}

std::string RinaJobs::failure() const {
  if (wrong_)
    return "the rina job's results are wrong: " + std::to_string(wrong_) + " wrong packets in all; the first: " +
           first_problem_;
  const AllreduceStats s = stats();
  if (s.unfinished_ranks)
    return "the rina job did not complete: " + std::to_string(s.unfinished_ranks) + " of " +
           std::to_string(hosts_.size()) + " members are missing results (a lost packet is not sent again)";
  return "";
}

}  // namespace fs
