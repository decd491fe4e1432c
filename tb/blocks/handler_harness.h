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
//   c.timers          every fs_timer_arm / fs_timer_cancel, in call order
//   h.run_timer(id)   runs the set's timer handler for timer `id`
//   h.set_routes(&r)  the routing table fs_next_hop asks (a fs::NextHopIf; unset: -1)
//   c.log             every fs_log line as the handler log has it ("0.000 <cluster> <hpu> <set> <text>")
//   c.packet          the frame in the packet slot after the handler (handlers may rewrite it in place)
//   h.l1(cluster), h.handler_memory()   state kept across packets (inspect or corrupt it)
//   a handler fault throws HandlerFault (below)
//
// Memory is the simulator's own (pspin/memory/pspin_memory.h): each cluster's L1 state area is
// pspin.l1_bytes minus one kL1PacketSlotBytes slot per HPU; L2 handler memory is
// pspin.l2_handler_bytes; the set owns all of both; the packet is copied into the HPU's slot (at
// FS_PKT_FRAME_OFFSET, place_packet) and the handler sees the HPU's view of the memories, as a
// native HPU does. The calls are
// carried out by the simulator's own HandlerApi (pspin/handler_api.h), as on a native HPU at
// time 0: calls naming a port >= ports.count return -1 and are not recorded; fs_cluster_l1 gives
// NULL for a bad cluster; fs_dma_copy copies at once. run() installs the HandlerApi's back end
// (fs_set_backend) for the call only and restores the previous one. Pass install=false to get
// zeroed handler memory instead.
// The handler runs as a native HPU runs it, as a guarded native call (pspin/native_call.h): the
// L1 state areas, the handler memory and the packet slot have guard pages, so an access past
// their end (or before the packet slot's start) traps, and a run longer than
// cfg.hpu.native_watchdog_ms is stopped; run() then throws HandlerFault with the message a native
// HPU's fault has in the simulator ("handler NAME (cluster C, HPU H): store access fault 12 bytes
// past the end of cluster 0's L1 state area (offset 4107 of its 4096 bytes) at host pc 0x... in
// f at file.c:31"), followed by " on packet N from port P", N counting the harness's runs from 0.
// A handler not yet in the registry can be tried by passing its own fs::HandlerSet (fn, outcome
// names and, optionally, an installer).
#pragma once
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocols/flare_dense/flare_setup.h"
#include "common/errors.h"
#include "config/config.h"
#include "fs_handler.h"
#include "fs_packet.h"
#include "net/packet.h"
#include "pspin/handler_api.h"
#include "pspin/handler_sets.h"
#include "pspin/memory/pspin_memory.h"
#include "pspin/native_call.h"

namespace fs_tb {

struct SentFrame {
  enum Kind { kSend, kMulticast, kHostWrite } kind;
  std::vector<uint32_t> ports;  // one port for send and host write
  uint64_t host_addr = 0;
  fs::Bytes data;
};

// A handler fault in HandlerHarness::run (the message as above).
struct HandlerFault : fs::SimError {
  using fs::SimError::SimError;
};

// A timer command of the run (fs_timer_arm, fs_timer_cancel), carried out when the run ends.
struct TimerCommand {
  bool arm = false;  // false: cancel
  uint32_t id = 0, delay_cycles = 0;
};

// Routes of a switch with hosts 0 .. hosts - 1 on the ports of their numbers (fs_host_ipv4): the
// port of a host's address, -1 for any other.
struct HostsOnTheirPorts : fs::NextHopIf {
  explicit HostsOnTheirPorts(unsigned hosts) : hosts_(hosts) {}
  int next_hop_ipv4(uint32_t dst) const override {
    for (unsigned h = 0; h < hosts_; ++h)
      if (dst == fs_host_ipv4(h)) return int(h);
    return -1;
  }

 private:
  unsigned hosts_;
};

struct HandlerCall {
  int outcome = 0;
  std::vector<SentFrame> sent;
  std::vector<TimerCommand> timers;  // in call order
  std::vector<std::string> log;  // handler log lines, without the newline
  fs::Bytes packet;  // the pkt_len bytes at args.pkt after the handler ran
};

class HandlerHarness {
 public:
  HandlerHarness(const fs::Config& cfg, const std::string& set_name, bool install = true)
      : HandlerHarness(cfg, registered(set_name), install) {}
  HandlerHarness(const fs::Config& cfg, fs::HandlerSet set, bool install = true)
      : cfg_(cfg), set_(std::move(set)), memory_(cfg.pspin, cfg.hpu) {
    const uint32_t l1_size = memory_.l1_layout().state_bytes();
    const uint32_t l2_size = uint32_t(memory_.l2_handler_bytes());
    memory_.assign(kSet, fs::HandlerSetMemory{0, l1_size, 0, l2_size});
    if (install) {  // the set alone owns all of L1 and L2, as when it is the switch's only set
      set_.control->memory_need(cfg, l1_size, l2_size);
      set_.control->install(cfg, memory_.install_target(kSet));
    }
  }
  HandlerHarness(const HandlerHarness&) = delete;
  HandlerHarness& operator=(const HandlerHarness&) = delete;

  const fs::HandlerSet& set() const { return set_; }
  std::string outcome_name(int code) const {
    return code >= 0 && size_t(code) < set().outcomes.size() ? set().outcomes[size_t(code)].name
                                                              : "code_" + std::to_string(code);
  }
  uint8_t* l1(uint32_t cluster) { return memory_.set_l1(kSet, cluster).data(); }
  uint32_t l1_size() const { return memory_.l1_layout().state_bytes(); }
  fs::GuardedMemory& handler_memory() { return memory_.set_l2(kSet); }
  // The switch's routing table fs_next_hop asks (unset: it gives -1).
  void set_routes(const fs::NextHopIf* routes) { routes_ = routes; }

  // Runs the set's timer handler for timer `id` (its event, fs_timer_event_t) as HPU `hpu` of `cluster`.
  HandlerCall run_timer(uint32_t id, uint32_t cluster = 0, uint32_t hpu = 0) {
    const fs_timer_event_t e{id, cluster};
    fs::Bytes event(sizeof e);
    std::memcpy(event.data(), &e, sizeof e);
    return run(event, FS_TIMER_PORT, cluster, hpu);
  }

  // Runs the handler on `frame` as HPU `hpu` of cluster `cluster`.
  HandlerCall run(const fs::Bytes& frame, uint32_t ingress_port = 0, uint32_t cluster = 0, uint32_t hpu = 0) {
    if (frame.size() > fs::kMaxSlotFrameBytes) throw std::invalid_argument("frame larger than an L1 packet slot holds");
    const fs::HpuMemoryView& view = memory_.view(cluster, hpu, kSet);
    std::fill(view.pkt_slot.host, view.pkt_slot.host + view.pkt_slot.size, 0);
    HandlerCall call;
    const fs::HandlerJob job{set_, fs::place_packet(view, frame, ingress_port), view};
    fs::HpuEnvironment env;
    env.num_ports = cfg_.ports.count;
    env.routes = routes_;
    fs::HandlerRun result;
    Untimed hooks;
    std::ostringstream log_text;
    fs::HandlerLog log(&log_text);
    fs::HandlerApi api(env, job, result, hooks, &log);
    fs::run_native_handler(job, api, result, cfg_.hpu.native_watchdog_ms);
    const uint64_t packet = runs_++;
    if (!result.fault.empty())
      throw HandlerFault(result.fault + "; packet " + std::to_string(packet) + " from port " +
                         std::to_string(ingress_port));
    call.outcome = result.outcome;
    for (fs::HandlerCommand& cmd : result.commands) {
      if (cmd.kind == fs::HandlerCommand::kTimerArm || cmd.kind == fs::HandlerCommand::kTimerCancel) {
        call.timers.push_back(TimerCommand{cmd.kind == fs::HandlerCommand::kTimerArm, cmd.timer_id, cmd.delay_cycles});
        continue;
      }
      call.sent.push_back(SentFrame{cmd.kind == fs::HandlerCommand::kSend        ? SentFrame::kSend
                                    : cmd.kind == fs::HandlerCommand::kMulticast ? SentFrame::kMulticast
                                                                                 : SentFrame::kHostWrite,
                                    std::move(cmd.ports), cmd.host_addr, std::move(cmd.data)});
    }
    std::istringstream lines(log_text.str());
    for (std::string line; std::getline(lines, line);) call.log.push_back(line);
    call.packet.assign(job.args.pkt, job.args.pkt + frame.size());
    return call;
  }

 private:
  static fs::HandlerSet registered(const std::string& name) {
    const int i = fs::find_handler_set(name);
    if (i < 0) throw std::invalid_argument("no handler set '" + name + "'");
    return fs::handler_sets()[size_t(i)];
  }
  // The harness does not time handlers: every call is at time 0 and DMA copies cost nothing.
  struct Untimed : fs::HandlerApi::Hooks {
    fs::Picos now() const override { return 0; }
    uint64_t dma(uint32_t) override { return 0; }
  };

  static constexpr int kSet = 0;  // the set's key in memory_

  fs::Config cfg_;
  fs::HandlerSet set_;
  fs::PspinMemory memory_;
  const fs::NextHopIf* routes_ = nullptr;
  uint64_t runs_ = 0;  // packets run so far
};

}  // namespace fs_tb
