// Closed-loop Flare allreduce hosts (hosts.model = allreduce): one host on each flare.ports port
// (rank = position in the list) sends its contributions at its port's line rate, in staggered
// order if asked, never with more than hosts.window blocks in flight (Flare 4.3) and never block
// b before block b - states is done (the two share a block state at the switch). A host sends a
// contribution again when its result is not back within hosts.timeout_ns; sends may be lost on
// the link (hosts.loss); after kMaxSendAttempts sends without a result it gives the block up.
// A host builds each packet as it sends it (the generator's frames, allreduce_gen.h), so memory
// does not grow with the data but for the expected results.
// Hosts receive what the switch's egress port sends them (results of their allreduce id); the
// run checks every result against the expected block. Random choices come from sim.seed.
#pragma once
#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "plugin/protocol.h"
#include "switch/switch.h"
#include "protocols/flare_dense/allreduce_gen.h"

namespace fs {

class AllreduceHosts : public sc_core::sc_module {
 public:
  AllreduceHosts(sc_core::sc_module_name name, const Config& cfg, Switch& sw);
  ~AllreduceHosts() override;

  // Every host got every block's result (whether right: verify_egress with expected()).
  bool complete_and_right() const;
  // What the hosts must receive: every block at every flare.ports port.
  std::shared_ptr<const Expected> expected() const { return expected_; }
  HostStats stats() const;
  std::string summary() const;

 private:
  class Host;
  // The block states the switch has for the hosts' allreduce (block b in state b mod states), as
  // the network manager would tell the hosts; 0 when the switch has no such allreduce.
  static unsigned block_states(const Config& cfg, Switch& sw);
  AllreduceGenOptions workload_;         // the generator's options for these hosts' data
  AllreduceShape shape_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::shared_ptr<Expected> expected_;   // blocks by block id
  Picos done_at_ = 0;                    // when the last host got its last result
};

}  // namespace fs
