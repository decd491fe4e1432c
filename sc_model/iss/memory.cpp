// Region lookup for the ISS address space (see memory.h).
#include "iss/memory.h"

#include <algorithm>
#include <cstdio>
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

namespace {
std::string span(const MemRegion& r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " [0x%08x, 0x%08llx)", r.base, (unsigned long long)(uint64_t(r.base) + r.size));
  return r.name + buf;
}
}  // namespace

std::string AddressSpace::describe_miss(uint32_t addr, unsigned len, bool store) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                             [](uint32_t a, const MemRegion& r) { return a < r.base; });
  const MemRegion* below = it == regions_.begin() ? nullptr : &*(it - 1);
  const MemRegion* above = it == regions_.end() ? nullptr : &*it;
  if (below && addr - below->base < below->size) {
    if (len > below->size - (addr - below->base)) return "the access crosses the end of " + span(*below);
    if (store && !below->writable) return "in " + span(*below) + ", which is read-only";
    return "in " + span(*below);
  }
  // The nearer of the regions around the address, within 64 KiB; past the end wins a tie.
  constexpr uint64_t kNear = 64 * 1024;
  const uint64_t past = below ? uint64_t(addr) - (uint64_t(below->base) + below->size) : ~0ull;
  const uint64_t before = above ? uint64_t(above->base) - addr : ~0ull;
  if (past <= before && past < kNear) return std::to_string(past) + " bytes past the end of " + span(*below);
  if (before < kNear) return std::to_string(before) + " bytes before " + span(*above);
  return "in no region";
}

}  // namespace fs::iss
