// Handler memory with a home: where each installed handler set's memory lies. Every set gets its
// own range of each cluster's L1 state area (the same range in every cluster) and its own range
// of L2 handler memory, so two sets never see each other's state. Sets that ask for a size
// (MemoryNeed) get it first, in installation order, at 64-byte aligned offsets; the sets that
// ask for none share what is left equally (the last of them takes the remainder).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pspin/handler_sets.h"

namespace fs {

struct HandlerSetMemory {
  uint32_t l1_offset = 0, l1_bytes = 0;  // in every cluster's L1 state area
  uint32_t l2_offset = 0, l2_bytes = 0;  // in L2 handler memory
};

// One entry per set (names and needs in installation order), in memories of l1_total bytes (a
// cluster's L1 state area) and l2_total bytes. Throws InputError when the sizes asked for do not
// fit or a sharing set would get nothing.
std::vector<HandlerSetMemory> lay_out_handler_memory(const std::vector<std::string>& names,
                                                     const std::vector<MemoryNeed>& needs, uint64_t l1_total,
                                                     uint64_t l2_total);

}  // namespace fs
