/* pspin_aggregate_global: follows PsPIN's examples/aggregate (handlers/aggregate_global.c). The
 * payload handler (aggregate_global_ph) sums the packet's 32-bit words in a register, one load and
 * one add per word, then adds the sum to its cluster's word with one atomic add; the completion
 * handler (aggregate_global_th) adds up the clusters' words and reports the total to the host.
 * What differs: the clusters' words are per message and live in L2 handler memory, which every
 * cluster reaches ("global"; PsPIN's code indexes the task descriptor's scratchpad pointer array
 * as words, in the cluster's own L1, where the completion handler could not sum them); the
 * completion step runs at the end of the payload run that completes the message (pspin_message.h)
 * and sends the total in a result frame to the message's result port instead of an 8-byte host
 * write; the packet and its message header are checked first. */
#include "pspin_message.h"

int pspin_aggregate_global_handler(const fs_handler_args_t* args) {
  pspin_ex_msg_t m;
  const int bad = pspin_ex_read_msg(args, PSPIN_EX_AGGREGATE_GLOBAL, &m);
  uint32_t* sums;
  uint32_t aggregator = 0, result = 0, i, n;
  uint8_t* f = args->pkt;
  if (bad) return bad;
  sums = (uint32_t*)(args->handler_mem + PSPIN_EX_L2_SUMS) + m.id * args->num_clusters;

  for (i = 0; i < m.words; ++i) {
    uint32_t v;
    memcpy(&v, m.data + 4u * i, 4);
    aggregator += v;
  }
  __atomic_fetch_add(&sums[args->cluster_id], aggregator, __ATOMIC_RELAXED);

  n = pspin_ex_count(args, &m);
  if (n < m.packets) return FS_OK;
  if (n > m.packets) return PSPIN_EX_AFTER_DONE;
  /* The completion step: the total of the clusters' sums, as one little-endian word, in a result
   * frame built over the packet (which holds at least one data word, so the frame fits). */
  for (i = 0; i < args->num_clusters; ++i) result += sums[i];
  pspin_ex_result_headers(f, PSPIN_EX_AGGREGATE_GLOBAL, &m, 0, 1, 4);
  memcpy(f + PSPIN_EX_RESULT_FRAME_HEADER_BYTES, &result, 4);
  if (fs_send(f, PSPIN_EX_RESULT_FRAME_HEADER_BYTES + 4u, m.result_port)) return PSPIN_EX_RESULT_NOT_SENT;
  return PSPIN_EX_MESSAGE_DONE;
}

static const fs_outcome_desc_t pspin_aggregate_global_outcomes[] = PSPIN_EX_MESSAGE_OUTCOMES;
FS_HANDLER_SET(pspin_aggregate_global, "PsPIN's aggregate example: sums each packet's words, one atomic add per packet "
               "into L2 (handlers/pspin_examples)", PSPIN_EX_OFF_MSG, -1, pspin_aggregate_global_outcomes);
