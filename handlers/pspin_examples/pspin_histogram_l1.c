/* pspin_histogram_l1: follows PsPIN's examples/histogram (handlers/histogram_l1.c). The payload
 * handler (histogram_l1_ph) takes each 32-bit word of the packet as a bin index and adds 1 to
 * that bin of a 1024-bin histogram in its own cluster's L1 scratchpad with an atomic add, loading
 * the next index before the add (the loop is software-pipelined); the completion handler
 * (histogram_l1_th) tells the host the message is done. What differs: PsPIN's loop ends before
 * the add for the packet's last index, which is then never counted: this one adds it after the
 * loop; indices are taken modulo the bins (PsPIN's example trusts its driver); each message has its own
 * histogram (its L1 state, pspin_examples.h); the completion step runs at the end of the payload
 * run that completes the message (pspin_message.h) and sends every cluster's histogram to the
 * message's result port instead of a host write of 1; the packet and its header are checked. */
#include "pspin_message.h"

#define PSPIN_HISTOGRAM_MASK (PSPIN_HISTOGRAM_BINS - 1u)
#if (PSPIN_HISTOGRAM_BINS & PSPIN_HISTOGRAM_MASK) != 0
#error "PSPIN_HISTOGRAM_BINS must be a power of two"
#endif

int pspin_histogram_l1_handler(const fs_handler_args_t* args) {
  pspin_ex_msg_t m;
  const int bad = pspin_ex_read_msg(args, PSPIN_EX_HISTOGRAM_L1, &m);
  uint32_t state, i, index;
  uint32_t *local_mem, *word_ptr;
  if (bad) return bad;
  state = m.id * PSPIN_HISTOGRAM_STATE_BYTES;
  local_mem = (uint32_t*)(args->l1 + state + PSPIN_EX_STATE_DATA_OFFSET);

  memcpy(&index, m.data, 4);
  word_ptr = &local_mem[index & PSPIN_HISTOGRAM_MASK];
  for (i = 1; i < m.words; ++i) {
    __atomic_fetch_add(word_ptr, 1u, __ATOMIC_RELAXED);
    memcpy(&index, m.data + 4u * i, 4);
    word_ptr = &local_mem[index & PSPIN_HISTOGRAM_MASK];
  }
  __atomic_fetch_add(word_ptr, 1u, __ATOMIC_RELAXED);
  return pspin_ex_finish_l1(args, PSPIN_EX_HISTOGRAM_L1, &m, state, 4u * PSPIN_HISTOGRAM_BINS);
}

static const fs_outcome_desc_t pspin_histogram_l1_outcomes[] = PSPIN_EX_MESSAGE_OUTCOMES;
FS_HANDLER_SET(pspin_histogram_l1, "PsPIN's histogram example: one atomic add per word into a 1024-bin histogram in its "
               "cluster's L1 (handlers/pspin_examples)", PSPIN_EX_OFF_MSG, -1, pspin_histogram_l1_outcomes);
