// Region lookup for the ISS address space (see memory.h).
#include "iss/memory.h"

#include <algorithm>
#include <stdexcept>

namespace fs::iss {

void AddressSpace::add(MemRegion r) {
  if (r.size == 0 || uint64_t(r.base) + r.size > (uint64_t(1) << 32))
    throw std::invalid_argument("memory region '" + r.name + "' is empty or wraps past 2^32");
  for (const MemRegion& o : regions_)
    if (uint64_t(r.base) < uint64_t(o.base) + o.size && uint64_t(o.base) < uint64_t(r.base) + r.size)
      throw std::invalid_argument("memory region '" + r.name + "' overlaps '" + o.name + "'");
  // Keep the regions sorted by base: insert in place.
  auto at = std::upper_bound(regions_.begin(), regions_.end(), r.base,
                             [](uint32_t base, const MemRegion& o) { return base < o.base; });
  regions_.insert(at, std::move(r));
  last_ = prev_ = nullptr;
}

const MemRegion* AddressSpace::find_slow(uint32_t addr, uint32_t len) const {
  // Regions are sorted and disjoint: the only candidate is the last one starting at or below addr.
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                             [](uint32_t a, const MemRegion& r) { return a < r.base; });
  if (it == regions_.begin()) return nullptr;
  const MemRegion& r = *(it - 1);
  if (addr - r.base < r.size && len <= r.size - (addr - r.base)) {
    prev_ = last_;
    last_ = &r;
    return &r;
  }
  return nullptr;
}

}  // namespace fs::iss
