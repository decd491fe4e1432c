/* HPU handler entry: the ISS engine starts every handler run here with sp set to the top of the
 * HPU's stack, a0 = the fs_handler_args_t for this packet and a1 = the handler's address. The
 * handler's return value is written to the EXIT register, which ends the run. */
#include "fs_memory_map.h"

  .section .text.entry, "ax"
  .globl _fs_entry
  .type _fs_entry, @function
_fs_entry:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  jalr ra, 0(a1)
  li t0, FS_MMIO_BASE
  sw a0, FS_REG_EXIT(t0)
1:
  j 1b /* not reached: the EXIT write stops the core */
  .size _fs_entry, . - _fs_entry
