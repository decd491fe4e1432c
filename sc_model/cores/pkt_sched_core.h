// The global packet scheduler's decision core, one clock cycle at a time: the interface that both
// the C++ model (PktSchedModel, here) and the Verilated RTL (rtl/pkt_sched.sv, driven by
// rtl_bridge/pkt_sched_rtl.*) implement, so that the SystemC PacketScheduler can use either and
// the two can be run in lockstep. The policies are described in rtl/pkt_sched.sv.
#pragma once
#include <cstdint>
#include <vector>

#include "rtl_params.h"

namespace fs {

// The policies, numbered as the RTL's cfg_policy input.
enum class PktSchedPolicy : uint8_t { kFcfs = 0, kHierFcfs = 1, kHomeCluster = 2, kFlow = 3 };

struct PktSchedConfig {
  unsigned clusters = 4;  // 1 .. 65535 (the RTL: 1 .. 64)
  PktSchedPolicy policy = PktSchedPolicy::kFcfs;
  unsigned subsets = 1;        // hier-fcfs: subsets of HPUs per cluster, 1 .. 255
  unsigned home_max = 0xFFFF;  // home-cluster, flow: most outstanding tasks per cluster, 1 .. kCountMax
};

// One cycle's inputs: at most one finished task and at most one packet to place.
struct PktSchedIn {
  bool done_valid = false;
  uint16_t done_cluster = 0;
  bool req_valid = false;
  uint32_t req_block = 0;  // the packet's block id; under flow, its flow hash
};

// req_ready: before the clock edge (the packet can be placed); grant_*: after it.
struct PktSchedOut {
  bool req_ready = false;
  bool grant_valid = false;
  uint16_t grant_cluster = 0, grant_subset = 0;
  bool operator==(const PktSchedOut& o) const {
    return req_ready == o.req_ready && grant_valid == o.grant_valid && grant_cluster == o.grant_cluster &&
           grant_subset == o.grant_subset;
  }
};

class PktSchedCore {
 public:
  static constexpr unsigned kMaxClusters = rtl_param::pkt_sched::MAX_CLUSTERS;  // what the RTL block supports
  static constexpr unsigned kCountMax = 0xFFFF;  // outstanding tasks a cluster can count
  virtual ~PktSchedCore() = default;
  // Synchronous reset with this configuration (one clock cycle).
  virtual void reset(const PktSchedConfig& cfg) = 0;
  // One clock cycle.
  virtual PktSchedOut tick(const PktSchedIn& in) = 0;
};

class PktSchedModel : public PktSchedCore {
 public:
  void reset(const PktSchedConfig& cfg) override;
  PktSchedOut tick(const PktSchedIn& in) override;

 private:
  // The cluster each policy picks for a packet of `block`, given the counts after this cycle's
  // finished task (hier-fcfs: also the subset).
  unsigned fcfs_pick(const std::vector<uint32_t>& counts) const;
  unsigned hier_pick(uint32_t block, unsigned* subset) const;
  unsigned home_pick(uint32_t block, const std::vector<uint32_t>& counts) const;
  // Outstanding tasks at which a cluster takes no more.
  uint32_t limit() const;

  PktSchedConfig cfg_;
  std::vector<uint32_t> outstanding_ = std::vector<uint32_t>(1, 0);
  unsigned next_ = 0;
  PktSchedOut out_;  // the registered outputs
};

}  // namespace fs
