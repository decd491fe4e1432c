// The address space an ISS core sees: a sorted set of regions, each a host buffer with a base
// address, permissions and the extra cycles an access to it costs (0 for single-cycle memory).
// Accesses outside every region are access faults. Plain C++, no SystemC.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fs::iss {

class TcdmBanks;

// A memory-mapped device: loads and stores to its region call it instead of touching memory.
class MmioDevice {
 public:
  enum class Result { kOk, kFault, kHalt };  // kHalt: the access completes, then the core stops
  virtual ~MmioDevice() = default;
  // `extra_cycles`: how long the access takes beyond its own cost and its region's (e.g. a DMA
  // copy it carries out, or a wait for room to issue a command).
  virtual Result read(uint32_t offset, unsigned size, uint32_t& value, uint32_t& extra_cycles) = 0;
  virtual Result write(uint32_t offset, unsigned size, uint32_t value, uint32_t& extra_cycles) = 0;
  // True if this access acts on the rest of the switch (a DMA start, say), so that an interleaved
  // core must not make it ahead of the time the caller allows (Cpu::run's switch gate).
  virtual bool reaches_switch(uint32_t /*offset*/, bool /*store*/) const { return false; }
  // True if this access acts on anything outside the core's own device state (its cluster's
  // other cores, other clusters, the switch), so that a core stepped apart from the other
  // clusters must stop before it (Gates::isolated). Includes every access that reaches_switch.
  virtual bool calls_out(uint32_t offset, bool store) const { return reaches_switch(offset, store); }
};

// Who else can access a region: nobody (stack, packet slot, program), the other cores of the
// core's cluster (its own L1 state area), or cores anywhere (another cluster's L1, L2 memory).
// Interleaved cores order their accesses to shared regions (Cpu::run's gates).
enum Sharing : uint8_t { kPrivate = 0, kClusterShared, kGlobalShared };

// What statistics count an access to a region as.
enum AccessClass : uint8_t { kOtherAccess = 0, kLocalL1Access, kRemoteL1Access, kL2Access, kAccessClasses };

struct MemRegion {
  uint32_t base = 0;
  uint32_t size = 0;
  uint8_t* host = nullptr;
  bool writable = true;
  bool executable = false;
  uint32_t extra_cycles = 0;  // added to every access's cost
  std::string name;           // for messages ("L1", "stack", "ELF segment 0")
  MmioDevice* mmio = nullptr; // set: a device region (host unused); only plain loads/stores reach it
  AccessClass access_class = kOtherAccess;
  class TcdmBanks* banks = nullptr;  // set: accesses go through these banks (L1 TCDM)
  uint32_t bank_offset = 0;          // where this region starts in the TCDM, for bank selection
  Sharing sharing = kPrivate;
  bool lrsc = true;  // lr.w and sc.w work here (false: they fault, as on PsPIN's L1 TCDM)
};

class AddressSpace {
 public:
  // Adds a region; throws std::invalid_argument if it overlaps another of this space's own or
  // wraps past 2^32.
  void add(MemRegion r);
  // Regions many address spaces have in common (every HPU of a switch sees the same L2 and the
  // same L1 of every cluster), kept once: looked up after this space's own regions, which
  // shadow them where they overlap (an HPU's own cluster's L1, local to it).
  // Throws std::invalid_argument if an own region overlaps a shared one only in part.
  void share(std::shared_ptr<const AddressSpace> shared);
  // The region holding [addr, addr + len), or nullptr.
  // Remembers the two regions used last: handler loops alternate between two (packet, state).
  const MemRegion* find(uint32_t addr, uint32_t len) const {
    if (last_ && addr - last_->base < last_->size && len <= last_->size - (addr - last_->base)) return last_;
    if (prev_ && addr - prev_->base < prev_->size && len <= prev_->size - (addr - prev_->base)) {
      std::swap(last_, prev_);
      return last_;
    }
    return find_slow(addr, len);
  }
  // This space's own regions (not the shared ones), sorted by base.
  const std::vector<MemRegion>& regions() const { return regions_; }
  // The address of host byte `host` in this space (own regions first, then shared), 0 if none.
  uint32_t guest_address(const uint8_t* host) const;
  // Why an access of `len` bytes at `addr` faulted, in terms of the regions (for fault messages):
  // "N bytes past the end of R [base, end)", "N bytes before R", "crosses the end of R",
  // "in R, which is read-only", or "in no region" when none is near.
  std::string describe_miss(uint32_t addr, unsigned len, bool store) const;

 private:
  const MemRegion* find_slow(uint32_t addr, uint32_t len) const;
  // The own region holding addr (whether or not len fits), or nullptr; no memo.
  const MemRegion* containing(uint32_t addr) const;
  void check_shadow(const MemRegion& r) const;
  static bool fits(const MemRegion& r, uint32_t addr, uint32_t len) {
    return addr - r.base < r.size && len <= r.size - (addr - r.base);
  }
  std::vector<MemRegion> regions_;
  std::shared_ptr<const AddressSpace> shared_;
  mutable const MemRegion* last_ = nullptr;
  mutable const MemRegion* prev_ = nullptr;
};

}  // namespace fs::iss
