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
  if (shared_) check_shadow(r);
  // Keep the regions sorted by base: insert in place.
  auto at = std::upper_bound(regions_.begin(), regions_.end(), r.base,
                             [](uint32_t base, const MemRegion& o) { return base < o.base; });
  regions_.insert(at, std::move(r));
  last_ = prev_ = nullptr;
}

void AddressSpace::share(std::shared_ptr<const AddressSpace> shared) {
  shared_ = std::move(shared);
  last_ = prev_ = nullptr;
  if (shared_)
    for (const MemRegion& r : regions_) check_shadow(r);
}

// An own region may shadow shared ones only whole: the same extent, or none of theirs. (Then
// the last regions found, which find() tries first, can never be a shadowed one.)
void AddressSpace::check_shadow(const MemRegion& r) const {
  const std::vector<MemRegion>& all = shared_->regions_;
  auto it = std::upper_bound(all.begin(), all.end(), r.base, [](uint32_t a, const MemRegion& o) { return a < o.base; });
  if (it != all.begin()) --it;  // the one starting at or below r's base may reach into r
  for (; it != all.end() && it->base < uint64_t(r.base) + r.size; ++it)
    if (r.base < uint64_t(it->base) + it->size && (r.base != it->base || r.size != it->size))
      throw std::invalid_argument("memory region '" + r.name + "' partly overlaps shared region '" + it->name + "'");
}

const MemRegion* AddressSpace::containing(uint32_t addr) const {
  // Regions are sorted and disjoint: the only candidate is the last one starting at or below addr.
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                             [](uint32_t a, const MemRegion& r) { return a < r.base; });
  if (it == regions_.begin()) return nullptr;
  const MemRegion& r = *(it - 1);
  return addr - r.base < r.size ? &r : nullptr;
}

const MemRegion* AddressSpace::find_slow(uint32_t addr, uint32_t len) const {
  const MemRegion* r = containing(addr);
  if (!r && shared_) r = shared_->containing(addr);  // own regions shadow shared ones
  if (!r || !fits(*r, addr, len)) return nullptr;
  prev_ = last_;
  last_ = r;
  return r;
}

uint32_t AddressSpace::guest_address(const uint8_t* host) const {
  for (const MemRegion& r : regions_)
    if (r.host && host >= r.host && host < r.host + r.size) return r.base + uint32_t(host - r.host);
  return shared_ ? shared_->guest_address(host) : 0;
}

namespace {
std::string span(const MemRegion& r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " [0x%08x, 0x%08llx)", r.base, (unsigned long long)(uint64_t(r.base) + r.size));
  return r.name + buf;
}
}  // namespace

std::string AddressSpace::describe_miss(uint32_t addr, unsigned len, bool store) const {
  // The regions around the address, own or shared (own ones shadow shared ones).
  const MemRegion *below = nullptr, *above = nullptr;
  for (const AddressSpace* space = this; space; space = space->shared_.get()) {
    auto it = std::upper_bound(space->regions_.begin(), space->regions_.end(), addr,
                               [](uint32_t a, const MemRegion& r) { return a < r.base; });
    if (it != space->regions_.begin() && (!below || (it - 1)->base > below->base)) below = &*(it - 1);
    if (it != space->regions_.end() && (!above || it->base < above->base)) above = &*it;
    if (below && addr - below->base < below->size) break;
  }
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
