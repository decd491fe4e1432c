// The MAC learning table of the switch's bridge (routing.default_route = learn): where each
// (VLAN, source MAC address) was last seen, forgotten routing.mac_aging_ns after its last frame,
// at most routing.mac_table_entries entries. Also the interface through which the parser shows
// the router every frame that passed its checks, so that frames handlers take are learned too.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <systemc>
#include <utility>

#include "common/stats_tree.h"
#include "common/units.h"
#include "net/headers.h"
#include "net/packet.h"

namespace fs {

// Told of every frame the switch takes in, once it has passed the parser's checks.
struct StationLearnIf : virtual sc_core::sc_interface {
  virtual void learn(const Packet& p, const Headers& h) = 0;
};

class MacTable {
 public:
  MacTable(uint64_t capacity, Picos aging) : capacity_(capacity), aging_(aging) {}

  // A frame from `mac` on VLAN `vid` came in on `port` at `now`: the entry is made (if there is
  // room, after forgetting aged entries), moved to `port`, or refreshed.
  void learn(uint16_t vid, uint64_t mac, unsigned port, Picos now);
  // The port `mac` on VLAN `vid` was learned on, unless unknown or aged (then forgotten).
  std::optional<unsigned> find(uint16_t vid, uint64_t mac, Picos now);

  size_t entries() const { return table_.size(); }
  void report(StatsTree& out) const {
    out["learned"] = learned, out["moved"] = moved, out["refused"] = refused, out["aged"] = aged;
    out["entries_max"] = entries_max, out["entries_at_end"] = uint64_t(table_.size());
  }
  uint64_t learned = 0;      // entries made
  uint64_t moved = 0;        // a known address seen on another port: its entry moved there
  uint64_t refused = 0;      // new addresses not learned because the table was full
  uint64_t aged = 0;         // entries forgotten because they had aged
  uint64_t entries_max = 0;  // most entries held at once

 private:
  struct Entry {
    unsigned port;
    Picos last_seen;
  };
  bool expired(const Entry& e, Picos now) const { return now - e.last_seen >= aging_; }
  void forget_aged(Picos now);

  uint64_t capacity_;
  Picos aging_;
  std::map<std::pair<uint16_t, uint64_t>, Entry> table_;  // ordered: deterministic sweeps
};

}  // namespace fs
