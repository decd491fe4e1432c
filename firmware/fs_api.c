/* The handler API (handlers/include/fs_api.def) for the RISC-V HPU: its local calls, answered
 * here from the read-only runtime registers (firmware/fs_memory_map.h), and the check that the
 * handler's arguments have the layout the ISS writes. The calls to the switch are inlined into
 * the handlers (firmware/fs_api_rv32.h). */
#include <stddef.h>
#include <stdint.h>

#include "fs_handler.h"
#include "fs_memory_map.h"

#define REG(off) (*(volatile uint32_t*)(uintptr_t)(FS_MMIO_BASE + (off)))

/* The RV32 argument layout the ISS writes is fs_handler_args_t's (checked here, on RV32). */
_Static_assert(sizeof(fs_handler_args_t) == sizeof(fs_handler_args_rv32_t), "fs_handler_args_rv32_t's size");
#define FS_CHECK_FIELD_(name)                                                                 \
  _Static_assert(offsetof(fs_handler_args_t, name) == offsetof(fs_handler_args_rv32_t, name), \
                 "fs_handler_args_rv32_t." #name);
#define FS_CHECK_PTR_(type, name) FS_CHECK_FIELD_(name)
FS_HANDLER_ARGS(FS_CHECK_PTR_, FS_CHECK_FIELD_)
#undef FS_CHECK_PTR_
#undef FS_CHECK_FIELD_

/* The bodies of the local calls. */
static inline __attribute__((always_inline)) uint8_t* fs_local_cluster_l1(uint32_t cluster_id, uint32_t* size) {
  if (cluster_id >= REG(FS_REG_NUM_CLUSTERS)) return 0;
  if (size) *size = REG(FS_REG_L1_STATE_SIZE);
  return (uint8_t*)(uintptr_t)(FS_L1_GLOBAL_BASE + cluster_id * FS_L1_GLOBAL_STRIDE);
}

#define FS_API_DEVICE(...)
#define FS_API_LOCAL(name, ret, params, args, doc) \
  ret fs_##name params { return fs_local_##name args; }
#define FS_API_HELPER(...)
#include "fs_api.def"
#undef FS_API_DEVICE
#undef FS_API_LOCAL
#undef FS_API_HELPER
