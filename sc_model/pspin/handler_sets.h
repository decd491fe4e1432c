// The handler sets the switch can run. A protocol registers each of its sets before main() runs
// (plugin/protocol.h): the description written next to the C handler with FS_HANDLER_SET (its
// function, the names of its outcome codes, where the scheduler finds a block id) and its control
// plane (how much L1 and L2 handler memory it needs, and how it fills that memory from the
// configuration when it is installed). Parser rules refer to handler sets by name; `flaresim
// info` lists them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "fs_handler.h"

namespace fs {

// The memory one installed handler set owns (pspin/memory/handler_memory.h lays it out): its
// range of every cluster's L1 state area and its range of L2 handler memory. Handlers see only
// these (fs_handler_args_t.l1 and .handler_mem, fs_cluster_l1).
struct InstallTarget {
  uint8_t* handler_mem;      // the set's L2 handler memory
  uint32_t handler_mem_size;
  uint32_t l1_state_bytes;   // the set's share of each cluster's L1 state area
  uint32_t clusters;
  std::vector<uint8_t*> l1_state;  // that share, by cluster (l1_state_bytes each)
};

// How much memory a handler set asks for; 0 for either: an equal share of what the sets that
// name a size leave. A set whose configuration uses it for nothing (none) gets no memory at all
// and is not installed: its handler then finds no configuration.
struct MemoryNeed {
  uint64_t l1_bytes = 0;  // in every cluster's L1 state area
  uint64_t l2_bytes = 0;  // of L2 handler memory
  bool none = false;
};

// A handler set's control plane, provided by its protocol.
class HandlerSetControl {
 public:
  virtual ~HandlerSetControl() = default;
  // Out of l1_available bytes of each cluster's L1 state area and l2_available of L2 handler
  // memory (all of it, before any set has its share); may throw InputError when it cannot fit.
  virtual MemoryNeed memory_need(const Config&, uint64_t /*l1_available*/, uint64_t /*l2_available*/) const {
    return {};
  }
  // Fills the set's memory from the configuration; throws InputError naming the key.
  virtual void install(const Config&, const InstallTarget&) const {}
};

// What a handler's return code means: its name in the stats and whether the packet was dropped.
struct HandlerOutcome {
  std::string name;
  bool drop;
  bool completes_block = false;  // the packet's block is complete (its state free again)
  bool no_block = false;         // the packet is no contribution to a block in flight
};

struct HandlerSet {
  std::string name;
  std::string doc;
  fs_handler_fn fn;
  fs_handler_fn timer_fn;  // NAME_timer; nullptr: the set has no timers
  std::vector<HandlerOutcome> outcomes;  // index = code; outcomes[0] = {"ok", false}
  int block_id_offset;  // byte offset of a big-endian u32 block id in the UDP payload; -1: none
  int block_group_offset;  // the same for the u32 that tells apart blocks with one id; -1: none
  const HandlerSetControl* control;  // never null
};

// Registers a handler set (the description and control are kept for the life of the program).
void register_handler_set(const fs_handler_set_desc_t& desc, const HandlerSetControl* control);
// Every registered set, by name.
const std::vector<HandlerSet>& handler_sets();
// Index into handler_sets(), or -1.
int find_handler_set(const std::string& name);
// How the stats name outcome `code` of `set`: its outcome's name, or "code_N" for a code the set
// does not declare.
std::string outcome_name(const HandlerSet& set, int code);

}  // namespace fs
