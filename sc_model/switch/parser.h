// The parser/matcher: validates each frame's headers (walked by net/headers.h; malformed frames
// are dropped and counted), checks the invariant CRC of RoCEv2 frames (VLAN-tagged too) on its
// ingress port's CRC engine (parser.icrc; wrong: dropped as icrc), shows every frame that passed to the learning
// bridge (learn), matches the frame against the configured rules (EtherType, IP protocol, UDP
// destination port, masked bytes of the UDP payload; seen through VLAN tags, over IPv4 or IPv6)
// and sends matching frames,
// tagged with their handler set, block id and (under the flow policy) flow hash, to the PsPIN
// unit; all other frames go to the routing table. Each ingress port has a CRC engine (as a MAC
// checks its frames' CRC), which takes a frame at a time, after the parser's latency, for one
// cycle per beat: RoCEv2 frames wait for their port's engine and for their check; other frames
// pass them, and the ports' engines work side by side.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/delay_line.h"
#include "common/timed_queue.h"
#include "common/stats_tree.h"
#include "config/config.h"
#include "net/flow_key.h"
#include "net/headers.h"
#include "net/icrc.h"
#include "net/packet_sink.h"
#include "switch/mac_table.h"

namespace fs {

// A rule's condition on one byte of the UDP payload: byte `offset`, ANDed with `mask`, equals
// `value` (value has no bit outside mask). A frame whose UDP payload has no such byte (or that is
// not UDP) does not match.
struct PayloadByteMatch {
  uint32_t offset = 0;
  uint8_t mask = 0xFF, value = 0;
  std::string text;  // the condition as written, for messages
};

struct MatchRule {
  std::optional<uint16_t> ethertype;
  std::optional<uint8_t> ip_proto;
  std::optional<uint16_t> udp_dport;
  std::vector<PayloadByteMatch> payload;  // all must hold
  int handler_set = -1;
  std::string text;  // as written, for messages
};

// Parses "field=value[,field=value] -> handler_set" rules separated by ';' (fields ethertype,
// ip_proto, udp_dport, each at most once, and any number of payload[OFFSET] or
// payload[OFFSET]&MASK). Throws InputError naming 'parser.rules', the rule and the reason.
std::vector<MatchRule> parse_match_rules(const std::string& text);

class Parser : public sc_core::sc_module, public PacketSinkIf {
 public:
  sc_core::sc_port<PacketSinkIf> to_pspin;   // matched: processed by a handler
  sc_core::sc_port<PacketSinkIf> to_router;  // not matched: forwarded by the routing table
  // Told of every frame that passed the checks, matched or not (the router's learning bridge).
  sc_core::sc_port<StationLearnIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> learn;

  // Configured by the parser.* keys (the rules are parsed here; InputError names a bad one).
  // icrc: the CRC engine that checks RoCEv2 frames, on the PsPIN clock (nullptr: they are not
  // checked; parser.icrc decides).
  Parser(sc_core::sc_module_name name, const ParserConfig& cfg, Clock clock, DropLedger& drops,
         std::unique_ptr<IcrcCore> icrc = nullptr);
  void accept(PacketPtr p) override;
  // Under the flow policy: every matched frame's flow hash is computed from this key (a frame
  // without the key's payload bytes is malformed).
  void use_flow_key(FlowKey key) { flow_key_ = std::move(key); }
  // The handler sets the rules name (indices into handler_sets()), in rule order, each once.
  std::vector<int> handler_sets_used() const;

  // Its counters, into the stats' totals.
  void report(StatsTree& totals) const {
    totals["matched"] = matched, totals["routed"] = routed, totals["icrc_checked"] = icrc_checked;
    totals["icrc_engine_cycles"] = icrc_engine_cycles;
    totals["icrc_wait_us"] = double(icrc_wait_ps) / double(kPicosPerUs);
  }
  uint64_t matched = 0, routed = 0;
  uint64_t icrc_checked = 0, icrc_engine_cycles = 0;  // RoCEv2 frames checked, engine clock cycles
  Picos icrc_wait_ps = 0;  // summed time RoCEv2 frames spent waiting for and in the engine

 private:
  void classify(PacketPtr p);
  void match(PacketPtr p, const Headers& h);  // after the checks: to the PsPIN unit or the router
  // Whether every payload condition holds for the frame walked into `h`.
  static bool payload_holds(const std::vector<PayloadByteMatch>& conds, const Headers& h, const uint8_t* frame);

  std::vector<MatchRule> rules_;
  std::optional<FlowKey> flow_key_;
  Bytes key_bytes_;  // the flow key of the frame at hand (kept to reuse its storage)
  std::unique_ptr<IcrcCore> icrc_;
  Picos cycle_ps_;
  std::map<unsigned, Picos> engine_free_;  // each ingress port's CRC engine takes one frame at a time
  TimedQueue<PacketPtr> icrc_stage_;       // frames leave their engine in order, engines in parallel
  DropLedger& drops_;
  DelayLine<PacketPtr> stage_;
};

}  // namespace fs
