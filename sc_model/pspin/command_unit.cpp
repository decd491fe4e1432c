// The command path (see command_unit.h).
#include "pspin/command_unit.h"

#include <algorithm>

#include "common/errors.h"

namespace fs {

CommandUnit::CommandUnit(sc_core::sc_module_name name, const CommandConfig& cfg, Clock clock,
                         std::unique_ptr<IcrcCore> icrc)
    : sc_core::sc_module(name),
      icrc_(std::move(icrc)),
      cycle_ps_(clock.cycles_ps(1)),
      latency_(clock.cycles_ps(cfg.latency_cycles)),
      per_hpu_(cfg.per_hpu),
      done_("done", [this](Issued c) { execute(std::move(c)); }),
      stamped_("stamped", [this](Issued c) { send(std::move(c)); }) {}

Picos CommandUnit::issue(unsigned cluster, unsigned hpu, Picos at, HandlerCommand cmd, PacketPtr origin) {
  std::deque<Picos>& held = slots_[{cluster, hpu}];
  while (!held.empty() && held.front() <= at) held.pop_front();  // done by now: their slots are free
  Picos went = at;
  if (held.size() >= per_hpu_) {  // every slot held: wait for the oldest command
    went = held.front();
    held.pop_front();
  }
  held.push_back(went + latency_);
  done_.push_at(Issued{std::move(cmd), std::move(origin)}, went + latency_);
  return went;
}

Picos CommandUnit::done_at(unsigned cluster, unsigned hpu) const {
  const auto it = slots_.find({cluster, hpu});
  return it == slots_.end() || it->second.empty() ? 0 : it->second.back();
}

void CommandUnit::execute(Issued c) {
  HandlerCommand& cmd = c.cmd;
  if (cmd.kind == HandlerCommand::kHostWrite) {
    ++host_writes;
    host_memory_writes[cmd.ports[0]].push_back(HostWrite{now_ps(), cmd.host_addr, std::move(cmd.data)});
    return;
  }
  ++(cmd.kind == HandlerCommand::kSend ? sends : multicasts);
  if (icrc_ && addressed_as_roce(cmd.data.data(), cmd.data.size())) {
    uint64_t cycles = 0;
    uint32_t icrc = 0;
    try {
      icrc = icrc_of_frame(*icrc_, cmd.data.data(), cmd.data.size(), &cycles);
    } catch (const InputError&) {  // no room for BTH and ICRC, a fragment, ...: sent as it is
      return send(std::move(c));
    }
    for (unsigned b = 0; b < kIcrcBytes; ++b) cmd.data[cmd.data.size() - kIcrcBytes + b] = uint8_t(icrc >> (8 * b));
    ++icrc_stamped;
    icrc_engine_cycles += cycles;
    const Picos now = now_ps();
    Picos& free = engine_free_[cmd.ports.empty() ? 0 : cmd.ports[0]];  // a multicast: its first port's
    free = std::max(free, now) + cycles * cycle_ps_;
    icrc_wait_ps += free - now;
    return stamped_.push_at(std::move(c), free);
  }
  send(std::move(c));
}

void CommandUnit::send(Issued c) {
  const HandlerCommand& cmd = c.cmd;
  for (uint32_t port : cmd.ports) {
    auto p = std::make_shared<Packet>();
    p->id = next_id_++;
    p->data = cmd.data;
    p->ingress_port = c.origin->ingress_port;
    p->arrival = c.origin->arrival;
    p->received = c.origin->received;
    ++frames_out;
    egress[port]->accept(std::move(p));
  }
}

}  // namespace fs
