// Layout of the installed handler sets' memory (see handler_memory.h).
#include "pspin/memory/handler_memory.h"

#include "common/errors.h"

namespace fs {
namespace {

constexpr uint64_t kAlign = 64;

uint64_t align_up(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// Offsets and sizes in one memory of `total` bytes for the sizes asked (0 = share; a set that
// needs none gets nothing).
std::vector<std::pair<uint64_t, uint64_t>> lay_out(const std::vector<std::string>& names,
                                                   const std::vector<uint64_t>& asked, const std::vector<bool>& none,
                                                   uint64_t total, const std::string& memory) {
  std::vector<std::pair<uint64_t, uint64_t>> out(asked.size());
  uint64_t offset = 0;
  std::string listing;
  size_t sharing = 0;
  for (size_t i = 0; i < asked.size(); ++i) {
    if (none[i]) continue;
    if (!asked[i]) {
      ++sharing;
      continue;
    }
    listing += (listing.empty() ? "" : ", ") + names[i] + " " + std::to_string(asked[i]);
    out[i] = {offset, asked[i]};
    offset = align_up(offset + asked[i]);
  }
  if (offset > total || (sharing && offset >= total))
    throw InputError("the handler sets ask for " + std::to_string(offset) + " bytes of " + memory + ", which has " +
                     std::to_string(total) + " (" + listing + ", at 64-byte aligned offsets" +
                     (sharing ? ", and room for the sets that share the rest" : "") + ")");
  for (size_t i = 0, left = sharing; i < asked.size(); ++i) {
    if (asked[i] || none[i]) continue;
    const uint64_t share = --left ? (total - offset) / (left + 1) / kAlign * kAlign : total - offset;
    if (!share)
      throw InputError("handler set " + names[i] + " gets none of " + memory + ": " + std::to_string(total - offset) +
                       " bytes are left for " + std::to_string(left + 1) + " sets");
    out[i] = {offset, share};
    offset += share;
  }
  return out;
}

}  // namespace

std::vector<HandlerSetMemory> lay_out_handler_memory(const std::vector<std::string>& names,
                                                     const std::vector<MemoryNeed>& needs, uint64_t l1_total,
                                                     uint64_t l2_total) {
  std::vector<uint64_t> l1, l2;
  std::vector<bool> none;
  for (const MemoryNeed& n : needs) l1.push_back(n.l1_bytes), l2.push_back(n.l2_bytes), none.push_back(n.none);
  const auto a = lay_out(names, l1, none, l1_total, "each cluster's L1 state area ('pspin.l1_bytes' less the HPUs' packet slots)");
  const auto b = lay_out(names, l2, none, l2_total, "L2 handler memory ('pspin.l2_handler_bytes')");
  std::vector<HandlerSetMemory> out(needs.size());
  for (size_t i = 0; i < needs.size(); ++i)
    out[i] = HandlerSetMemory{uint32_t(a[i].first), uint32_t(a[i].second), uint32_t(b[i].first), uint32_t(b[i].second)};
  return out;
}

}  // namespace fs
