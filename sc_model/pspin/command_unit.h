// The command path: the HPUs' command frontends and the command unit. It carries out what
// handlers ask for, as they issue it (ISS HPUs, at the cycle of the issue) or when their run
// ends (native HPUs, and the commands a run leaves): send a frame out of a port, multicast one
// to a port list, or write data into the memory of the host on a port. Each HPU has
// `command.per_hpu` command slots, as PsPIN's command frontend has command ids: a command holds
// one from its issue until it is done, `command.latency_cycles` later, when its frames enter the
// egress queues (host writes are logged per port, the place where closed-loop host agents will
// receive them); an HPU with every slot held waits at the issue for its oldest command to be done.
// With command.icrc = stamp a RoCEv2 frame to send then goes through the CRC engine of its
// egress port (net/icrc.h: the C++ twin or, with --rtl crc32, the Verilated icrc_engine), which
// writes its ICRC: a frame at a time per port, 8 bytes a cycle, the ports' engines side by side;
// its frames enter the egress queues when it is done.
#pragma once
#include <deque>
#include <map>
#include <utility>

#include "common/stats_tree.h"
#include "common/timed_queue.h"
#include "config/config.h"
#include "net/icrc.h"
#include "pspin/channels.h"
#include "pspin/task.h"
#include "net/packet_sink.h"

namespace fs {

struct HostWrite {
  Picos time;
  uint64_t addr;
  Bytes data;
};

class CommandUnit : public sc_core::sc_module, public CommandIf {
 public:
  sc_core::sc_port<PacketSinkIf, 0> egress;  // bound once per port, in port order

  struct Issued {
    HandlerCommand cmd;
    PacketPtr origin;  // the packet whose handler issued it (for latency)
  };

  // Configured by the command.* keys; `icrc`: the CRC engine that stamps RoCEv2 frames (nullptr
  // with command.icrc = off).
  CommandUnit(sc_core::sc_module_name name, const CommandConfig& cfg, Clock clock, std::unique_ptr<IcrcCore> icrc);
  Picos issue(unsigned cluster, unsigned hpu, Picos at, HandlerCommand cmd, PacketPtr origin) override;
  Picos done_at(unsigned cluster, unsigned hpu) const override;

  void report(StatsTree& out) const {
    out["sends"] = sends, out["multicasts"] = multicasts, out["frames_out"] = frames_out;
    out["host_writes"] = host_writes;
    out["icrc_stamped"] = icrc_stamped, out["icrc_engine_cycles"] = icrc_engine_cycles;
    out["icrc_wait_us"] = double(icrc_wait_ps) / double(kPicosPerUs);
    StatsTree& by_port = out["host_writes_by_port"].make_array();  // ports in ascending order
    for (const auto& kv : host_memory_writes) {
      uint64_t bytes = 0;
      for (const auto& w : kv.second) bytes += w.data.size();
      StatsTree& p = by_port.append();
      p["port"] = kv.first, p["writes"] = kv.second.size(), p["bytes"] = bytes;
    }
  }
  uint64_t sends = 0, multicasts = 0, frames_out = 0, host_writes = 0;
  uint64_t icrc_stamped = 0, icrc_engine_cycles = 0;  // RoCEv2 frames stamped, the engine's cycles for them
  Picos icrc_wait_ps = 0;                               // their time waiting for the engine and in it
  std::map<unsigned, std::vector<HostWrite>> host_memory_writes;  // by port

 private:
  void execute(Issued c);
  void send(Issued c);  // its frames into the egress queues

  std::unique_ptr<IcrcCore> icrc_;
  Picos cycle_ps_;
  std::map<unsigned, Picos> engine_free_;  // by egress port: when its CRC engine has finished the frames it took
  Picos latency_;
  unsigned per_hpu_;
  // Per HPU (cluster, hpu): when its commands not yet done at their latest issue will be done,
  // in issue order (their latency is the same, so also in the order they are done).
  std::map<std::pair<unsigned, unsigned>, std::deque<Picos>> slots_;
  uint64_t next_id_ = 1ull << 48;  // ids of frames created by handlers
  TimedQueue<Issued> done_;     // commands on their way, carried out when done
  TimedQueue<Issued> stamped_;  // sends whose frame the CRC engine is stamping, sent when it is done
};

}  // namespace fs
