// The command unit: carries out what handlers ask for once they finish: send a frame out of a
// port, multicast one to a port list, or write data into the memory of the host on a port.
// Frames enter the egress queues after the unit's latency; host writes are logged per port (the
// place where closed-loop host agents will receive them).
#pragma once
#include <map>

#include "common/delay_line.h"
#include "common/stats_tree.h"
#include "config/config.h"
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

  // Configured by the command.* keys.
  CommandUnit(sc_core::sc_module_name name, const CommandConfig& cfg, Clock clock);
  void issue(HandlerCommand cmd, PacketPtr origin) override { stage_.push(Issued{std::move(cmd), std::move(origin)}); }

  void report(StatsTree& out) const {
    out["sends"] = sends, out["multicasts"] = multicasts, out["frames_out"] = frames_out;
    out["host_writes"] = host_writes;
    StatsTree& by_port = out["host_writes_by_port"].make_object();
    for (const auto& kv : host_memory_writes) {
      uint64_t bytes = 0;
      for (const auto& w : kv.second) bytes += w.data.size();
      by_port[std::to_string(kv.first)]["writes"] = kv.second.size();
      by_port[std::to_string(kv.first)]["bytes"] = bytes;
    }
  }
  uint64_t sends = 0, multicasts = 0, frames_out = 0, host_writes = 0;
  std::map<unsigned, std::vector<HostWrite>> host_memory_writes;  // by port

 private:
  void execute(Issued c);

  uint64_t next_id_ = 1ull << 48;  // ids of frames created by handlers
  DelayLine<Issued> stage_;
};

}  // namespace fs
