/* cycle_probe: the test suite's handler of known instructions, whose cycles
 * tb/protocols/cycle_probe_test.cpp works out by hand from the timing table (docs/ISS.md, "What a
 * handler's cycles count"). It loads the first word of the packet's UDP payload through args->ip
 * and returns FS_OK. On the HPU's RISC-V core it is exactly four 32-bit instructions, 16-byte
 * aligned so that they fill one instruction-cache line; on the host the same in C. */
#include <stddef.h>
#include <string.h>

#include "fs_handler.h"
#include "fs_packet.h"

#if defined(__riscv)
_Static_assert(offsetof(fs_handler_args_t, ip) == 8, "the code below reads args->ip at offset 8");
_Static_assert(FS_IPV4_BYTES + FS_UDP_BYTES == 28, "the code below reads the UDP payload 28 bytes after ip");
__attribute__((naked, aligned(16))) int cycle_probe_handler(const fs_handler_args_t* args __attribute__((unused))) {
  __asm__(
      ".option push\n"
      ".option norvc\n"
      "lw   t0, 8(a0)\n"   /* t0 = args->ip                                  1 */
      "lw   t1, 28(t0)\n"  /* the UDP payload's first word, aligned: 1, +1 load-use (t0) */
      "li   a0, 0\n"       /* FS_OK                                          1 */
      "ret\n"              /*                                                2 */
      ".option pop\n");
}
#else
int cycle_probe_handler(const fs_handler_args_t* args) {
  uint32_t word;
  memcpy(&word, args->ip + FS_IPV4_BYTES + FS_UDP_BYTES, 4);
  (void)word;
  return FS_OK;
}
#endif

static const fs_outcome_desc_t cycle_probe_outcomes[] = {{"ok", 0, 0, 0}};
FS_HANDLER_SET(cycle_probe, "the test suite's handler of known cycles (tb/protocols/cycle_probe)", -1, -1,
               cycle_probe_outcomes);
