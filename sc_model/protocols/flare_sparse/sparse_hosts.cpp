// Closed-loop Flare sparse allreduce hosts (see sparse_hosts.h).
#include "protocols/flare_sparse/sparse_hosts.h"

#include <algorithm>
#include <map>

#include "common/errors.h"
#include "common/sc_time_util.h"
#include "protocols/flare_dense/allreduce_timing.h"
#include "protocols/flare_dense/block_window_host.h"
#include "protocols/flare_sparse/sparse_config.h"
#include "protocols/flare_sparse/sparse_setup.h"

namespace fs {

constexpr uint64_t kSparseHostLossStream = 0x736c6f73;  // "slos": packets lost on a sparse host's link

// One host: the shared send loop (flare_dense/block_window_host.h), the packets of each block,
// and a sink for what its switch port sends it.
class SparseHosts::Host : public BlockWindowHost, public PacketSinkIf {
 public:
  Host(sc_core::sc_module_name name, const Config& cfg, unsigned rank, unsigned hosts, uint16_t port,
       IngressPort& ingress, std::vector<std::vector<Bytes>> frames, Picos* done_at, unsigned states)
      : BlockWindowHost(name, cfg.hosts, rank, hosts, frames.size(), states, done_at),
        seed_(cfg.seed),
        ingress_(ingress),
        frames_(std::move(frames)),
        allreduce_id_(sparse_config(cfg).allreduce_id) {
    traffic.port = port;
  }

  // What the switch's egress port sends this host: the result packets of its blocks.
  void accept(PacketPtr p) override {
    SparsePacket r;
    std::string why;
    if (!parse_sparse_packet(p->data.data(), p->data.size(), &r, &why)) return;
    if (r.h.kind != FLARE_KIND_RESULT || r.h.allreduce_id != allreduce_id_) return;
    ++traffic.packets;
    traffic.bytes += p->data.size();
    traffic.pairs += r.h.pair_count;
    if (!in_flight(r.h.block_id)) return;  // done with already (or given up)
    ResultShards& s = results_[r.h.block_id];
    if (s.take(r.h) && s.complete()) result_complete(r.h.block_id);  // a duplicate adds nothing
  }

  uint64_t lost = 0;
  uint64_t contrib_packets = 0, contrib_bytes = 0, contrib_pairs = 0;
  SparsePortTraffic traffic;  // the result packets received

 private:
  void forget(uint32_t block) override { results_.erase(block); }

  // Puts the block's packets on the link back to back: the switch port has a packet's last bit
  // one wire time after the previous one's, unless the packet is lost. A retransmission stops
  // early if the block's result completes meanwhile.
  void send_block(uint32_t block) override {
    for (const Bytes& frame : frames_[block]) {
      if (!in_flight(block)) return;
      ++packet_sends_;
      const bool is_lost =
          cfg_.loss > 0 && draw_hits(timing_draw(seed_, kSparseHostLossStream, rank_, packet_sends_), cfg_.loss);
      wait(ps_time(ingress_.wire_time_of(frame.size())));
      ++contrib_packets;
      contrib_bytes += frame.size();
      contrib_pairs += fs_be16(frame.data() + FLARE_PAYLOAD_OFFSET + FLARE_OFF_COUNT);
      if (is_lost) {
        ++lost;
        continue;
      }
      auto p = std::make_shared<Packet>();
      p->data = frame;
      ingress_.accept(std::move(p));
    }
  }

  uint64_t seed_;
  IngressPort& ingress_;
  std::vector<std::vector<Bytes>> frames_;  // by block: its packets in order
  uint32_t allreduce_id_;
  uint64_t packet_sends_ = 0;  // packets put on the link so far: the loss stream's draw number
  std::map<uint32_t, ResultShards> results_;  // in-flight block -> its result packets so far
};

SparseHosts::SparseHosts(sc_core::sc_module_name name, const Config& cfg, Switch& sw)
    : sc_core::sc_module(name), vector_bytes_(cfg.hosts.bytes) {
  const std::vector<unsigned> ports = parse_port_list("flare_sparse.ports", sparse_config(cfg).ports);
  if (ports.empty()) throw InputError("hosts.model sparse_allreduce: flare_sparse.ports names no host port");
  for (unsigned p : ports)
    if (p >= sw.ingress().size())
      throw InputError("flare_sparse.ports: port " + std::to_string(p) + " does not exist (ports.count = " +
                       std::to_string(sw.ingress().size()) + ")");
  const unsigned states = block_states(cfg, sw);
  const SparseWorkload w = make_sparse_workload(sparse_workload_options(cfg, unsigned(ports.size())));
  std::vector<uint16_t> host_ports(ports.begin(), ports.end());
  expected_ = sparse_expected_of(w, host_ports);
  for (size_t r = 0; r < ports.size(); ++r) {
    std::vector<std::vector<Bytes>> frames(w.blocks());
    for (uint64_t b = 0; b < w.blocks(); ++b) frames[b] = sparse_block_frames(w, unsigned(r), uint32_t(b), host_ports[r]);
    hosts_.push_back(std::make_unique<Host>(("host" + std::to_string(r)).c_str(), cfg, unsigned(r),
                                            unsigned(ports.size()), host_ports[r], *sw.ingress()[ports[r]],
                                            std::move(frames), &done_at_, states));
    sw.egress()[ports[r]]->link(hosts_.back().get());
  }
}

SparseHosts::~SparseHosts() = default;

unsigned SparseHosts::block_states(const Config& cfg, Switch& sw) {
  const uint32_t l1 = sw.pspin().set_memory(find_handler_set("flare_sparse")).l1_bytes;
  if (!l1) return 0;  // the switch has no flare_sparse handler set
  for (const SparseAllreduce& a : sparse_allreduces(cfg, l1))
    if (a.table.allreduce_id == sparse_config(cfg).allreduce_id) return a.table.states_per_cluster * cfg.pspin.clusters;
  return 0;
}

HostStats SparseHosts::stats() const {
  HostStats s;
  s.model = "sparse_allreduce";
  s.hosts = hosts_.size();
  s.blocks = expected_.blocks.size();
  uint64_t contrib_packets = 0, contrib_bytes = 0, contrib_pairs = 0;
  SparsePortTraffic results;
  nlohmann::json per_host = nlohmann::json::array();
  for (size_t r = 0; r < hosts_.size(); ++r) {
    const Host& h = *hosts_[r];
    s.gave_up += h.gave_up;
    s.max_in_flight = std::max(s.max_in_flight, h.max_in_flight);
    s.sends += h.sends;
    s.retransmissions += h.retransmissions;
    s.lost += h.lost;
    s.results += h.traffic.packets;
    s.blocks_completed += h.completed;
    contrib_packets += h.contrib_packets;
    contrib_bytes += h.contrib_bytes;
    contrib_pairs += h.contrib_pairs;
    results.packets += h.traffic.packets;
    results.bytes += h.traffic.bytes;
    results.pairs += h.traffic.pairs;
    per_host.push_back({{"rank", r},
                        {"port", h.traffic.port},
                        {"contrib_packets", h.contrib_packets},
                        {"contrib_bytes", h.contrib_bytes},
                        {"contrib_pairs", h.contrib_pairs},
                        {"result_packets", h.traffic.packets},
                        {"result_bytes", h.traffic.bytes},
                        {"result_pairs", h.traffic.pairs}});
  }
  uint64_t reference_pairs = 0;
  for (const SparseExpectedBlock& b : expected_.blocks) reference_pairs += b.pairs.size();
  s.details = {{"contrib_packets", contrib_packets},
               {"contrib_bytes", contrib_bytes},
               {"contrib_pairs", contrib_pairs},
               {"result_packets", results.packets},
               {"result_bytes", results.bytes},
               {"result_pairs", results.pairs},
               {"reference_pairs", reference_pairs},
               {"per_host", per_host}};
  const double seconds = double(done_at_) / 1e12;
  s.done_us = double(done_at_) / double(kPicosPerUs);
  // As the dense hosts': the data the hosts reduced, each host's whole (dense) vector, per second
  // until the last result; 0 when a block was given up.
  s.allreduce_gbps =
      seconds > 0 && !s.gave_up ? double(vector_bytes_) * double(hosts_.size()) * 8.0 / seconds / 1e9 : 0.0;
  return s;
}

std::string SparseHosts::summary() const {
  const HostStats s = stats();
  return "hosts            " + std::to_string(hosts_.size()) + " sparse allreduce hosts, " +
         std::to_string(s.blocks_completed) + " of " + std::to_string(hosts_.size() * expected_.blocks.size()) +
         " block results complete by " + std::to_string(s.done_us) + " us, " + std::to_string(s.retransmissions) +
         " retransmissions, " + std::to_string(s.details["result_pairs"].get<uint64_t>()) + " result pairs received (" +
         std::to_string(s.details["reference_pairs"].get<uint64_t>() * hosts_.size()) + " without spills)\n";
}

}  // namespace fs
