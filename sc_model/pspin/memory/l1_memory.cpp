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

ClusterL1::ClusterL1(const L1Layout& layout, unsigned banks)
    : state_(layout.state_bytes()),
      slots_(size_t(layout.hpus()) * kL1PacketSlotBytes),
      stacks_(size_t(layout.hpus()) * layout.stack_bytes()),
      stack_bytes_(layout.stack_bytes()),
      banks_(banks ? std::make_unique<iss::TcdmBanks>(banks) : nullptr) {}

}  // namespace fs
