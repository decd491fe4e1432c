// The cluster scheduler's decision core, one clock cycle at a time: the interface that both the
// C++ model (ClusterSchedModel, here) and the Verilated RTL (rtl/cluster_sched.sv, driven by
// rtl_bridge/cluster_sched_rtl.*) implement, so that the SystemC Cluster can use either and the
// two can be run in lockstep. The behaviour is described in rtl/cluster_sched.sv.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "rtl_params.h"

namespace fs {

struct ClusterSchedConfig {
  unsigned hpus = 8;         // HPUs in the cluster (the RTL: 1 .. 16)
  unsigned subset_size = 8;  // HPUs per subset (hier-fcfs S; fcfs: all of them); divides hpus
  unsigned depth = 1024;     // tasks a subset's FIFO holds (the RTL: 1 .. 1024)
};

// One cycle's inputs: at most one new task and at most one HPU that finished.
struct ClusterSchedIn {
  bool push_valid = false;
  uint16_t push_subset = 0;
  uint16_t push_tag = 0;  // the caller's name for the task
  bool free_valid = false;
  uint16_t free_hpu = 0;
};

// push_ready: before the clock edge (the task is taken); disp_*, busy: after it.
struct ClusterSchedOut {
  bool push_ready = false;
  bool disp_valid = false;
  uint16_t disp_hpu = 0;
  uint16_t disp_tag = 0;
  uint32_t busy = 0;  // bit h: HPU h runs a task (the first 32 HPUs)
  bool operator==(const ClusterSchedOut& o) const {
    return push_ready == o.push_ready && disp_valid == o.disp_valid && disp_hpu == o.disp_hpu &&
           disp_tag == o.disp_tag && busy == o.busy;
  }
};

class ClusterSchedCore {
 public:
  static constexpr unsigned kMaxHpus = rtl_param::cluster_sched::MAX_HPUS;  // what the RTL block supports
  static constexpr unsigned kMaxDepth = rtl_param::cluster_sched::DEPTH;
  virtual ~ClusterSchedCore() = default;
  // Synchronous reset with this configuration (one clock cycle).
  virtual void reset(const ClusterSchedConfig& cfg) = 0;
  // One clock cycle.
  virtual ClusterSchedOut tick(const ClusterSchedIn& in) = 0;
};

class ClusterSchedModel : public ClusterSchedCore {
 public:
  void reset(const ClusterSchedConfig& cfg) override;
  ClusterSchedOut tick(const ClusterSchedIn& in) override;

 private:
  ClusterSchedConfig cfg_;
  unsigned subsets_ = 1;
  std::vector<std::deque<uint16_t>> fifos_;
  std::vector<bool> busy_;
  ClusterSchedOut out_;  // the registered outputs
};

}  // namespace fs
