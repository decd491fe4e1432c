// Command execution (see command_unit.h).
#include "pspin/command_unit.h"

namespace fs {

CommandUnit::CommandUnit(sc_core::sc_module_name name, const CommandConfig& cfg, Clock clock)
    : sc_core::sc_module(name),
      stage_("stage", clock.cycles_ps(cfg.latency_cycles), [this](Issued c) { execute(std::move(c)); }) {}

void CommandUnit::execute(Issued c) {
  HandlerCommand& cmd = c.cmd;
  if (cmd.kind == HandlerCommand::kHostWrite) {
    ++host_writes;
    host_memory_writes[cmd.ports[0]].push_back(HostWrite{now_ps(), cmd.host_addr, std::move(cmd.data)});
    return;
  }
  ++(cmd.kind == HandlerCommand::kSend ? sends : multicasts);
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
