// The named channels of the PsPIN unit's netlist (pspin_unit.cpp): every interface by which a
// packet, a task or a finished run moves from one block to the next, and the backward paths by
// which completion frees what the run held. Each is a SystemC interface that the receiving block
// implements; the sender holds an sc_port of it, bound in the netlist.
//
//   packet buffer --PacketSinkIf--> packet scheduler --TaskSinkIf[c]--> cluster c
//   cluster scheduler --HpuStartIf[h]--> HPU h --RetireIf--> retire
//   HPU h (its commands, as it issues them) --CommandIf--> command unit --PacketSinkIf[port]--> egress
//   retire --CommandIf--> command unit              (the commands a run left: native runs)
//   retire --TimerIf--> timer unit --TaskSinkIf[c]--> cluster c   (a timer fires: its handler runs)
//   retire --BufferReleaseIf--> packet buffer        (backward: the feedback reached the NIC, the
//                                                     packet's L2 slot is free)
//   retire --TaskDoneIf--> packet scheduler          (backward: the cluster has one task less)
//   retire --HpuFreeIf[c]--> cluster c               (backward: the HPU takes the next task)
#pragma once
#include <systemc>

#include "common/units.h"
#include "pspin/hpu_engine.h"
#include "pspin/task.h"

namespace fs {

// A task the packet scheduler placed on a cluster.
struct TaskSinkIf : virtual sc_core::sc_interface {
  virtual void submit(Task t) = 0;
};

// A task the cluster scheduler hands to a free HPU; its packet copy completes at `copy_done`.
struct HpuStartIf : virtual sc_core::sc_interface {
  virtual void start(Task t, Picos copy_done) = 0;
};

// A handler run that ended: which HPU ran which task, what it did, when it began executing.
struct RetiredRun {
  unsigned cluster = 0, hpu = 0;
  Task task;
  HandlerRun run;
  Picos started = 0;
};
struct RetireIf : virtual sc_core::sc_interface {
  virtual void retire(RetiredRun r) = 0;
};

// The command path of the HPUs (PsPIN's command frontend per HPU and the command unit): the
// commands a handler issues (send, multicast, host write), with the packet it runs on.
struct CommandIf : virtual sc_core::sc_interface {
  // HPU `hpu` of cluster `cluster` issues `cmd` at `at` (now or later). It goes when the HPU has
  // a free command slot (command.per_hpu of its commands at most are not done) and is done
  // command.latency_cycles later. Returns when it went.
  virtual Picos issue(unsigned cluster, unsigned hpu, Picos at, HandlerCommand cmd, PacketPtr origin) = 0;
  // When the last command the HPU issued is done (0: it issued none).
  virtual Picos done_at(unsigned cluster, unsigned hpu) const = 0;
};

// Timer commands of a finished run (fs_timer_arm, fs_timer_cancel), for handler set `set`
// (an index into handler_sets()); `by_timer_run`: the run was itself a timer's.
struct TimerIf : virtual sc_core::sc_interface {
  virtual void arm(int set, uint32_t id, unsigned cluster, uint32_t delay_cycles, bool by_timer_run) = 0;
  virtual void cancel(int set, uint32_t id) = 0;
};

// Backward paths of a finished run. release() is called when the packet's feedback reaches the
// NIC (the retire block times it).
struct BufferReleaseIf : virtual sc_core::sc_interface {
  virtual void release(const Packet& p) = 0;
};
struct TaskDoneIf : virtual sc_core::sc_interface {
  virtual void done(unsigned cluster) = 0;
};
struct HpuFreeIf : virtual sc_core::sc_interface {
  virtual void hpu_free(unsigned hpu) = 0;
};

}  // namespace fs
