// The handler sets the switch can run, read from the registry that handlers/CMakeLists.txt
// generates from the FS_HANDLER_SET descriptions next to each handler (its C function, the names
// of its outcome codes, where the scheduler finds a block id), plus, for those that need one, how
// the control plane installs it (initial L2 handler memory from the configuration). Parser rules
// refer to handler sets by name; `flaresim info` lists them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/config.h"
#include "fs_handler.h"

// The handler sets declared in handlers/CMakeLists.txt (the generated handler_registry.c).
extern "C" {
extern const fs_handler_set_desc_t* const fs_handler_registry[];
extern const unsigned fs_handler_registry_count;
}

namespace fs {

// Geometry of the PsPIN unit a handler set is installed into.
struct InstallTarget {
  uint8_t* handler_mem;
  uint32_t handler_mem_size;
  uint32_t l1_state_bytes;  // per cluster
  uint32_t clusters;
};

// What a handler's return code means: its name in the stats and whether the packet was dropped.
struct HandlerOutcome {
  std::string name;
  bool drop;
  bool completes_block = false;  // the packet's block is complete (its state free again)
};

struct HandlerSet {
  std::string name;
  std::string doc;
  fs_handler_fn fn;
  std::vector<HandlerOutcome> outcomes;  // index = code; outcomes[0] = {"ok", false}
  int block_id_offset;  // byte offset of a big-endian u32 block id in the UDP payload; -1: none
  int block_group_offset;  // the same for the u32 that tells apart blocks with one id; -1: none
  std::function<void(const Config&, const InstallTarget&)> install;  // throws InputError
};

const std::vector<HandlerSet>& handler_sets();
// Index into handler_sets(), or -1.
int find_handler_set(const std::string& name);

}  // namespace fs
