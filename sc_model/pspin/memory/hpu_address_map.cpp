// The HPU memory map's data regions (see hpu_address_map.h).
#include "pspin/memory/hpu_address_map.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/errors.h"
#include "fs_memory_map.h"

namespace fs {

namespace {

// A region of L1: PsPIN's TCDM executes AMOs but has no LR/SC (docs/ISS.md, "Timing").
iss::MemRegion l1(uint32_t base, const MemRange& r, uint32_t extra, std::string name, iss::AccessClass access,
                  iss::Sharing sharing) {
  return iss::MemRegion{base, r.size, r.host, true, false, extra, std::move(name), nullptr, access, r.banks,
                        r.tcdm_offset, sharing, /*lrsc=*/false};
}

// A handler set that takes no memory (its configuration uses it for nothing) has no L1 or L2
// range: no region either, so that an access there faults as any unmapped one does.
std::vector<iss::MemRegion> without_empty(std::vector<iss::MemRegion> map) {
  map.erase(std::remove_if(map.begin(), map.end(), [](const iss::MemRegion& r) { return r.size == 0; }), map.end());
  return map;
}

}  // namespace

std::vector<iss::MemRegion> hpu_address_map(const HpuMemoryView& view) {
  std::vector<iss::MemRegion> map;
  // Private to the HPU.
  map.push_back(l1(FS_PKT_SLOT_BASE, view.pkt_slot, 0, "L1 packet slot", iss::kLocalL1Access, iss::kPrivate));
  map.push_back(l1(FS_STACK_BASE, view.stack, 0, "stack", iss::kLocalL1Access, iss::kPrivate));
  // Its cluster's L1, shared with the cluster's HPUs (interleaved runs order their accesses to
  // it), at its local alias and at its global address (where it shadows the shared map's entry).
  map.push_back(l1(FS_L1_LOCAL_BASE, view.local_l1(), 0, "L1 (local)", iss::kLocalL1Access, iss::kClusterShared));
  map.push_back(l1(FS_L1_GLOBAL_BASE + view.cluster * FS_L1_GLOBAL_STRIDE, view.local_l1(), 0,
                   "L1 of cluster " + std::to_string(view.cluster), iss::kLocalL1Access, iss::kClusterShared));
  return without_empty(std::move(map));
}

std::vector<iss::MemRegion> shared_address_map(const HpuMemoryView& view, const MemoryCosts& costs) {
  std::vector<iss::MemRegion> map;
  map.push_back(iss::MemRegion{FS_L2_HANDLER_BASE, view.l2_handler.size, view.l2_handler.host, true, false,
                               costs.l2_cycles, "L2 handler memory", nullptr, iss::kL2Access, nullptr, 0,
                               iss::kGlobalShared});
  for (uint32_t k = 0; k < view.set_l1.size(); ++k)
    map.push_back(l1(FS_L1_GLOBAL_BASE + k * FS_L1_GLOBAL_STRIDE, view.set_l1[k], costs.remote_l1_cycles,
                     "L1 of cluster " + std::to_string(k), iss::kRemoteL1Access, iss::kGlobalShared));
  return without_empty(std::move(map));
}

uint32_t guest_address(const HpuMemoryView& view, const uint8_t* host) {
  if (!host) return 0;
  const struct {
    uint32_t base;
    const MemRange& range;
  } regions[] = {{FS_PKT_SLOT_BASE, view.pkt_slot},
                 {FS_STACK_BASE, view.stack},
                 {FS_L1_LOCAL_BASE, view.local_l1()},
                 {FS_L2_HANDLER_BASE, view.l2_handler}};
  const auto at = reinterpret_cast<uintptr_t>(host);
  for (const auto& r : regions) {
    const auto begin = reinterpret_cast<uintptr_t>(r.range.host);
    if (r.range.host && at >= begin && at - begin <= r.range.size) return r.base + uint32_t(at - begin);
  }
  throw std::logic_error("guest_address: a pointer outside HPU " + std::to_string(view.hpu) + " of cluster " +
                         std::to_string(view.cluster) + "'s memory");
}

void check_fits_address_map(const PspinConfig& pspin, const L1Layout& l1) {
  if (l1.state_bytes() > FS_L1_GLOBAL_STRIDE)
    throw InputError("hpu.model = iss maps each cluster's L1 state area into " +
                     std::to_string(FS_L1_GLOBAL_STRIDE >> 20) + " MiB; 'pspin.l1_bytes' is too large");
  if (pspin.clusters > FS_MAX_CLUSTERS)
    throw InputError("hpu.model = iss supports at most " + std::to_string(FS_MAX_CLUSTERS) + " clusters ('pspin.clusters')");
  if (pspin.l2_handler_bytes > FS_PROGRAM_BASE - FS_L2_HANDLER_BASE)
    throw InputError("hpu.model = iss maps L2 handler memory into 16 MiB; 'pspin.l2_handler_bytes' is too large");
}

}  // namespace fs
