// One switch: ingress ports, parser/matcher, routing table, the PsPIN unit and egress ports,
// wired together. Several switches can live in one simulation (link an egress port to another
// switch's ingress; network/ builds whole fabrics); each owns its drop ledger and statistics.
// A plain switch has no PsPIN unit: its parser may match nothing, and it only forwards.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "config/config.h"
#include "rtl_params.h"
#include "pspin/pspin_unit.h"
#include "rtl_bridge/rtl_context.h"
#include "switch/egress_port.h"
#include "switch/ingress_port.h"
#include "switch/parser.h"
#include "switch/router.h"

namespace fs {

// The parser's CRC engine takes the Verilated build's BYTES a cycle (rtl/CMakeLists.txt).
constexpr unsigned kIcrcEngineBytesPerCycle = rtl_param::icrc_engine::BYTES;

// How a switch is built beyond its configuration: its ports' links (empty: every port's from
// the ports section) and whether it has a packet-processing unit.
struct SwitchShape {
  std::vector<LinkParams> links;  // one per port, or none
  bool pspin = true;
};

class Switch : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Switch);
  Switch(sc_core::sc_module_name name, const Config& cfg, const SwitchShape& shape = {});

  // Trace packets to replay (each with its ingress port and arrival time). Call before the
  // simulation starts. They are received in the order of the time their last bit is in, ties
  // by port then trace order, by one replay process for all ports.
  void load(const std::vector<PacketPtr>& packets);
  // The same, for packets known by their id, ingress port, arrival time and frame size: the
  // replay asks `frame` for each one's bytes (by its index in `arrivals`) when its last bit is
  // in (net/trace_reader.h's TraceFrames), so the trace's frames are never all in memory. A
  // frame that comes back short (the trace could no longer be read) ends the replay; the caller
  // says why.
  struct Arrival {
    Picos time;
    uint64_t id;
    uint32_t size;
    uint16_t port;
  };
  void load(const std::vector<Arrival>& arrivals, std::function<Bytes(size_t index)> frame);
  void on_departure(const DepartureHook& hook);
  // Connects egress port `port` of this switch to ingress port `peer_port` of `peer` (a
  // zero-length link: the peer receives each frame when its last bit leaves this switch).
  void link(unsigned port, Switch& peer, unsigned peer_port);

  const Config& config() const { return cfg_; }
  DropLedger drops;
  const std::vector<std::unique_ptr<IngressPort>>& ingress() const { return ingress_; }
  const std::vector<std::unique_ptr<EgressPort>>& egress() const { return egress_; }
  Parser& parser() { return *parser_; }
  Router& router() { return *router_; }
  bool has_pspin() const { return pspin_ != nullptr; }
  PspinUnit& pspin() { return *pspin_; }  // only if has_pspin()
  const LinkParams& link_params(unsigned port) const { return egress_.at(port)->params(); }

 private:
  void replay();
  void start_of_simulation() override;

  Config cfg_;
  // Trace packets by received time: when the first and last bit are in, and which.
  struct Replay {
    Picos start, received;
    uint64_t id;
    size_t index;  // in load()'s arrivals
    uint32_t size;
    uint16_t port;
  };
  std::vector<Replay> replay_;
  std::function<Bytes(size_t index)> frame_;
  std::unique_ptr<RtlContext> rtl_;  // the Verilated blocks' context (--rtl); outlives them
  std::vector<std::unique_ptr<IngressPort>> ingress_;
  std::vector<std::unique_ptr<EgressPort>> egress_;
  std::unique_ptr<Parser> parser_;
  std::unique_ptr<Router> router_;
  std::unique_ptr<PspinUnit> pspin_;
  std::unique_ptr<PacketSinkIf> no_unit_;  // a plain switch's parser's to_pspin (never used)
};

}  // namespace fs
