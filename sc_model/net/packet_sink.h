// The one way blocks hand packets to each other: a SystemC interface with a non-blocking
// accept(). A block's output is an sc_port<PacketSinkIf> bound to the next block, so a block can
// be swapped (e.g. for a Verilated twin or a link to another switch) without touching its peers.
// Also the drop ledger every block reports into, by cause.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <systemc>

#include "net/packet.h"

namespace fs {

struct PacketSinkIf : virtual sc_core::sc_interface {
  virtual void accept(PacketPtr p) = 0;
};

// Drops by cause ("malformed", "buffer_full", ...), and the packets handlers dropped by handler
// set and outcome ("flare_dense", "duplicate"). Ordered so that output is deterministic.
struct DropLedger {
  std::map<std::string, uint64_t> by_cause;
  std::map<std::string, std::map<std::string, uint64_t>> by_handler;
  void count(const std::string& cause, uint64_t n = 1) { by_cause[cause] += n; }
  void count_handler(const std::string& set, const std::string& outcome) { ++by_handler[set][outcome]; }
  uint64_t total() const {
    uint64_t t = 0;
    for (const auto& kv : by_cause) t += kv.second;
    for (const auto& set : by_handler)
      for (const auto& kv : set.second) t += kv.second;
    return t;
  }
};

}  // namespace fs
