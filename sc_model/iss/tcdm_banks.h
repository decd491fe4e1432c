// The banks of a cluster's L1 TCDM (word-interleaved). When two HPUs touch the same bank in the
// same cycle, the later one waits a cycle; an AMO holds its bank a cycle more, for its write
// (PsPIN's amo_shim), and anyone's access in that cycle waits. Each bank remembers only its last
// access, so it is exact while accesses arrive in time order (interleaved HPUs with
// hpu.sync_cycles = 1); within a larger sync window an access that arrives after a later one may
// miss a conflict. (Keeping a history of cycles per bank finds those too, but its footprint cost
// a third of the speed.)
#pragma once
#include <cstdint>
#include <vector>

namespace fs::iss {

class TcdmBanks {
 public:
  explicit TcdmBanks(uint32_t banks)
      : last_cycle_(banks, ~0ull), held_(banks, ~0ull), last_hart_(banks, ~0u),
        mask_(banks && (banks & (banks - 1)) == 0 ? banks - 1 : 0) {}

  // An access by `hart` at absolute cycle `cycle` to TCDM byte offset `offset` (`amo`: an atomic
  // read-modify-write); returns the stall cycles (a cycle if another hart used the bank in that
  // very cycle, and one more if an AMO holds it then) and records it.
  uint32_t access(uint32_t hart, uint64_t cycle, uint32_t offset, bool amo = false) {
    const size_t bank = mask_ ? (offset >> 2) & mask_ : (offset >> 2) % last_cycle_.size();  // (no division: banks are 2^k)
    uint64_t at = cycle;
    if (last_cycle_[bank] == at && last_hart_[bank] != hart) ++at;
    if (held_[bank] == at) ++at;
    if (at != cycle) ++conflicts;
    last_cycle_[bank] = at;
    last_hart_[bank] = hart;
    if (amo) held_[bank] = at + 1;
    return uint32_t(at - cycle);
  }

  uint64_t conflicts = 0;

 private:
  std::vector<uint64_t> last_cycle_, held_;
  std::vector<uint32_t> last_hart_;
  uint32_t mask_;  // banks - 1 for a power of two, else 0
};

}  // namespace fs::iss
