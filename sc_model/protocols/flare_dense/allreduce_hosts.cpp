// Closed-loop Flare allreduce hosts (see allreduce_hosts.h).
#include "protocols/flare_dense/allreduce_hosts.h"

#include <algorithm>
#include <set>

#include "common/errors.h"
#include "common/sc_time_util.h"
#include "net/frame.h"
#include "protocols/flare_dense/flare_frame.h"
#include "pspin/cluster.h"
#include "protocols/flare_dense/flare_setup.h"
#include "protocols/flare_dense/allreduce_timing.h"
#include "protocols/flare_dense/block_window_host.h"

namespace fs {

constexpr uint64_t kHostLossStream = 0x686c6f73;  // "hlos": losses on a host's link

// One host: the shared send loop (block_window_host.h), the packet of each block, and a sink for
// what its switch port sends it.
class AllreduceHosts::Host : public BlockWindowHost, public PacketSinkIf {
 public:
  Host(sc_core::sc_module_name name, const Config& cfg, unsigned rank, IngressPort& ingress,
       std::vector<Bytes> frames, Picos wire_full, Picos wire_last, Picos* done_at, unsigned states)
      : BlockWindowHost(name, cfg.hosts, rank, unsigned(parse_port_list("flare.ports", flare_config(cfg).ports).size()),
                        frames.size(), states, done_at),
        seed_(cfg.seed),
        ingress_(ingress),
        frames_(std::move(frames)),
        wire_full_(wire_full),
        wire_last_(wire_last),
        allreduce_id_(flare_config(cfg).allreduce_id) {}

  // What the switch's egress port sends this host: results free window slots.
  void accept(PacketPtr p) override {
    const FrameInfo f = parse_frame(p->data.data(), p->data.size());
    if (!f.ok || !f.udp || f.l4_len < FLARE_HEADER_BYTES) return;
    flare_header_t h;
    flare_decode(p->data.data() + f.l4_offset, &h);
    if (h.version != FLARE_VERSION || h.kind != FLARE_KIND_RESULT || h.allreduce_id != allreduce_id_) return;
    ++results;
    result_complete(h.block_id);
  }

  uint64_t lost = 0, results = 0;

 private:
  // Puts the contribution to `block` on the link: the switch port has its last bit one wire time
  // later, unless the send is lost.
  void send_block(uint32_t block) override {
    const Picos wire = block + 1 == frames_.size() ? wire_last_ : wire_full_;
    const bool is_lost = cfg_.loss > 0 && draw_hits(timing_draw(seed_, kHostLossStream, rank_, sends), cfg_.loss);
    wait(ps_time(wire));
    if (is_lost) {
      ++lost;
    } else {
      auto p = std::make_shared<Packet>();
      p->data = frames_[block];
      ingress_.accept(std::move(p));
    }
  }

  uint64_t seed_;
  IngressPort& ingress_;
  std::vector<Bytes> frames_;  // by block
  Picos wire_full_, wire_last_;
  uint32_t allreduce_id_;
};

AllreduceHosts::AllreduceHosts(sc_core::sc_module_name name, const Config& cfg, Switch& sw)
    : sc_core::sc_module(name) {
  const std::vector<unsigned> ports = parse_port_list("flare.ports", flare_config(cfg).ports);
  const unsigned states = block_states(cfg, sw);
  AllreduceGenOptions o;
  o.hosts = unsigned(ports.size());
  o.bytes = cfg.hosts.bytes;
  o.elem_bytes = cfg.hosts.elem_bytes;
  o.dtype = cfg.hosts.dtype;
  o.op = cfg.hosts.op;
  o.seed = cfg.seed;
  o.allreduce_id = flare_config(cfg).allreduce_id;
  o.num_ports = std::max(cfg.ports.count, unsigned(ports.size()));
  o.gbps = cfg.ports.gbps;
  o.wire_overhead = cfg.ports.wire_overhead;
  o.names = {{"hosts", "flare.ports"}, {"bytes", "hosts.bytes"},    {"elem_bytes", "hosts.elem_bytes"},
             {"dtype", "hosts.dtype"}, {"op", "hosts.op"},          {"allreduce_id", "flare.allreduce_id"},
             {"gbps", "ports.gbps"},   {"num_ports", "ports.count"}};
  // The generator makes the frames (host h on port h) and the expected blocks; here host of rank
  // r sits on ports[r], so its frames are rebuilt with that port's addresses.
  const AllreduceWorkload w = generate_allreduce(o);
  expected_ = w.expected;
  expected_for_verify_.blocks = w.expected;
  expected_for_verify_.udp_port = w.udp_port;
  for (unsigned p : ports) expected_for_verify_.ports.push_back(uint16_t(p));
  const uint64_t nblocks = expected_.size();
  std::vector<std::vector<Bytes>> frames(ports.size(), std::vector<Bytes>(nblocks));
  for (const TraceRecord& r : w.records) {
    const FrameInfo f = parse_frame(r.data.data(), r.data.size());
    flare_header_t h;
    flare_decode(r.data.data() + f.l4_offset, &h);
    frames[h.sender_rank][h.block_id] =
        build_flare_packet(h, uint16_t(ports[h.sender_rank]), r.data.data() + f.l4_offset + FLARE_HEADER_BYTES,
                           f.l4_len - FLARE_HEADER_BYTES);
  }
  const Picos wire_full = wire_time(frames[0][0].size(), cfg.ports.wire_overhead, cfg.ports.gbps);
  const Picos wire_last = wire_time(frames[0][nblocks - 1].size(), cfg.ports.wire_overhead, cfg.ports.gbps);
  for (size_t r = 0; r < ports.size(); ++r) {
    if (ports[r] >= sw.ingress().size()) throw InputError("flare.ports: port " + std::to_string(ports[r]) + " does not exist");
    hosts_.push_back(std::make_unique<Host>(("host" + std::to_string(r)).c_str(), cfg, unsigned(r),
                                            *sw.ingress()[ports[r]], std::move(frames[r]), wire_full, wire_last,
                                            &done_at_, states));
    sw.egress()[ports[r]]->link(hosts_.back().get());
  }
}

AllreduceHosts::~AllreduceHosts() = default;

unsigned AllreduceHosts::block_states(const Config& cfg, Switch& sw) {
  const uint32_t l1 = sw.pspin().set_memory(find_handler_set("flare_dense")).l1_bytes;
  if (!l1) return 0;  // the switch has no flare_dense handler set
  for (const FlareAllreduce& a : flare_allreduces(cfg, l1))
    if (a.id == flare_config(cfg).allreduce_id) return a.states_per_cluster * cfg.pspin.clusters;
  return 0;
}

bool AllreduceHosts::complete_and_right() const {
  for (const auto& h : hosts_)
    if (h->completed != expected_.size()) return false;
  return true;
}

HostStats AllreduceHosts::stats() const {
  HostStats s;
  s.model = "allreduce";
  s.hosts = hosts_.size();
  s.blocks = expected_.size();
  for (const auto& h : hosts_) {
    s.gave_up += h->gave_up;
    s.max_in_flight = std::max(s.max_in_flight, h->max_in_flight);
    s.sends += h->sends;
    s.retransmissions += h->retransmissions;
    s.lost += h->lost;
    s.results += h->results;
    s.blocks_completed += h->completed;
  }
  const double seconds = double(done_at_) / 1e12;
  double bytes = 0;  // every host's contribution
  for (const ExpectedBlock& e : expected_) bytes += double(e.payload.size()) * double(hosts_.size());
  s.done_us = double(done_at_) / double(kPicosPerUs);
  // The data the hosts reduced (every host's contribution) per second until the last result;
  // 0 when a block was given up (the allreduce did not complete).
  s.allreduce_gbps = seconds > 0 && !s.gave_up ? bytes * 8.0 / seconds / 1e9 : 0.0;
  return s;
}

std::string AllreduceHosts::summary() const {
  const HostStats s = stats();
  return "hosts            " + std::to_string(hosts_.size()) + " allreduce hosts, " +
         std::to_string(s.blocks_completed) + " of " + std::to_string(hosts_.size() * expected_.size()) +
         " block results back by " + std::to_string(s.done_us) + " us, " + std::to_string(s.retransmissions) +
         " retransmissions\n";
}

}  // namespace fs
