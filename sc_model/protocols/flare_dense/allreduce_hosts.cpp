// Closed-loop Flare allreduce hosts (see allreduce_hosts.h).
#include "protocols/flare_dense/allreduce_hosts.h"

#include <algorithm>
#include <set>

#include "common/errors.h"
#include "common/interrupt.h"
#include "common/sc_time_util.h"
#include "net/frame.h"
#include "protocols/flare_dense/flare_frame.h"
#include "pspin/cluster.h"
#include "protocols/flare_dense/flare_setup.h"
#include "protocols/flare_dense/allreduce_timing.h"
#include "protocols/flare_dense/block_window_host.h"

namespace fs {

constexpr uint64_t kHostLossStream = 0x686c6f73;  // "hlos": losses on a host's link

// One host: the shared send loop (block_window_host.h), which builds a block's packet when it
// sends it (nothing of the workload is kept but the expected results), and a sink for what its
// switch port sends it.
class AllreduceHosts::Host : public BlockWindowHost, public PacketSinkIf {
 public:
  Host(sc_core::sc_module_name name, const Config& cfg, unsigned rank, IngressPort& ingress, uint16_t port,
       const AllreduceGenOptions& workload, const AllreduceShape& shape, Picos* done_at, unsigned states)
      : BlockWindowHost(name, cfg.hosts, rank, workload.hosts, shape.blocks, states, done_at),
        seed_(cfg.seed),
        ingress_(ingress),
        port_(port),
        workload_(workload),
        shape_(shape),
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
    const bool is_lost = cfg_.loss > 0 && draw_hits(timing_draw(seed_, kHostLossStream, rank_, sends), cfg_.loss);
    wait(ps_time(contribution_wire(workload_, shape_, block)));
    if (is_lost) {
      ++lost;
    } else {
      auto p = std::make_shared<Packet>();
      p->data = contribution_frame(workload_, shape_, rank_, port_, block);
      ingress_.accept(std::move(p));
    }
  }

  uint64_t seed_;
  IngressPort& ingress_;
  uint16_t port_;
  const AllreduceGenOptions& workload_;  // the hosts' (AllreduceHosts owns it)
  const AllreduceShape& shape_;
  uint32_t allreduce_id_;
};

AllreduceHosts::AllreduceHosts(sc_core::sc_module_name name, const Config& cfg, Switch& sw)
    : sc_core::sc_module(name) {
  const std::vector<unsigned> ports = parse_port_list("flare.ports", flare_config(cfg).ports);
  const unsigned states = block_states(cfg, sw);
  AllreduceGenOptions& o = workload_;
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
  // Host of rank r sits on ports[r] and sends the generator's frames (allreduce_gen.h) from
  // that port's addresses, each built as it is sent.
  shape_ = check_allreduce(o);
  expected_ = std::make_shared<Expected>();
  expected_->blocks.reserve(shape_.blocks);
  for (uint64_t b = 0; b < shape_.blocks; ++b) {
    check_interrupted("computing the expected blocks");
    expected_->blocks.push_back(expected_block(o, shape_, b));
  }
  expected_->udp_port = o.udp_port;
  for (unsigned p : ports) expected_->ports.push_back(uint16_t(p));
  for (size_t r = 0; r < ports.size(); ++r) {
    if (ports[r] >= sw.ingress().size()) throw InputError("flare.ports: port " + std::to_string(ports[r]) + " does not exist");
    hosts_.push_back(std::make_unique<Host>(("host" + std::to_string(r)).c_str(), cfg, unsigned(r),
                                            *sw.ingress()[ports[r]], uint16_t(ports[r]), workload_, shape_,
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
    if (h->completed != shape_.blocks) return false;
  return true;
}

HostStats AllreduceHosts::stats() const {
  HostStats s;
  s.model = "allreduce";
  s.hosts = hosts_.size();
  s.blocks = shape_.blocks;
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
  for (const ExpectedBlock& e : expected_->blocks) bytes += double(e.payload.size()) * double(hosts_.size());
  s.done_us = double(done_at_) / double(kPicosPerUs);
  // The data the hosts reduced (every host's contribution) per second until the last result;
  // 0 when a block was given up (the allreduce did not complete).
  s.allreduce_gbps = seconds > 0 && !s.gave_up ? bytes * 8.0 / seconds / 1e9 : 0.0;
  return s;
}

std::string AllreduceHosts::summary() const {
  const HostStats s = stats();
  return "hosts            " + std::to_string(hosts_.size()) + " allreduce hosts, " +
         std::to_string(s.blocks_completed) + " of " + std::to_string(hosts_.size() * shape_.blocks) +
         " block results back by " + std::to_string(s.done_us) + " us, " + std::to_string(s.retransmissions) +
         " retransmissions\n";
}

}  // namespace fs
