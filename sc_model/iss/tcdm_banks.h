// The banks of a cluster's L1 TCDM (word-interleaved). When two HPUs touch the same bank in the
// same cycle, the later one waits a cycle. Meaningful only while the cluster's HPUs execute in
// simulated-time order (hpu.interleave = on), which is when the ISS engine uses it.
#pragma once
#include <cstdint>
#include <vector>

namespace fs::iss {

class TcdmBanks {
 public:
  explicit TcdmBanks(uint32_t banks) : last_cycle_(banks, ~0ull), last_hart_(banks, ~0u) {}

  // An access by `hart` at absolute cycle `cycle` to TCDM byte offset `offset`; returns the
  // stall cycles (1 if another hart used the bank in that very cycle, else 0) and records it.
  uint32_t access(uint32_t hart, uint64_t cycle, uint32_t offset) {
    const size_t bank = (offset >> 2) % last_cycle_.size();
    uint32_t stall = 0;
    if (last_cycle_[bank] == cycle && last_hart_[bank] != hart) {
      stall = 1;
      ++conflicts;
    }
    last_cycle_[bank] = cycle + stall;
    last_hart_[bank] = hart;
    return stall;
  }

  uint64_t conflicts = 0;

 private:
  std::vector<uint64_t> last_cycle_;
  std::vector<uint32_t> last_hart_;
};

}  // namespace fs::iss
