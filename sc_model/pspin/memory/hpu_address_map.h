// An HPU's memory view (pspin_memory.h) as the RISC-V handler addresses it, in the memory map of
// firmware/fs_memory_map.h, in two parts: the HPU's own regions (the packet slot, the stack, and
// the set's range of its own cluster's L1 at the local alias and at its global address), and the
// regions every HPU of the set shares (the set's L2 handler memory, and its range of every
// cluster's L1 at their global addresses, as another cluster sees them), which the ISS engine
// builds once and shares (iss::AddressSpace::share), so that a context's cost does not grow with
// the cluster count. Each region has its access class, sharing, extra cycles and TCDM banks (an
// empty range: no region). Also where a host pointer into them lies in that map (the handler's
// arguments). The ISS engine adds its program memory and runtime registers to these.
#pragma once
#include <vector>

#include "iss/memory.h"
#include "pspin/memory/pspin_memory.h"

namespace fs {

// What an access costs beyond the instruction's own timing (hpu.remote_l1_cycles, hpu.l2_cycles).
struct MemoryCosts {
  uint32_t remote_l1_cycles = 0, l2_cycles = 0;
};

// (Own regions cost nothing extra; the shared ones cost `costs`.)
std::vector<iss::MemRegion> hpu_address_map(const HpuMemoryView& view);
std::vector<iss::MemRegion> shared_address_map(const HpuMemoryView& view, const MemoryCosts& costs);

// The RISC-V address of host byte `host` of the view's packet slot, stack, local L1 range or L2
// handler memory (one past a range's end included); 0 for nullptr. Throws std::logic_error for
// any other pointer (a handler argument the simulator made wrong).
uint32_t guest_address(const HpuMemoryView& view, const uint8_t* host);

// Throws InputError naming the key if the unit's memories do not fit the memory map's windows
// (FS_L1_GLOBAL_STRIDE per cluster's L1 state area, 16 MiB for L2 handler memory, FS_MAX_CLUSTERS
// clusters).
void check_fits_address_map(const PspinConfig& pspin, const L1Layout& l1);

}  // namespace fs
