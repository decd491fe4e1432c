// A cluster's L1 layout and memory (see l1_memory.h).
#include "pspin/memory/l1_memory.h"

#include <string>

#include "common/errors.h"

namespace fs {

L1Layout::L1Layout(const PspinConfig& pspin, const HpuConfig& hpu)
    : hpus_(pspin.hpus_per_cluster), stack_bytes_(hpu.stack_bytes) {
  const uint64_t slots = uint64_t(hpus_) * kL1PacketSlotBytes;
  if (pspin.l1_bytes <= slots)
    throw InputError("'pspin.l1_bytes' = " + std::to_string(pspin.l1_bytes) + " leaves no L1 state area after " +
                     std::to_string(hpus_) + " HPU packet slots of " + std::to_string(kL1PacketSlotBytes) + " bytes");
  state_bytes_ = uint32_t(pspin.l1_bytes - slots);
}

ClusterL1::ClusterL1(const L1Layout& layout, unsigned banks, unsigned cluster)
    : banks_(banks ? std::make_unique<iss::TcdmBanks>(banks) : nullptr) {
  for (unsigned h = 0; h < layout.hpus(); ++h) {
    const std::string hpu = "HPU " + std::to_string(h) + " of cluster " + std::to_string(cluster) + "'s ";
    slots_.push_back(
        std::make_unique<GuardedMemory>(kL1PacketSlotBytes, GuardedMemory::Exact::kStart, hpu + "packet slot"));
    stacks_.push_back(std::make_unique<GuardedMemory>(layout.stack_bytes(), GuardedMemory::Exact::kEnd, hpu + "stack"));
  }
}

}  // namespace fs
