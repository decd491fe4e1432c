/* HPU handler entry: the ISS engine starts every handler run here with sp set to the top of the
 * HPU's stack, a0 = the fs_handler_args_t for this packet and a1 = the handler's address. The
 * handler's return value is written to the EXIT register, which ends the run.
 * _fs_handler_call (the call) and _fs_handler_return (where the handler returns to) mark the
 * handler's part of the run: the ISS engine counts the handler's cycles from the call's end to
 * the return's end, and what comes before and after as the runtime's entry and exit
 * (docs/ISS.md, "What a handler's cycles count"). They are typed as functions so that the ELF's
 * symbol table lists them. */
#include "fs_memory_map.h"

  .section .text.entry, "ax"
  .globl _fs_entry
  .type _fs_entry, @function
_fs_entry:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  .globl _fs_handler_call
  .type _fs_handler_call, @function
_fs_handler_call:
  jalr ra, 0(a1)
  .globl _fs_handler_return
  .type _fs_handler_return, @function
_fs_handler_return:
  li t0, FS_MMIO_BASE
  sw a0, FS_REG_EXIT(t0)
1:
  j 1b /* not reached: the EXIT write stops the core */
  .size _fs_entry, . - _fs_entry
