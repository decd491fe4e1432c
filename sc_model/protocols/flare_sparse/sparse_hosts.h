// Closed-loop Flare sparse allreduce hosts (hosts.model = sparse_allreduce): one host on each
// flare_sparse.ports port (rank = position in the list) sends its sparse vector (the workload of
// sparse_workload.h) block by block, a block's packets back to back at its port's line rate, in
// staggered order if asked, never with more than hosts.window blocks in flight and never block b
// before block b - T is done (T = the allreduce's block states at the switch: they share one).
// A host is done with a block when it has the block's last result packet and every result packet
// it announces (spills included); a block whose result is not complete hosts.timeout_ns after its
// last packet left is sent again, all of its packets; packets may be lost on the link
// (hosts.loss); after kMaxSendAttempts sends it gives the block up. The run then checks what the
// hosts got against the reference (sparse_verify.h). Random choices come from sim.seed.
#pragma once
#include <memory>
#include <vector>

#include "config/config.h"
#include "plugin/protocol.h"
#include "protocols/flare_sparse/sparse_verify.h"
#include "switch/switch.h"

namespace fs {

class SparseHosts : public sc_core::sc_module {
 public:
  SparseHosts(sc_core::sc_module_name name, const Config& cfg, Switch& sw);
  ~SparseHosts() override;

  // What the hosts must receive: every block's result at every flare_sparse.ports port.
  const SparseExpected& expected() const { return expected_; }
  // The stats' hosts section; `details` has the traffic (docs/STATS.md).
  HostStats stats() const;
  std::string summary() const;

 private:
  class Host;
  // The block states the switch has for the hosts' allreduce (block b in state b mod T), as the
  // network manager would tell the hosts; 0 when the switch has no such sparse allreduce.
  static unsigned block_states(const Config& cfg, Switch& sw);
  std::vector<std::unique_ptr<Host>> hosts_;
  SparseExpected expected_;
  uint64_t vector_bytes_ = 0;  // dense bytes of each host's vector (hosts.bytes)
  Picos done_at_ = 0;          // when the last host was done with its last block
};

}  // namespace fs
