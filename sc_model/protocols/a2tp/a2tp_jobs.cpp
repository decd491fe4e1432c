// The training jobs' workers and parameter servers (see a2tp_jobs.h).
#include "protocols/a2tp/a2tp_jobs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/fnv1a.h"
#include "common/sc_time_util.h"
#include "common/splitmix64.h"
#include "common/text.h"
#include "fs_packet.h"
#include "net/ecn.h"
#include "net/trace_reader.h"
#include "network/training_models.h"
#include "protocols/a2tp/a2tp_config.h"
#include "protocols/a2tp/a2tp_frame.h"
#include "protocols/a2tp/a2tp_layout.h"
#include "protocols/a2tp/a2tp_model.h"
#include "protocols/a2tp/a2tp_ps.h"
#include "protocols/a2tp/a2tp_slots.h"
#include "a2tp/a2tp_switch.h"
#include "protocols/a2tp/a2tp_windows.h"

namespace fs {
namespace {

constexpr const char* kStragglersKey = "a2tp.stragglers";

// The number `text` is, whole (NaN if it is not one).
double number_of(const std::string& text) {
  size_t used = 0;
  try {
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nan("");
}

double parse_level(const std::string& text, const std::string& entry) {
  const double v = number_of(text);
  if (!(v > 0 && v <= 1))
    throw InputError(std::string(kStragglersKey) + ": '" + entry + "': the level '" + text +
                     "' is not a number above 0 and at most 1");
  return v;
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, by);) out.push_back(part);
  return out;
}

}  // namespace

std::vector<A2tpStraggler> parse_a2tp_stragglers(const std::string& text) {
  std::vector<A2tpStraggler> out;
  for (const std::string& raw : split(text, ';')) {
    const std::string entry = trim(raw);
    if (entry.empty()) continue;
    const size_t eq = entry.find('='), dot = entry.find('.');
    if (eq == std::string::npos || dot == std::string::npos || dot > eq)
      throw InputError(std::string(kStragglersKey) + ": '" + entry + "' is not JOB.WORKER=LEVEL");
    A2tpStraggler s;
    const auto number = [&](const std::string& t, const char* what) {
      const std::string v = trim(t);
      if (v.empty() || v.size() > 5 || v.find_first_not_of("0123456789") != std::string::npos)
        throw InputError(std::string(kStragglersKey) + ": '" + entry + "': the " + what + " '" + v +
                         "' is not a number");
      return unsigned(std::stoul(v));
    };
    s.job = number(entry.substr(0, dot), "job");
    s.worker = number(entry.substr(dot + 1, eq - dot - 1), "worker");
    for (const std::string& step : split(entry.substr(eq + 1), ',')) {
      const std::string t = trim(step);
      const size_t at = t.find('@');
      const double level = parse_level(trim(t.substr(0, at)), entry);
      Picos from = 0;
      std::string err;
      if (at != std::string::npos && trim(t.substr(at + 1)) != "0" &&
          !parse_time_token(trim(t.substr(at + 1)), &from, &err))
        throw InputError(std::string(kStragglersKey) + ": '" + entry + "': " + err);
      if (s.levels.empty() ? from != 0 : from <= s.levels.back().first)
        throw InputError(std::string(kStragglersKey) + ": '" + entry +
                         "': the times must start at 0 and increase (a level with no @TIME is from 0)");
      s.levels.emplace_back(from, level);
    }
    for (const A2tpStraggler& o : out)
      if (o.job == s.job && o.worker == s.worker)
        throw InputError(std::string(kStragglersKey) + ": worker " + std::to_string(s.worker) + " of job " +
                         std::to_string(s.job) + " is given twice");
    out.push_back(std::move(s));
  }
  return out;
}

double a2tp_threshold(const std::string& text, unsigned aggregators, unsigned jobs) {
  const std::string t = trim(text);
  if (t == "auto") return least_collision_threshold(aggregators, jobs);
  const double h = number_of(t);
  if (!(h >= 0 && h < 1))
    throw InputError("a2tp.threshold: '" + t + "' is neither auto nor a number from 0 to below 1");
  return h;
}

// One worker: its iterations (compute, then the push under its windows), its timeouts, and the
// results it takes.
class A2tpJobs::Worker : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(Worker);
  Worker(sc_core::sc_module_name name, A2tpJobs& owner, unsigned job, unsigned rank)
      : sc_core::sc_module(name), owner_(owner), job_(job), rank_(rank), host_(owner.jobs_[job].workers[rank]),
        local_(int(rank) == owner.jobs_[job].local) {
    A2tpParams a;
    a.threshold = owner.threshold_;
    a.initial_window = a2tp_config(owner.cfg_).window;
    a2tp_ = std::make_unique<A2tpWindows>(a);
    AtpParams b;
    b.initial_window = a.initial_window;
    atp_ = std::make_unique<AtpWindow>(b);
    last_acw = last_lcw = a.initial_window;
    if (owner.slots_) table_ = owner.slot_table(job);
    for (const A2tpStraggler& s : owner.stragglers_)
      if (s.job == owner.jobs_[job].training && s.worker == rank) levels_ = s.levels;
    SC_THREAD(run);
  }

  void accept(PacketPtr p) override;
  bool local() const { return local_; }

  unsigned iterations_done = 0;
  uint64_t gave_up = 0;
  double last_acw = 0, last_lcw = 0, last_gamma = 1;
  Picos base_rtt() const { return min_rtt_; }
  uint64_t acked_bytes = 0;  // values of the results it took

 private:
  struct Fragment {
    bool sent = false, acked = false, given_up = false, first_to_switch = false, at_switch = false;
    unsigned sends = 0;
    Picos sent_at = 0, due = 0;
  };
  bool a2tp_mode() const { return owner_.mode_ == "a2tp"; }
  uint32_t switch_limit() const {
    if (a2tp_mode()) return std::min(a2tp_->switch_slots(), a2tp_->link_slots());
    const uint32_t w = atp_->slots();
    return owner_.mode_ == "static" ? std::min(w, owner_.share_) : w;
  }
  uint32_t link_limit() const { return a2tp_mode() ? a2tp_->link_slots() : switch_limit(); }
  // How far past the oldest unanswered fragment a worker may send: its job's table or static
  // share (fragments that far apart share an aggregator); 0: no bound.
  uint64_t span() const { return table_ ? table_->slots() : owner_.mode_ == "static" ? owner_.share_ : 0; }
  uint16_t aggregator_of(uint32_t seq) const {
    if (table_) return table_->aggregator(seq);
    if (owner_.mode_ == "static") return uint16_t(seq % owner_.share_);
    return uint16_t(splitmix64_mix(uint64_t(job_) << 32 | seq) % owner_.aggregators_);
  }
  double level() const {
    double l = 1;
    for (const auto& [from, v] : levels_)
      if (from <= now_ps()) l = v;
    return l;
  }
  uint64_t fragments() const { return owner_.jobs_[job_].fragments; }
  uint32_t sequence(uint64_t f) const { return uint32_t(uint64_t(iteration_) * fragments() + f); }

  void run();
  void push();
  void hand_over();
  PacketPtr gradient(uint64_t f, bool to_switch) const;
  void send(uint64_t f, bool to_switch);
  void timed_out(uint64_t f);
  void end_round();
  // RFC 6298's retransmission timeout, at least hosts.timeout_ns, doubled by each timeout since
  // the last RTT sample (at most 2^6 times).
  Picos rto() const {
    const double base = std::max(double(owner_.timeout_), srtt_ + 4 * rttvar_);
    return Picos(std::llround(base)) << std::min(backoff_, 6u);
  }
  void sample_rtt(Picos rtt) {
    const double r = double(rtt);
    if (!srtt_) {
      srtt_ = r, rttvar_ = r / 2;
    } else {
      rttvar_ = 0.75 * rttvar_ + 0.25 * std::fabs(srtt_ - r);
      srtt_ = 0.875 * srtt_ + 0.125 * r;
    }
    backoff_ = 0;
    if (!min_rtt_ || rtt < min_rtt_) min_rtt_ = rtt;
  }
  // A round is one LCW of gradients sent (A2TP 4.3.2: about one RTT).
  bool round_over() const { return round_start_ && round_sends_ >= round_target_; }
  void arm(uint64_t f) {
    Fragment& k = frags_[f];
    if (k.due) due_.erase({k.due, f});
    k.due = now_ps() + rto();
    due_.insert({k.due, f});
  }

  A2tpJobs& owner_;
  const unsigned job_, rank_, host_;
  const bool local_;  // on its job's PS host: hands its gradients over there (a2tp.ps colocated)
  std::unique_ptr<A2tpWindows> a2tp_;
  std::unique_ptr<AtpWindow> atp_;
  std::unique_ptr<A2tpSlotTable> table_;  // a2tp.slots: the job's table, as this worker knows it
  std::vector<std::pair<Picos, double>> levels_;
  unsigned iteration_ = 0;
  uint64_t gave_up_now_ = 0;  // fragments of this iteration given up
  std::vector<Fragment> frags_;
  uint64_t acked_ = 0, in_flight_ = 0, at_switch_ = 0;
  uint64_t first_open_ = 0;  // the oldest fragment neither answered nor given up
  std::set<std::pair<Picos, uint64_t>> due_;
  A2tpRound round_;
  Picos round_start_ = 0;  // 0: no round under way (before the first send of a push)
  uint32_t round_target_ = 0;  // gradients the round lasts: the LCW it began with
  uint32_t round_sends_ = 0;   // gradients sent in the round
  Picos min_rtt_ = 0;      // the least time from a first send to its result (0: none yet)
  double srtt_ = 0, rttvar_ = 0;  // smoothed RTT and its variation (RFC 6298), from first sends
  unsigned backoff_ = 0;          // timeouts since the last RTT sample: the RTO doubles for each
  sc_core::sc_event wake_;
};

void A2tpJobs::Worker::run() {
  for (iteration_ = 0; iteration_ < owner_.iterations_; ++iteration_) {
    while (!owner_.host_done(host_, iteration_)) wait(*owner_.host_iteration_.at(host_));
    const Picos start = now_ps();
    wait(ps_time(owner_.compute_));
    owner_.iteration_started(job_, iteration_, start);
    push();
    if (gave_up_now_) return;  // unfinished: the run says so
    owner_.iteration_ended(job_, iteration_);
    ++iterations_done;
    owner_.host_iteration_.at(host_)->notify(sc_core::SC_ZERO_TIME);
  }
  Job& j = owner_.jobs_[job_];
  ++j.done;
  owner_.done_at_ = std::max(owner_.done_at_, now_ps());
  owner_.net_.member_done();
}

// The iteration's fragments, in order, as the windows let them go; then the wait for the last
// result.
void A2tpJobs::Worker::push() {
  frags_.assign(fragments(), Fragment());
  acked_ = in_flight_ = at_switch_ = gave_up_now_ = first_open_ = 0;
  due_.clear();
  if (local_) return hand_over();
  uint64_t next = 0;
  round_ = A2tpRound();
  round_start_ = 0;
  while (acked_ + gave_up_now_ < fragments()) {
    const Picos now = now_ps();
    while (frags_[first_open_].acked || frags_[first_open_].given_up) ++first_open_;
    if (!due_.empty() && due_.begin()->first <= now) {
      const uint64_t f = due_.begin()->second;
      due_.erase(due_.begin());
      frags_[f].due = 0;
      timed_out(f);
    } else if (next < fragments() && in_flight_ < link_limit() && (!span() || next < first_open_ + span())) {
      const bool to_switch = at_switch_ < switch_limit();
      send(next++, to_switch);
    } else if (due_.empty()) {
      wait(wake_);
    } else {
      wait(ps_time(due_.begin()->first - now), wake_);
    }
  }
  if (round_.sent || round_.lost) end_round();
  round_start_ = 0;
}

// Fragment f's gradient, flagged RESEND if it goes straight to the PS.
PacketPtr A2tpJobs::Worker::gradient(uint64_t f, bool to_switch) const {
  const uint32_t seq = sequence(f);
  a2tp_header_t h{};
  h.job = job_, h.sequence = seq, h.worker = uint8_t(rank_);
  a2tp_bitmap_set(h.bitmap, rank_);
  h.workers = uint8_t(owner_.jobs_[job_].workers.size());
  h.aggregator = aggregator_of(seq);
  h.flags = uint8_t(to_switch ? 0u : A2TP_FLAG_RESEND);
  std::vector<int32_t> values(owner_.elements(job_, seq));
  for (unsigned i = 0; i < values.size(); ++i) values[i] = owner_.value(job_, rank_, seq, i);
  auto p = std::make_shared<Packet>();
  p->data = build_a2tp_packet(h, host_, fs_host_ipv4(owner_.jobs_[job_].ps), values);
  return p;
}

// Fragment f's gradient, to the switch or (RESEND) straight to the PS, paced at the worker's
// straggling level.
void A2tpJobs::Worker::send(uint64_t f, bool to_switch) {
  Fragment& k = frags_[f];
  PacketPtr p = gradient(f, to_switch);
  if (!round_start_) round_start_ = now_ps(), round_target_ = link_limit(), round_sends_ = 0;
  if (!k.sent) {
    k.sent = true, k.first_to_switch = to_switch, k.sent_at = now_ps();
    ++in_flight_;
    ++(to_switch ? owner_.counts_.to_switch : owner_.counts_.to_ps);
  } else {
    ++owner_.base_.retransmissions;
  }
  if (to_switch && !k.at_switch) k.at_switch = true, ++at_switch_;
  if (!to_switch && k.at_switch) k.at_switch = false, --at_switch_;
  ++round_sends_;
  ++k.sends;
  ++owner_.base_.packets_sent;
  owner_.base_.bytes_sent += p->data.size();
  HostPort& port = owner_.net_.host(host_);
  const Picos wire = port.nic().params().wire_time_of(p->data.size());
  port.send(std::move(p));
  arm(f);
  if (round_over()) end_round();
  wait(ps_time(Picos(std::llround(double(wire) / level()))));
}

// No result in time: the gradient again, straight to the PS, a loss in this round; given up after
// kA2tpMaxSends sends.
void A2tpJobs::Worker::timed_out(uint64_t f) {
  Fragment& k = frags_[f];
  if (k.acked) return;
  ++round_.lost;
  ++backoff_;
  if (k.sends >= kA2tpMaxSends) {
    k.given_up = true;
    --in_flight_;
    if (k.at_switch) k.at_switch = false, --at_switch_;
    ++gave_up;
    ++gave_up_now_;
    return;
  }
  send(f, false);
}

// The round's counts are of the ACKs it received (so h and e are fractions of them, at most 1).
// Eq. 3's n is the ACKs of one RTT: the round's, scaled from the round's length to the least RTT
// seen (a job held back by a straggler gets its ACKs at the straggler's pace while its LCW stays,
// so its gamma falls).
void A2tpJobs::Worker::end_round() {
  A2tpRound r = round_;
  const Picos took = now_ps() - round_start_;
  if (min_rtt_ && took > 0) r.acked = uint32_t(std::llround(double(r.acked) * double(min_rtt_) / double(took)));
  a2tp_->end_round(r);
  atp_->end_round(r);
  ++owner_.counts_.rounds;
  last_acw = a2tp_mode() ? a2tp_->acw() : atp_->window();
  last_lcw = a2tp_mode() ? a2tp_->lcw() : atp_->window();
  last_gamma = a2tp_->gamma();
  round_ = A2tpRound();
  round_start_ = now_ps(), round_target_ = link_limit(), round_sends_ = 0;
}

void A2tpJobs::Worker::accept(PacketPtr p) {
  A2tpPacket a;
  std::string why;
  if (!parse_a2tp_packet(p->data.data(), p->data.size(), &a, &why) || !(a.h.flags & A2TP_FLAG_RESULT) ||
      a.h.job != job_)
    return void(++owner_.base_.stray_packets);
  const uint64_t base = uint64_t(iteration_) * fragments();
  if (a.h.sequence < base || a.h.sequence >= base + frags_.size())
    return void(++(a.h.sequence < base ? owner_.counts_.duplicate_results : owner_.base_.stray_packets));
  const uint64_t f = a.h.sequence - base;
  Fragment& k = frags_[f];
  if (!k.sent || k.acked || k.given_up)
    return void(++(k.sent ? owner_.counts_.duplicate_results : owner_.base_.stray_packets));
  if (a.values.size() != owner_.elements(job_, a.h.sequence)) return void(++owner_.base_.stray_packets);
  owner_.check(job_, rank_, a.h.sequence, a.values);
  if (table_ && (a.h.flags & A2TP_FLAG_MOVE)) table_->move(a.h.sequence, a.h.next);
  k.acked = true;
  ++acked_;
  --in_flight_;
  acked_bytes += uint64_t(a.values.size()) * A2TP_ELEMENT_BYTES;
  wake_.notify(sc_core::SC_ZERO_TIME);
  if (local_) return;  // handed over: no window, timer or round to update
  if (k.at_switch) k.at_switch = false, --at_switch_;
  if (k.due) due_.erase({k.due, f}), k.due = 0;
  ++round_.acked, ++round_.sent;
  round_.to_switch += k.first_to_switch;
  if (k.sends == 1) sample_rtt(now_ps() - k.sent_at);  // Karn: no sample from a fragment sent again
  if (k.first_to_switch && (a.h.flags & A2TP_FLAG_COL))
    ++round_.collided, ++owner_.counts_.col_acks, ++owner_.jobs_[job_].col_acks;
  if ((a.h.flags & A2TP_FLAG_ECE) || ecn_of(p->data) == Ecn::kCe) ++round_.ecn_marked, ++owner_.counts_.ecn_acks;
}

// A job's parameter server: what arrives for it goes through A2tpParameterServer; a complete
// fragment's result goes once to the job's group address (and, colocated, straight to the worker
// on its own host), a result sent again to one worker.
// With a2tp.ps_gbps it sums what it takes one packet at a time at that rate (a queue in front);
// a switch's whole result, which it only sends on, and everything without a2tp.ps_gbps, at once.
class A2tpJobs::Server : public sc_core::sc_module, public PacketSinkIf {
 public:
  SC_HAS_PROCESS(Server);
  Server(sc_core::sc_module_name name, A2tpJobs& owner, unsigned job)
      : sc_core::sc_module(name), owner_(owner), job_(job), ps_(make_ps(owner, job)) {
    if (owner.ps_gbps_ > 0) SC_THREAD(serve);
  }
  void accept(PacketPtr p) override {
    if (owner_.ps_gbps_ <= 0 || whole_result(*p)) return take(*p);
    queue_.push_back(std::move(p));
    owner_.counts_.ps_queue_max = std::max<uint64_t>(owner_.counts_.ps_queue_max, queue_.size());
    arrived_.notify(sc_core::SC_ZERO_TIME);
  }

 private:
  static A2tpParameterServer make_ps(const A2tpJobs& owner, unsigned job) {
    const unsigned workers = unsigned(owner.jobs_[job].workers.size());
    if (!owner.slots_) return A2tpParameterServer(workers);
    const A2tpSlotTable table = *owner.slot_table(job);
    return A2tpParameterServer(workers, A2tpSlotMover(table, component_seed(owner.cfg_.seed, "a2tp.ps" + std::to_string(job))));
  }
  // A switch's result with every worker in: the PS only sends it on, with no summing to do.
  bool whole_result(const Packet& p) const {
    if (p.data.size() < A2TP_PAYLOAD_OFFSET + A2TP_HEADER_BYTES ||
        p.data.size() < A2TP_PAYLOAD_OFFSET + a2tp_header_bytes(p.data[A2TP_PAYLOAD_OFFSET + A2TP_OFF_WORKERS]))
      return false;
    a2tp_header_t h;
    a2tp_decode(p.data.data() + A2TP_PAYLOAD_OFFSET, &h);
    return (h.flags & A2TP_FLAG_RESULT) && h.workers && a2tp_bitmap_full(h.bitmap, h.workers);
  }
  void serve() {
    for (;;) {
      while (queue_.empty()) wait(arrived_);
      const PacketPtr p = queue_.front();
      wait(ps_time(Picos(std::llround(double(p->data.size()) * 8.0 * 1e3 / owner_.ps_gbps_))));
      queue_.pop_front();
      take(*p);
    }
  }
  void take(const Packet& p) {
    A2tpPacket a;
    std::string why;
    if (!parse_a2tp_packet(p.data.data(), p.data.size(), &a, &why) || a.h.job != job_)
      return void(++owner_.base_.stray_packets);
    const A2tpParameterServer::Action act = ps_.take(a, ecn_of(p.data) == Ecn::kCe);
    if (act.kind == A2tpParameterServer::Action::kNone) {
      if (!act.why.empty() && act.why != "duplicate") ++owner_.counts_.ps_refused;
      return;
    }
    const Job& j = owner_.jobs_[job_];
    a2tp_header_t h{};
    h.job = job_, h.sequence = act.sequence, h.aggregator = act.aggregator, h.flags = act.flags, h.next = act.next;
    a2tp_full_bitmap(h.bitmap, unsigned(j.workers.size())), h.workers = uint8_t(j.workers.size());
    const bool group = act.kind == A2tpParameterServer::Action::kMulticast;
    const uint32_t to = group ? j.group : fs_host_ipv4(j.workers.at(act.worker));
    auto out = std::make_shared<Packet>();
    out->data = build_a2tp_packet(h, j.ps, to, act.values);
    if (group && j.local_worker) j.local_worker->accept(std::make_shared<Packet>(*out));
    ++(group ? owner_.counts_.ps_results : owner_.counts_.ps_resends);
    if (group && (act.flags & A2TP_FLAG_MOVE)) ++owner_.counts_.ps_moves;
    owner_.base_.bytes_sent += out->data.size();
    owner_.net_.host(j.ps).send(std::move(out));
    // Once a fragment of iteration i is complete every worker is past iteration i - 1.
    const uint32_t iteration = uint32_t(act.sequence / j.fragments);
    if (group && iteration >= 2) ps_.forget_before(uint32_t((iteration - 1) * j.fragments));
  }

  A2tpJobs& owner_;
  const unsigned job_;
  A2tpParameterServer ps_;
  std::deque<PacketPtr> queue_;
  sc_core::sc_event arrived_;
};

// The worker on its job's PS host: every fragment's gradient to the PS there at once (no packet on
// a link, no window, no timeout), then the wait for the results the PS hands back.
void A2tpJobs::Worker::hand_over() {
  for (uint64_t f = 0; f < fragments(); ++f) {
    frags_[f].sent = true;
    ++in_flight_;
    owner_.servers_[job_]->accept(gradient(f, true));
  }
  while (acked_ < fragments()) wait(wake_);
}

// What a host's a2tp port receives, to whom it is: for a job whose PS is on the host, its PS (the
// switch's results and the gradients that reach it); for another, the host's worker in it.
class A2tpJobs::Inbox : public PacketSinkIf {
 public:
  Inbox(A2tpJobs& owner, unsigned host) : owner_(owner), host_(host) {}
  void accept(PacketPtr p) override {
    if (p->data.size() < A2TP_PAYLOAD_OFFSET + A2TP_HEADER_BYTES) return void(++owner_.base_.stray_packets);
    const uint32_t job = uint32_t(fs_be32(p->data.data() + A2TP_PAYLOAD_OFFSET + A2TP_OFF_JOB));
    if (job < owner_.jobs_.size() && owner_.jobs_[job].ps == host_) return owner_.servers_[job]->accept(std::move(p));
    const auto w = owner_.worker_at_.find({job, host_});
    if (w == owner_.worker_at_.end()) return void(++owner_.base_.stray_packets);
    w->second->accept(std::move(p));
  }

 private:
  A2tpJobs& owner_;
  const unsigned host_;
};

TrainingWorkload a2tp_workload(const Config& cfg) {
  const A2tpConfig& c = a2tp_config(cfg);
  return training_workload("a2tp.model", c.model, cfg.hosts.bytes, c.compute_us, c.scale, kA2tpBatch);
}

void a2tp_check_setup(const Config& cfg) {
  const A2tpConfig& c = a2tp_config(cfg);
  if (c.aggregators == 0)
    throw InputError("a2tp.aggregators: hosts.model a2tp needs the switch's aggregators (a2tp.aggregators >= 1)");
  if (c.fragment_bytes % A2TP_ELEMENT_BYTES)
    throw InputError("a2tp.fragment_bytes: " + std::to_string(c.fragment_bytes) + " is not a multiple of 4");
  if (c.slots && c.mode == "static")
    throw InputError("a2tp.slots: a2tp.mode static names each fragment's slot in its job's share; a table of "
                     "aggregators (ATP's dynamic allocation) is for a2tp.mode atp or a2tp");
  if (c.slots > c.aggregators)
    throw InputError("a2tp.slots: a job's table of " + std::to_string(c.slots) + " aggregators is longer than the " +
                     std::to_string(c.aggregators) + " the switch has (a2tp.aggregators)");
  if (cfg.hosts.dtype != "int32" || cfg.hosts.op != "sum")
    throw InputError("hosts.dtype: the a2tp jobs push int32 gradients, summed (hosts.dtype int32, hosts.op sum)");
  parse_a2tp_stragglers(c.stragglers);
}

A2tpJobs::A2tpJobs(sc_core::sc_module_name name, const Config& cfg, Network& net, const std::vector<unsigned>& members)
    : sc_core::sc_module(name), cfg_(cfg), net_(net) {
  a2tp_check_setup(cfg);
  const A2tpConfig& c = a2tp_config(cfg);
  mode_ = c.mode;
  const TrainingWorkload w = a2tp_workload(cfg);
  gradient_bytes_ = w.gradient_bytes;
  compute_ = w.compute;
  per_fragment_ = c.fragment_bytes / A2TP_ELEMENT_BYTES;
  const uint64_t values = gradient_bytes_ / A2TP_ELEMENT_BYTES;
  fragments_ = (values + per_fragment_ - 1) / per_fragment_;
  iterations_ = c.iterations;
  if (fragments_ * iterations_ > (uint64_t(1) << 32))
    throw InputError("a2tp.iterations: " + std::to_string(iterations_) + " iterations of " +
                     std::to_string(fragments_) + " fragments overflow the 32-bit sequence numbers");
  aggregators_ = c.aggregators;
  slots_ = c.slots;
  const std::vector<A2tpJobLayout> layout = a2tp_job_layout(cfg, members);
  share_ = std::max(1u, aggregators_ / unsigned(layout.size()));
  threshold_ = a2tp_threshold(c.threshold, aggregators_, unsigned(layout.size()));
  std::map<unsigned, size_t> workers_of;  // by training job
  for (const A2tpJobLayout& l : layout) workers_of[l.training] = l.workers.size();
  training_jobs_ = unsigned(workers_of.size());
  for (const auto& [t, n] : workers_of) worker_hosts_ += unsigned(n);
  stragglers_ = parse_a2tp_stragglers(c.stragglers);
  for (const A2tpStraggler& s : stragglers_)
    if (s.job >= training_jobs_ || s.worker >= workers_of.at(s.job))
      throw InputError(std::string(kStragglersKey) + ": job " + std::to_string(s.job) + " has no worker " +
                       std::to_string(s.worker) + " (" + std::to_string(training_jobs_) + " jobs)");
  timeout_ = Picos(cfg.hosts.timeout_ns) * kPicosPerNs;
  ps_gbps_ = c.ps_gbps;
  values_seed_ = component_seed(cfg.seed, "a2tp.values");
  for (const A2tpJobLayout& l : layout) {
    Job j;
    j.workers = l.workers, j.ps = l.ps, j.training = l.training, j.local = l.local, j.group = l.group;
    j.shard = l.shard, j.shards = l.shards;
    j.first = a2tp_shard_first(fragments_, l.shard, l.shards);
    j.fragments = a2tp_shard_fragments(fragments_, l.shard, l.shards);
    j.started.assign(iterations_, 0), j.ended.assign(iterations_, 0), j.pushed.assign(iterations_, 0);
    jobs_.push_back(std::move(j));
  }
  sample_every_ = Picos(std::llround(c.sample_us * double(kPicosPerUs)));
  sampled_bytes_.assign(jobs_.size(), 0);
  if (sample_every_) SC_THREAD(sample);
  size_t workers = 0;
  for (const Job& j : jobs_) workers += j.workers.size();
  net.join_allreduce(workers);
  for (unsigned j = 0; j < jobs_.size(); ++j) {
    servers_.push_back(std::make_unique<Server>(("ps" + std::to_string(j)).c_str(), *this, j));
    for (unsigned r = 0; r < jobs_[j].workers.size(); ++r) {
      workers_.push_back(std::make_unique<Worker>(("worker" + std::to_string(workers_.size())).c_str(), *this, j, r));
      Worker* w = workers_.back().get();
      const unsigned host = jobs_[j].workers[r];
      on_host_[host].push_back(w);
      worker_at_[{j, host}] = w;
      if (w->local()) jobs_[j].local_worker = w;
    }
  }
  for (const auto& [host, ws] : on_host_) host_iteration_[host] = std::make_unique<sc_core::sc_event>();
  std::set<unsigned> hosts;
  for (const Job& j : jobs_) hosts.insert(j.ps), hosts.insert(j.workers.begin(), j.workers.end());
  for (unsigned h : hosts) {
    inboxes_[h] = std::make_unique<Inbox>(*this, h);
    net.host(h).bind_udp(A2TP_UDP_PORT_DEFAULT, inboxes_[h].get());
  }
}

std::unique_ptr<A2tpSlotTable> A2tpJobs::slot_table(unsigned job) const {
  const Job& j = jobs_[job];
  return std::make_unique<A2tpSlotTable>(j.training, slots_, aggregators_, j.shard, j.shards);
}

bool A2tpJobs::host_done(unsigned host, unsigned iterations) const {
  for (const Worker* w : on_host_.at(host))
    if (w->iterations_done < iterations) return false;
  return true;
}

A2tpJobs::~A2tpJobs() = default;

void A2tpJobs::sample() {
  for (;;) {
    wait(ps_time(sample_every_));
    size_t first = 0, unfinished = 0;
    for (unsigned jx = 0; jx < jobs_.size(); ++jx) {
      const size_t n = jobs_[jx].workers.size();
      double gamma = 0, acw = 0, lcw = 0;
      for (size_t r = 0; r < n; ++r) {
        const Worker& w = *workers_[first + r];
        gamma += w.last_gamma / double(n), acw += w.last_acw / double(n), lcw += w.last_lcw / double(n);
        unfinished += w.iterations_done != iterations_ && !w.gave_up;
      }
      const uint64_t bytes = workers_[first]->acked_bytes;
      std::map<std::string, double> row;
      row["t_us"] = double(now_ps()) / double(kPicosPerUs);
      row["job"] = jx;
      row["aggregation_gbps"] = double(bytes - sampled_bytes_[jx]) * 8.0 * 1e3 / double(sample_every_);
      row["gamma"] = gamma, row["acw"] = acw, row["lcw"] = lcw;
      series_.push_back(std::move(row));
      sampled_bytes_[jx] = bytes;
      first += n;
    }
    if (!unfinished) return;
  }
}

unsigned A2tpJobs::elements(unsigned job, uint32_t sequence) const {
  const Job& j = jobs_[job];
  const uint64_t f = j.first + sequence % j.fragments, total = gradient_bytes_ / A2TP_ELEMENT_BYTES;
  return unsigned(std::min<uint64_t>(per_fragment_, total - f * per_fragment_));
}

int32_t A2tpJobs::value(unsigned job, unsigned worker, uint32_t sequence, unsigned i) const {
  return member_value(values_seed_, job, worker, uint64_t(sequence) * per_fragment_ + i);
}

std::vector<int32_t> A2tpJobs::reduction(unsigned job, uint32_t sequence) const {
  std::vector<uint32_t> sum(elements(job, sequence), 0);
  for (unsigned w = 0; w < jobs_[job].workers.size(); ++w)
    for (unsigned i = 0; i < sum.size(); ++i) sum[i] += uint32_t(value(job, w, sequence, i));
  return std::vector<int32_t>(sum.begin(), sum.end());
}

void A2tpJobs::check(unsigned job, unsigned worker, uint32_t sequence, const std::vector<int32_t>& got) {
  const std::vector<int32_t> want = reduction(job, sequence);
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (!wrong_++)
        first_problem_ = "job " + std::to_string(job) + ", worker " + std::to_string(worker) + ", fragment " +
                         std::to_string(sequence) + ", element " + std::to_string(i) + ": got " +
                         std::to_string(got[i]) + ", want " + std::to_string(want[i]);
      return;
    }
}

void A2tpJobs::iteration_started(unsigned job, unsigned iteration, Picos compute_start) {
  Job& j = jobs_[job];
  if (!j.pushed[iteration] || compute_start < j.started[iteration]) j.started[iteration] = compute_start;
  j.pushed[iteration] = std::max(j.pushed[iteration], now_ps());
}

void A2tpJobs::iteration_ended(unsigned job, unsigned iteration) {
  Job& j = jobs_[job];
  j.ended[iteration] = std::max(j.ended[iteration], now_ps());
}

AllreduceStats A2tpJobs::stats() const {
  AllreduceStats s = base_;
  s.model = kA2tpModel;
  s.hosts = worker_hosts_;
  s.bytes = gradient_bytes_ * iterations_;
  s.groups = training_jobs_;
  s.unfinished_ranks = 0;
  s.gave_up = 0;
  for (const auto& w : workers_) s.gave_up += w->gave_up;
  for (const auto& [host, ws] : on_host_) s.unfinished_ranks += !host_done(host, iterations_);
  s.details = {{"fragments", fragments_},
               {"to_switch", counts_.to_switch},
               {"to_ps", counts_.to_ps},
               {"col_acks", counts_.col_acks},
               {"ecn_acks", counts_.ecn_acks},
               {"rounds", counts_.rounds},
               {"duplicate_results", counts_.duplicate_results},
               {"ps_results", counts_.ps_results},
               {"ps_resends", counts_.ps_resends},
               {"ps_refused", counts_.ps_refused},
               {"ps_queue_max", counts_.ps_queue_max},
               {"ps_moves", counts_.ps_moves}};
  s.conclude(done_at_, !wrong_);
  s.series = series_;
  s.goodput_gbps = 0;
  std::map<unsigned, std::pair<double, unsigned>> training;  // by training job: its longest shard's push, iterations
  size_t first = 0;  // the job's first worker in workers_
  for (unsigned jx = 0; jx < jobs_.size(); ++jx) {
    const Job& j = jobs_[jx];
    double iteration_ps = 0, push_ps = 0;
    unsigned done = 0;
    for (unsigned i = 0; i < iterations_; ++i)
      if (j.ended[i] && j.done == j.workers.size())
        ++done, iteration_ps += double(j.ended[i] - j.started[i]), push_ps += double(j.ended[i] - j.pushed[i]);
    std::map<std::string, double> row;
    row["job"] = jx;
    row["workers"] = double(j.workers.size());
    row["iterations"] = done;
    row["iteration_us"] = done ? iteration_ps / done / double(kPicosPerUs) : 0.0;
    row["aggregation_gbps"] = push_ps > 0 ? double(job_bytes(jx)) * done * 8.0 * 1e3 / push_ps : 0.0;
    row["push_us"] = push_ps / double(kPicosPerUs);
    row["col_acks"] = double(j.col_acks);
    row["threshold"] = threshold_;
    double rtt = 0;
    const size_t remote = j.workers.size() - (j.local >= 0);  // the local worker sees no RTT
    for (size_t r = 0; r < j.workers.size(); ++r)
      if (!workers_[first + r]->local()) rtt += double(workers_[first + r]->base_rtt()) / double(remote);
    row["base_rtt_us"] = rtt / double(kPicosPerUs);
    first += j.workers.size();
    auto [t, fresh] = training.try_emplace(j.training, push_ps, done);
    if (!fresh) t->second.first = std::max(t->second.first, push_ps), t->second.second = std::min(t->second.second, done);
    s.jobs.push_back(std::move(row));
  }
  // A training job's aggregation throughput: a worker's gradient bytes over its longest shard's push.
  for (const auto& [t, push] : training)
    if (push.first > 0)
      s.goodput_gbps += double(gradient_bytes_) * push.second * 8.0 * 1e3 / push.first / double(training.size());
  return s;
}

uint64_t A2tpJobs::job_bytes(unsigned job) const {
  const Job& j = jobs_[job];
  const uint64_t total = gradient_bytes_ / A2TP_ELEMENT_BYTES;
  return (std::min(total, (j.first + j.fragments) * per_fragment_) - std::min(total, j.first * per_fragment_)) *
         A2TP_ELEMENT_BYTES;
}

std::string A2tpJobs::failure() const {
  if (wrong_)
    return "the a2tp jobs' results are wrong: " + std::to_string(wrong_) + " wrong in all; the first: " +
           first_problem_;
  const AllreduceStats s = stats();
  if (s.unfinished_ranks)
    return "the a2tp jobs did not complete: " + std::to_string(s.unfinished_ranks) + " of " +
           std::to_string(worker_hosts_) + " workers are missing results (" + std::to_string(s.gave_up) +
           " fragments given up in all)";
  return "";
}

}  // namespace fs
