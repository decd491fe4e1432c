/* pspin_reduce_l1: follows PsPIN's examples/reduce (handlers/reduce_l1.c). The payload handler
 * (reduce_l1_ph) adds the packet's 32-bit words element by element into a vector in its own
 * cluster's L1 scratchpad, one load and one atomic add per word (the HPUs of a cluster add into
 * the same words); the completion handler (reduce_l1_th) tells the host the message is done. What
 * differs: each message has its own vector (its L1 state, pspin_examples.h); the completion step
 * runs at the end of the payload run that completes the message (pspin_message.h) and, instead of
 * a host write of 1 after which PsPIN's host would read the scratchpads, sends every cluster's
 * vector to the message's result port; the packet and its message header are checked first. */
#include "pspin_message.h"

int pspin_reduce_l1_handler(const fs_handler_args_t* args) {
  pspin_ex_msg_t m;
  const int bad = pspin_ex_read_msg(args, PSPIN_EX_REDUCE_L1, &m);
  uint32_t state, i;
  uint32_t* local_mem;
  if (bad) return bad;
  state = m.id * PSPIN_REDUCE_STATE_BYTES;
  local_mem = (uint32_t*)(args->l1 + state + PSPIN_EX_STATE_DATA_OFFSET);

  for (i = 0; i < m.words; ++i) {
    uint32_t v;
    memcpy(&v, m.data + 4u * i, 4);
    __atomic_fetch_add(&local_mem[i], v, __ATOMIC_RELAXED);
  }
  return pspin_ex_finish_l1(args, PSPIN_EX_REDUCE_L1, &m, state, 4u * m.words);
}

static const fs_outcome_desc_t pspin_reduce_l1_outcomes[] = PSPIN_EX_MESSAGE_OUTCOMES;
FS_HANDLER_SET(pspin_reduce_l1, "PsPIN's reduce example: adds each packet's words element-wise into its cluster's L1, "
               "one atomic add per word (handlers/pspin_examples)", PSPIN_EX_OFF_MSG, -1, pspin_reduce_l1_outcomes);
