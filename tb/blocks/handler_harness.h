// HandlerHarness: runs a handler set's C handler on the host, packet by packet, the way a native
// HPU of the simulator does, but without SystemC. For handler unit tests:
//
//   fs::Config cfg;                          // geometry and handler-set options
//   cfg.pspin.clusters = 2;
//   fs::flare_config(cfg).ports = "0-2";
//   fs_tb::HandlerHarness h(cfg, "flare_dense");  // allocates L2 handler memory and every
//                                                 // cluster's L1 state area, runs the installer
//   fs_tb::HandlerCall c = h.run(frame, /*ingress_port=*/1);
//   c.outcome         the handler's return code; h.outcome_name(c.outcome) is its stats name
//   c.sent            every fs_send / fs_multicast / fs_host_write, in call order
//   c.packet          the packet slot after the handler (handlers may rewrite it in place)
//   h.l1(cluster), h.handler_memory()   state kept across packets (inspect or corrupt it)
//
// Geometry follows the simulator: each cluster's L1 state area is pspin.l1_bytes minus one
// kL1PacketSlotBytes slot per HPU (Cluster::l1_state_bytes); L2 handler memory is
// pspin.l2_handler_bytes; the packet is copied into a kL1PacketSlotBytes slot; calls naming a
// port >= ports.count return -1 and are not recorded (as in NativeEngine); fs_cluster_l1 gives
// NULL for a bad cluster. run() installs the harness's back end (fs_set_backend) for the call
// only and restores the previous one. Pass install=false to get zeroed handler memory instead.
// A handler not yet in the registry can be tried by passing its own fs::HandlerSet (fn, outcome
// names and, optionally, an installer).
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocols/flare_dense/flare_setup.h"
#include "config/config.h"
#include "fs_handler.h"
#include "net/packet.h"
#include "pspin/cluster.h"
#include "pspin/handler_sets.h"
#include "pspin/packet_buffer.h"

namespace fs_tb {

struct SentFrame {
  enum Kind { kSend, kMulticast, kHostWrite } kind;
  std::vector<uint32_t> ports;  // one port for send and host write
  uint64_t host_addr = 0;
  fs::Bytes data;
};

struct HandlerCall {
  int outcome = 0;
  std::vector<SentFrame> sent;
  fs::Bytes packet;  // the first pkt_len bytes of the packet slot after the handler ran
};

class HandlerHarness {
 public:
  HandlerHarness(const fs::Config& cfg, const std::string& set_name, bool install = true)
      : HandlerHarness(cfg, registered(set_name), install) {}
  HandlerHarness(const fs::Config& cfg, fs::HandlerSet set, bool install = true)
      : cfg_(cfg), set_(std::move(set)), handler_mem_(cfg.pspin.l2_handler_bytes, 0), slot_(fs::kL1PacketSlotBytes, 0) {
    const uint64_t l1_size = fs::Cluster::l1_state_bytes(cfg);
    for (unsigned c = 0; c < cfg.pspin.clusters; ++c) l1_.emplace_back(l1_size, 0);
    if (install) {  // the set alone owns all of L1 and L2, as when it is the switch's only set
      set_.control->memory_need(cfg, l1_size, handler_mem_.size());
      const fs::InstallTarget target{handler_mem_.data(), uint32_t(handler_mem_.size()), uint32_t(l1_size),
                                     cfg.pspin.clusters};
      set_.control->install(cfg, target);
    }
  }
  HandlerHarness(const HandlerHarness&) = delete;
  HandlerHarness& operator=(const HandlerHarness&) = delete;

  const fs::HandlerSet& set() const { return set_; }
  std::string outcome_name(int code) const {
    return code >= 0 && size_t(code) < set().outcomes.size() ? set().outcomes[size_t(code)].name
                                                              : "code_" + std::to_string(code);
  }
  uint8_t* l1(uint32_t cluster) { return l1_.at(cluster).data(); }
  uint32_t l1_size() const { return uint32_t(l1_.at(0).size()); }
  std::vector<uint8_t>& handler_memory() { return handler_mem_; }

  // Runs the handler on `frame` as HPU `hpu` of cluster `cluster`.
  HandlerCall run(const fs::Bytes& frame, uint32_t ingress_port = 0, uint32_t cluster = 0, uint32_t hpu = 0) {
    if (frame.size() > slot_.size()) throw std::invalid_argument("frame larger than an L1 packet slot");
    std::fill(slot_.begin(), slot_.end(), 0);
    std::copy(frame.begin(), frame.end(), slot_.begin());
    HandlerCall call;
    current_ = &call;
    fs_handler_args_t args{};
    args.pkt = slot_.data();
    args.pkt_len = uint32_t(frame.size());
    args.ingress_port = ingress_port;
    args.cluster_id = cluster;
    args.hpu_id = hpu;
    args.num_clusters = cfg_.pspin.clusters;
    args.l1 = l1(cluster);
    args.l1_size = l1_size();
    args.handler_mem = handler_mem_.data();
    args.handler_mem_size = uint32_t(handler_mem_.size());
    const fs_backend_t backend{this, &HandlerHarness::on_send, &HandlerHarness::on_multicast,
                               &HandlerHarness::on_host_write, &HandlerHarness::on_cluster_l1,
                               /*dma_copy: a plain copy*/ nullptr};
    const fs_backend_t* previous = fs_set_backend(&backend);
    call.outcome = set().fn(&args);
    fs_set_backend(previous);
    current_ = nullptr;
    call.packet.assign(slot_.begin(), slot_.begin() + frame.size());
    return call;
  }

 private:
  static fs::HandlerSet registered(const std::string& name) {
    const int i = fs::find_handler_set(name);
    if (i < 0) throw std::invalid_argument("no handler set '" + name + "'");
    return fs::handler_sets()[size_t(i)];
  }
  static HandlerHarness& self(void* ctx) { return *static_cast<HandlerHarness*>(ctx); }
  bool bad_port(uint32_t port) const { return port >= cfg_.ports.count; }

  static int on_send(void* ctx, const void* frame, uint32_t len, uint32_t port) {
    HandlerHarness& h = self(ctx);
    if (h.bad_port(port)) return -1;
    const auto* b = static_cast<const uint8_t*>(frame);
    h.current_->sent.push_back(SentFrame{SentFrame::kSend, {port}, 0, fs::Bytes(b, b + len)});
    return 0;
  }
  static int on_multicast(void* ctx, const void* frame, uint32_t len, const uint32_t* ports, uint32_t n) {
    HandlerHarness& h = self(ctx);
    for (uint32_t i = 0; i < n; ++i)
      if (h.bad_port(ports[i])) return -1;
    const auto* b = static_cast<const uint8_t*>(frame);
    h.current_->sent.push_back(
        SentFrame{SentFrame::kMulticast, std::vector<uint32_t>(ports, ports + n), 0, fs::Bytes(b, b + len)});
    return 0;
  }
  static int on_host_write(void* ctx, uint32_t port, uint64_t addr, const void* data, uint32_t len) {
    HandlerHarness& h = self(ctx);
    if (h.bad_port(port)) return -1;
    const auto* b = static_cast<const uint8_t*>(data);
    h.current_->sent.push_back(SentFrame{SentFrame::kHostWrite, {port}, addr, fs::Bytes(b, b + len)});
    return 0;
  }
  static uint8_t* on_cluster_l1(void* ctx, uint32_t cluster, uint32_t* size) {
    HandlerHarness& h = self(ctx);
    if (cluster >= h.l1_.size()) return nullptr;
    if (size) *size = h.l1_size();
    return h.l1_[cluster].data();
  }

  fs::Config cfg_;
  fs::HandlerSet set_;
  std::vector<uint8_t> handler_mem_;
  std::vector<std::vector<uint8_t>> l1_;
  fs::Bytes slot_;
  HandlerCall* current_ = nullptr;
};

}  // namespace fs_tb
