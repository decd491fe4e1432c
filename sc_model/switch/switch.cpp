// Switch assembly (see switch.h).
#include "switch/switch.h"

#include <algorithm>
#include <string>

#include "common/errors.h"
#include "common/fnv1a.h"
#include "rtl_bridge/icrc_rtl.h"

namespace fs {
namespace {

// What a plain switch's parser would hand its missing PsPIN unit: nothing, since its rules may
// name no handler set (checked when it is built).
class NoUnit : public PacketSinkIf {
 public:
  void accept(PacketPtr) override { throw SimError("a plain switch's parser matched a packet"); }
};

}  // namespace

Switch::Switch(sc_core::sc_module_name name, const Config& cfg, const SwitchShape& shape)
    : sc_core::sc_module(name), cfg_(cfg) {
  validate_config(cfg_);
  if (!shape.links.empty() && shape.links.size() != cfg_.ports.count)
    throw std::logic_error("Switch: " + std::to_string(shape.links.size()) + " links for " +
                           std::to_string(cfg_.ports.count) + " ports");
  const Clock clock = Clock::from_ghz(cfg_.pspin.clock_ghz);
  if (cfg_.rtl.any()) rtl_ = std::make_unique<RtlContext>(cfg_.rtl.vcd);

  std::unique_ptr<IcrcCore> icrc;
  if (cfg_.parser.icrc == IcrcCheck::kCheck) {
    if (cfg_.rtl.crc32)
      icrc = std::make_unique<IcrcRtl>(*rtl_);
    else
      icrc = std::make_unique<IcrcEngineModel>(kIcrcEngineBytesPerCycle);
  }
  parser_ = std::make_unique<Parser>("parser", cfg_.parser, clock, drops, std::move(icrc));
  const FlowKey flow_key = parse_flow_key(cfg_.scheduler.flow_key);  // checked whatever the policy
  if (cfg_.scheduler.policy == SchedPolicy::kFlow) parser_->use_flow_key(flow_key);
  router_ = std::make_unique<Router>("router", cfg_.routing, cfg_.ports.count, clock, drops);
  // The control plane installs the handler sets the parser's rules name.
  if (shape.pspin) {
    pspin_ = std::make_unique<PspinUnit>("pspin", cfg_, parser_->handler_sets_used(), drops, rtl_.get(), router_.get());
  } else if (!parser_->handler_sets_used().empty()) {
    throw InputError(std::string(basename()) + " is a plain switch (no PsPIN unit), but its parser.rules name handler sets: '" +
                     cfg_.parser.rules + "'");
  }
  for (unsigned p = 0; p < cfg_.ports.count; ++p) {
    const LinkParams link = shape.links.empty() ? LinkParams::of(cfg_.ports) : shape.links[p];
    ingress_.push_back(std::make_unique<IngressPort>(("ingress" + std::to_string(p)).c_str(), p, link));
    egress_.push_back(std::make_unique<EgressPort>(("egress" + std::to_string(p)).c_str(), p, link, drops));
    ingress_[p]->out.bind(*parser_);
  }
  if (pspin_) {
    parser_->to_pspin.bind(pspin_->in);
  } else {
    no_unit_ = std::make_unique<NoUnit>();
    parser_->to_pspin.bind(*no_unit_);
  }
  SC_THREAD(replay);
  parser_->to_router.bind(*router_);
  parser_->learn.bind(*router_);
  router_->watch_queues(&egress_);
  router_->set_ecmp_seed(component_seed(cfg_.seed, sc_core::sc_module::name()));
  for (unsigned p = 0; p < cfg_.ports.count; ++p) {
    router_->egress.bind(*egress_[p]);
    if (pspin_) pspin_->command_unit().egress.bind(*egress_[p]);
  }
}

void Switch::start_of_simulation() {
  if (rtl_) rtl_->open();  // every Verilated block exists and traces by now
}

void Switch::load(const std::vector<PacketPtr>& packets) {
  std::vector<Arrival> arrivals;
  arrivals.reserve(packets.size());
  for (const PacketPtr& p : packets) arrivals.push_back(Arrival{p->arrival, p->id, uint32_t(p->data.size()), p->ingress_port});
  load(arrivals, [packets](size_t index) { return packets.at(index)->data; });
}

void Switch::load(const std::vector<Arrival>& arrivals, std::function<Bytes(size_t index)> frame) {
  std::vector<Picos> free_at(cfg_.ports.count, 0);
  replay_.clear();
  replay_.reserve(arrivals.size());
  for (size_t i = 0; i < arrivals.size(); ++i) {  // per port, in trace order
    const Arrival& a = arrivals[i];
    IngressPort& port = *ingress_.at(a.port);
    Picos start = a.time;
    if (start < free_at[a.port]) {
      start = free_at[a.port];
      ++port.late_starts;
    }
    const Picos received = start + port.wire_time_of(a.size);
    free_at[a.port] = received;
    replay_.push_back(Replay{start, received, a.id, i, a.size, a.port});
  }
  std::stable_sort(replay_.begin(), replay_.end(), [](const Replay& a, const Replay& b) {
    return a.received != b.received ? a.received < b.received : a.port < b.port;
  });
  frame_ = std::move(frame);
}

void Switch::replay() {
  for (const Replay& r : replay_) {
    if (r.received > now_ps()) wait(ps_time(r.received - now_ps()));
    auto p = std::make_shared<Packet>();
    p->id = r.id;
    p->data = frame_(r.index);
    if (p->data.size() != r.size) break;  // the frame could not be read
    p->ingress_port = r.port;
    p->arrival = r.start;  // the first bit enters the port
    p->received = r.received;
    ingress_[r.port]->deliver(std::move(p));
  }
  replay_.clear();
  replay_.shrink_to_fit();
  frame_ = nullptr;
}

void Switch::link(unsigned port, Switch& peer, unsigned peer_port) {
  egress_.at(port)->link(peer.ingress_.at(peer_port).get());
}

void Switch::on_departure(const DepartureHook& hook) {
  for (auto& e : egress_) e->on_departure(hook);
}

}  // namespace fs
