/* The check that the handler's arguments have the RV32 layout the ISS writes. The handler API's
 * calls (handlers/include/fs_api.def) are all inlined into the handlers (firmware/fs_api_rv32.h). */
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
