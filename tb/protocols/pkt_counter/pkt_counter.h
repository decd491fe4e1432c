/* pkt_counter: the test suite's minimal protocol, which shows that a protocol plugs into
 * flaresim without touching the simulator's core (tb/protocols/pkt_counter_test.cpp). Its
 * packets are UDP frames to port PKT_COUNTER_UDP_PORT with at least 4 payload bytes; the handler
 * counts them per ingress port in its cluster's L1 (from offset 0 of its range, where another
 * handler set's state would be if the sets shared memory), counts all packets in cluster 0's L1
 * and their bytes in L2 handler memory, and answers each with the frame itself, its first 4
 * payload bytes replaced by the big-endian count of packets from that port in that cluster. */
#ifndef PKT_COUNTER_H
#define PKT_COUNTER_H

#include <stdint.h>

#include "fs_handler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PKT_COUNTER_UDP_PORT 5000u
#define PKT_COUNTER_MAGIC 0x434E5431u /* "CNT1" */

/* L2 handler memory: written by the installer; `bytes` is counted by the handlers. */
typedef struct pkt_counter_config {
  uint32_t magic;
  uint32_t slots; /* ports counted: 0 .. slots-1 */
  uint32_t bytes; /* frame bytes of every packet counted (atomic add) */
} pkt_counter_config_t;

/* L1 (each cluster's range): counts[slots] by port, then the packet count (used in cluster 0). */
static inline uint32_t pkt_counter_l1_bytes(uint32_t slots) { return 4u * (slots + 1u); }

enum pkt_counter_outcome {
  PKT_COUNTER_MALFORMED = 1, /* not IPv4/UDP or fewer than 4 payload bytes */
  PKT_COUNTER_NO_SLOT,       /* ingress port >= slots */
  PKT_COUNTER_NOT_INSTALLED,
  PKT_COUNTER_OUTCOME_COUNT
};

int pkt_counter_handler(const fs_handler_args_t* args);

#ifdef __cplusplus
}
#endif
#endif /* PKT_COUNTER_H */
