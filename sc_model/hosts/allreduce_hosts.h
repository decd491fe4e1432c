// Closed-loop Flare allreduce hosts (hosts.model = allreduce): one host on each flare.ports port
// (rank = position in the list) sends its contributions at its port's line rate within a sliding
// window (Flare 4.3: block b only once blocks 0 .. b - hosts.window are done), in staggered order
// if asked, and sends a contribution again when its result is not back within hosts.timeout_ns;
// sends may be lost on the link (hosts.loss); after kMaxSendAttempts sends without a result a
// host gives the block up. Hosts receive what the switch's egress port sends them (results of
// their allreduce id slide the window); the run checks
// every result against the expected block. Random choices come from sim.seed.
#pragma once
#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/config.h"
#include "switch/switch.h"
#include "workload/allreduce_gen.h"

namespace fs {

class AllreduceHosts : public sc_core::sc_module {
 public:
  AllreduceHosts(sc_core::sc_module_name name, const Config& cfg, Switch& sw);
  ~AllreduceHosts() override;

  // Every host got every block's result (whether right: verify_egress with expected()).
  bool complete_and_right() const;
  // What the hosts must receive: every block at every flare.ports port.
  Expected expected() const { return expected_for_verify_; }
  nlohmann::json stats() const;
  std::string summary() const;

 private:
  class Host;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<ExpectedBlock> expected_;  // by block id
  Expected expected_for_verify_;
  Picos done_at_ = 0;                    // when the last host got its last result
};

}  // namespace fs
