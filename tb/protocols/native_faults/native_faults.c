/* native_faults: the test suite's deliberately broken handler, for the guarded native call
 * (sc_model/pspin/native_call.h) and tb/protocols/native_faults_test.cpp. The first byte of the
 * packet's UDP payload picks what it does wrong; a little-endian u32 4 bytes in is an operand
 * (a length the compiler cannot bound, so that memcpy is the C library's). Each bad line carries
 * a marker comment ("fault: NAME") by which the test finds its line number. The accesses go
 * through volatile pointers so that the compiler keeps them as written, and the stores store
 * values of their own so that it cannot merge them into one instruction of one line. */
#include <string.h>

#include "fs_handler.h"
#include "fs_packet.h"

enum native_fault_mode {
  NF_OK = 0,            /* returns FS_OK */
  NF_L1_PAST_END = 1,   /* stores 12 bytes past the end of its cluster's L1 state area */
  NF_L2_PAST_END = 2,   /* stores just past the end of L2 handler memory */
  NF_BEFORE_PACKET = 3, /* stores 3 bytes before the frame: 1 before the packet slot */
  NF_L2_LOAD = 4,       /* loads 101 bytes past the end of L2 handler memory */
  NF_SPIN = 5,          /* waits for a word of L1 that nobody writes */
  NF_TAKE_LOCK = 6,     /* takes a lock in L1 and never releases it: the second such packet waits */
  NF_MEMCPY = 7,        /* memcpy of `operand` bytes to just past the end of L2 handler memory */
  NF_LOG = 8,           /* one fs_log_write call, then FS_OK */
  NF_L1_BEFORE = 9,     /* stores 1 byte before the start of its cluster's L1 state area */
  NF_LOCAL = 10,        /* stores to element `operand` of a local array of 16 (a stack overrun
                           for 16 and up: AddressSanitizer builds only, tests guard it) */
};

int native_faults_handler(const fs_handler_args_t* args) {
  const uint8_t* payload = args->pkt + FS_UDP_PAYLOAD_OFFSET;
  volatile uint8_t* l1 = args->l1;
  volatile uint8_t* l2 = args->handler_mem;
  volatile uint8_t* pkt = args->pkt;
  uint32_t operand;
  memcpy(&operand, payload + 4, 4);
  switch (payload[0]) {
    case NF_L1_PAST_END:
      l1[args->l1_size + 11] = 1; /* fault: l1 */
      break;
    case NF_L2_PAST_END:
      l2[args->handler_mem_size] = 2; /* fault: l2 */
      break;
    case NF_BEFORE_PACKET:
      pkt[-3] = 3; /* fault: before packet */
      break;
    case NF_L2_LOAD:
      return l2[args->handler_mem_size + 100]; /* fault: l2 load */
    case NF_SPIN:
      while (!*(volatile uint32_t*)args->l1) { /* fault: spin */
      }
      break;
    case NF_TAKE_LOCK:
      fs_lock((uint32_t*)(args->l1 + 4)); /* fault: lock */
      break;
    case NF_MEMCPY:
      memcpy(args->handler_mem + args->handler_mem_size, args->pkt, operand); /* fault: memcpy */
      break;
    case NF_LOG:
      fs_log_write("slow", 4); /* fault: log */
      break;
    case NF_L1_BEFORE:
      l1[-1] = 9; /* fault: l1 before */
      break;
    case NF_LOCAL: {
      volatile uint8_t local[16] = {0};
      local[operand] = 10; /* fault: local */
      return local[0];
    }
    default:
      break;
  }
  return FS_OK;
}

static const fs_outcome_desc_t native_faults_outcomes[] = {{"ok", 0, 0, 0}};
FS_HANDLER_SET(native_faults, "the test suite's deliberately broken handler (tb/protocols/native_faults)", -1, -1,
               native_faults_outcomes);
