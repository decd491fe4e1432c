/* fault_probe: the test suite's deliberately broken handler set, for the debugging tests
 * (tb/protocols/fault_probe_test.cpp). A packet's UDP payload holds two big-endian words, a
 * command and its argument:
 *   1 COUNT        takes the lock in L1, counts the packet, releases the lock (a correct run);
 *   2 STORE_PAST   stores a word `arg` bytes past the end of the set's L1 range (out of bounds);
 *   3 LOCK_FAULT   takes the lock, then loads from address `arg` (a fault with the lock held);
 *   4 LOG          logs a line with fs_log and counts the packet, without the lock.
 * The state is two words at the start of the set's L1 range: the lock and the count. */
#include "fs_handler.h"
#include "fs_packet.h"

enum { FAULT_PROBE_MALFORMED = 1 };

typedef struct {
  uint32_t lock;
  uint32_t count;
} fault_probe_state_t;

int fault_probe_handler(const fs_handler_args_t* args) {
  uint32_t len = 0, cmd, arg;
  const uint8_t* p = fs_udp_payload(args->pkt, args->pkt_len, &len);
  fault_probe_state_t* st = (fault_probe_state_t*)args->l1;
  if (!p || len < 8) return FAULT_PROBE_MALFORMED;
  cmd = fs_be32(p), arg = fs_be32(p + 4);
  switch (cmd) {
    case 1:
      fs_lock(&st->lock);
      st->count++;
      fs_unlock(&st->lock);
      return FS_OK;
    case 2:
      *(volatile uint32_t*)(args->l1 + args->l1_size + arg) = 0xdeadbeefu;
      return FS_OK;
    case 3:
      fs_lock(&st->lock);
      st->count += *(volatile const uint32_t*)(uintptr_t)arg;
      fs_unlock(&st->lock);
      return FS_OK;
    case 4:
      fs_log("packet on port %u, count %u", (unsigned)args->ingress_port, (unsigned)st->count);
      st->count++;
      return FS_OK;
    default:
      return FAULT_PROBE_MALFORMED;
  }
}

static const fs_outcome_desc_t fault_probe_outcomes[] = {{"ok", 0, 0, 0}, {"malformed", 1, 0, 0}};
FS_HANDLER_SET(fault_probe, "the test suite's broken handlers (tb/protocols/fault_probe)", -1, -1,
               fault_probe_outcomes);
