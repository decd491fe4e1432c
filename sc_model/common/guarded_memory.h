// A simulated memory's host bytes (an L1 state area, L2 handler memory, a packet slot, a stack):
// zero-filled and mapped with inaccessible guard pages on both sides, so that a native handler's
// access past either end traps on the host instead of silently landing in other memory
// (pspin/native_call.h turns the trap into a handler fault, as the ISS faults on such an access).
//
// Pages are whole, sizes are not: one edge of the bytes touches its guard page exactly, the other
// has the rest of its page as padding (less than a page; none when the size is a multiple of the
// page size). The start stays 16-byte aligned, as calloc's was, so with kEnd an area whose size is
// not a multiple of 16 has up to 15 bytes of padding after its end too. Padding reads as zero and
// takes stores without a trap, except in builds with AddressSanitizer (FS_SANITIZE=address,
// FLARESIM_SANITIZE), where it is poisoned and instrumented code touching it is reported.
// Mappings are made lazily by the OS, like calloc's zero pages: a large memory costs nothing until
// touched. Every live memory is registered by name, so that a host address can be told as
// "12 bytes past the end of cluster 1's L1 state area".
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace fs {

class GuardedMemory {
 public:
  // Which edge of the bytes touches its guard page exactly.
  enum class Exact { kEnd, kStart };
  // Bytes of each guard: accesses this far beyond an edge (and padding) trap.
  static constexpr size_t kGuardBytes = 64 * 1024;

  // `name` tells the memory in messages ("cluster 1's L1 state area"). Throws std::bad_alloc if
  // the mapping fails for want of memory, SimError (mapping_limit_reason) if for want of mappings.
  GuardedMemory(size_t size, Exact exact, std::string name);
  ~GuardedMemory();
  GuardedMemory(const GuardedMemory&) = delete;
  GuardedMemory& operator=(const GuardedMemory&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  uint8_t& operator[](size_t i) { return data_[i]; }
  uint8_t* begin() { return data_; }
  uint8_t* end() { return data_ + size_; }
  const std::string& name() const { return name_; }

 private:
  uint8_t* mapping_ = nullptr;  // guard, pages of the bytes (with their padding), guard
  size_t mapping_bytes_ = 0;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string name_;
};

// Why a mapping failed with errno `err` when the process has `maps` memory mappings and the system
// allows `limit` (vm.max_map_count): the reason, naming the limit and how to raise it, when the
// failure is the limit's (ENOMEM within 16 mappings of it), else "" (memory ran out).
std::string mapping_limit_reason(int err, long maps, long limit);

// Where host address `addr` lies among the live guarded memories, with its offset from the start:
// "12 bytes past the end of NAME (offset 4107 of its 4096 bytes)", "3 bytes before the start of
// NAME (offset -3 of its 9216 bytes)" (a guard or the padding), or "inside NAME (offset 5 of its
// 64 bytes)"; empty when it is in none of their mappings. Distances count as C's "one past the
// end" does: the first byte after the memory is 1 byte past its end, the last before it 1 before.
std::string describe_guarded_address(uintptr_t addr);

// Whether any byte of [p, p + len) lies in a guarded memory's guards or padding: memory no HPU
// addresses, next to memory it does.
bool reaches_guard(const void* p, size_t len);

}  // namespace fs
