// A cluster's L1 TCDM: its layout and the memory behind it. The layout, in TCDM byte offsets (the
// bank a word falls in is its offset / 4 mod pspin.l1_banks): the handler sets' state area first
// (every installed set has its range of it, handler_memory.h), then one packet slot per HPU (the
// cluster DMA copies each task's packet there), then one stack per HPU (hpu.stack_bytes; the ISS
// HPUs' stacks, numbered past pspin.l1_bytes: the state area is not reduced by them). The banks
// exist when HPUs execute in time order (ISS HPUs interleaved), the only case in which two of
// them can meet on a bank. On the host each HPU's slot and stack is a guarded memory of its own
// (common/guarded_memory.h): a slot's start touches its guard page, so that an access before
// the packet traps at once (its 3072 bytes of page padding are after the slot's end); the state
// area's ranges belong to the handler sets (pspin_memory.h), which get them when installed.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "common/guarded_memory.h"
#include "config/config.h"
#include "fs_handler.h"
#include "iss/tcdm_banks.h"

namespace fs {

// Bytes of an HPU's L1 packet slot (jumbo frames).
constexpr uint32_t kL1PacketSlotBytes = 9216;
// The largest frame a handler can be given: what the slot holds from FS_PKT_FRAME_OFFSET on, where
// frames start so that their IPv4 header is word-aligned (pspin_memory.h, place_packet).
constexpr uint32_t kMaxSlotFrameBytes = kL1PacketSlotBytes - FS_PKT_FRAME_OFFSET;

class L1Layout {
 public:
  // Throws InputError when pspin.l1_bytes leaves no state area after the packet slots.
  L1Layout(const PspinConfig& pspin, const HpuConfig& hpu);
  uint32_t state_bytes() const { return state_bytes_; }
  unsigned hpus() const { return hpus_; }
  uint32_t stack_bytes() const { return stack_bytes_; }
  uint32_t slot_offset(unsigned hpu) const { return state_bytes_ + hpu * kL1PacketSlotBytes; }
  uint32_t stack_offset(unsigned hpu) const { return slot_offset(hpus_) + hpu * stack_bytes_; }

 private:
  uint32_t state_bytes_;
  unsigned hpus_;
  uint32_t stack_bytes_;
};

class ClusterL1 {
 public:
  // Cluster `cluster`'s (for the memories' names); banks: 0 for none (accesses never conflict).
  ClusterL1(const L1Layout& layout, unsigned banks, unsigned cluster);
  uint8_t* slot(unsigned hpu) { return slots_.at(hpu)->data(); }
  uint8_t* stack(unsigned hpu) { return stacks_.at(hpu)->data(); }
  iss::TcdmBanks* banks() { return banks_.get(); }

 private:
  std::vector<std::unique_ptr<GuardedMemory>> slots_, stacks_;  // by HPU
  std::unique_ptr<iss::TcdmBanks> banks_;
};

}  // namespace fs
