/* The PsPIN examples' packets and memory, shared by the handlers of handlers/pspin_examples/ (host
 * and RISC-V builds) and the simulator side (sc_model/protocols/pspin_examples/): the examples and
 * their UDP ports, the message header every packet carries, the result frames, the message state
 * in L1 and L2 handler memory, and the outcome codes. README.md in this folder says how each
 * handler follows its example in spcl/pspin.
 *
 * A packet: Ethernet II, IPv4 without options, UDP (fs_packet.h), then the 12-byte message header
 * (big-endian fields), then the data: 32-bit little-endian words, as PsPIN's examples read them.
 * PsPIN's NIC tells a handler which message a packet belongs to and runs the message's completion
 * handler once all its packets are handled; a switch sees only the packet, so the packet says it. */
#ifndef PSPIN_EXAMPLES_H
#define PSPIN_EXAMPLES_H

#include <stdint.h>

#include "fs_handler.h"
#include "fs_packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The examples, in the order of their UDP ports: example e's packets (and results) use UDP port
 * PSPIN_EX_UDP_PORT_BASE + e, source and destination. */
enum pspin_ex_example {
  PSPIN_EX_EMPTY = 0,
  PSPIN_EX_PINGPONG = 1,
  PSPIN_EX_AGGREGATE_GLOBAL = 2,
  PSPIN_EX_REDUCE_L1 = 3,
  PSPIN_EX_HISTOGRAM_L1 = 4,
  PSPIN_EX_COUNT
};
#define PSPIN_EX_UDP_PORT_BASE 9100u

/* The message header, at the start of the UDP payload. */
#define PSPIN_EX_OFF_MSG 0u         /* u32 message id (the scheduler's block id) */
#define PSPIN_EX_OFF_INDEX 4u       /* u16 the packet's index in its message */
#define PSPIN_EX_OFF_PACKETS 6u     /* u16 packets in the message (1 .. 65535) */
#define PSPIN_EX_OFF_RESULT_PORT 8u /* u16 the port the message's results go to */
#define PSPIN_EX_OFF_RESERVED 10u   /* u16 zero */
#define PSPIN_EX_MSG_HEADER_BYTES 12u
#define PSPIN_EX_DATA_OFFSET (FS_UDP_PAYLOAD_OFFSET + PSPIN_EX_MSG_HEADER_BYTES) /* in a frame */
/* Data bytes a packet carries at most (and one reduce_l1 message state holds). */
#define PSPIN_EX_MAX_DATA_BYTES 8128u

/* A result frame goes from the switch (fs_packet.h addressing) to the host on the message's
 * result port, UDP ports as the example's packets; its UDP payload is this 12-byte header
 * (big-endian), then the data words (little-endian). aggregate_global sends one frame per message
 * (cluster 0 of 1, one word: the sum); reduce_l1 and histogram_l1 send one frame per cluster,
 * each with that cluster's partial vector: the message's result is the sum of the frames. */
#define PSPIN_EX_OFF_RESULT_MSG 0u      /* u32 message id */
#define PSPIN_EX_OFF_RESULT_CLUSTER 4u  /* u32 the cluster whose partial result this is */
#define PSPIN_EX_OFF_RESULT_CLUSTERS 8u /* u32 frames that make up the message's result */
#define PSPIN_EX_RESULT_HEADER_BYTES 12u
#define PSPIN_EX_RESULT_FRAME_HEADER_BYTES (FS_UDP_PAYLOAD_OFFSET + PSPIN_EX_RESULT_HEADER_BYTES)

/* histogram_l1: bins of the histogram (PsPIN's HISTOGRAM_SIZE; a power of two: indices are taken
 * modulo it). */
#define PSPIN_HISTOGRAM_BINS 1024u

/* Message states. A message id selects its state; ids from the installed number of states on are
 * dropped (no_state). L1 (reduce_l1, histogram_l1): message m's state is the region at m x
 * STATE_BYTES of every cluster's L1 range: PSPIN_EX_STATE_DATA_OFFSET bytes whose last
 * PSPIN_EX_RESULT_FRAME_HEADER_BYTES hold the result frame's headers when it is sent, then that
 * cluster's partial vector. */
#define PSPIN_EX_MAX_MESSAGES 1024u
#define PSPIN_EX_STATE_DATA_OFFSET 64u
#define PSPIN_REDUCE_STATE_BYTES (PSPIN_EX_STATE_DATA_OFFSET + PSPIN_EX_MAX_DATA_BYTES)
#define PSPIN_HISTOGRAM_STATE_BYTES (PSPIN_EX_STATE_DATA_OFFSET + 4u * PSPIN_HISTOGRAM_BINS)

/* L2 handler memory (aggregate_global, reduce_l1, histogram_l1), written by the installer:
 * offset 0: u32 the message states installed; PSPIN_EX_L2_COUNTED: u32[PSPIN_EX_MAX_MESSAGES]
 * the packets of each message handled so far; aggregate_global only, PSPIN_EX_L2_SUMS:
 * u32[PSPIN_EX_MAX_MESSAGES][clusters], each cluster's partial sum of each message. */
#define PSPIN_EX_L2_COUNTED 8u
#define PSPIN_EX_L2_SUMS (PSPIN_EX_L2_COUNTED + 4u * PSPIN_EX_MAX_MESSAGES)
static inline uint32_t pspin_ex_l2_bytes(uint32_t example, uint32_t clusters) {
  return PSPIN_EX_L2_SUMS + (example == PSPIN_EX_AGGREGATE_GLOBAL ? 4u * PSPIN_EX_MAX_MESSAGES * clusters : 0u);
}

/* Outcome codes of the message-based examples (aggregate_global, reduce_l1, histogram_l1); empty
 * has only FS_OK, pingpong FS_OK and 1 (malformed). */
enum pspin_ex_outcome {
  PSPIN_EX_MESSAGE_DONE = 1, /* the packet completed its message: the results went out */
  PSPIN_EX_AFTER_DONE,       /* counted after its message had completed (more packets than it said) */
  PSPIN_EX_MALFORMED,        /* not Ethernet/IPv4/UDP with a message header, a zero packet count,
                                or no data word */
  PSPIN_EX_TOO_LONG,         /* more than PSPIN_EX_MAX_DATA_BYTES of data */
  PSPIN_EX_NO_STATE,         /* a message id without a state (or the set is not installed) */
  PSPIN_EX_RESULT_NOT_SENT,  /* completed its message, but a result could not be sent (bad port) */
  PSPIN_EX_OUTCOME_COUNT
};

int pspin_empty_handler(const fs_handler_args_t* args);
int pspin_pingpong_handler(const fs_handler_args_t* args);
int pspin_aggregate_global_handler(const fs_handler_args_t* args);
int pspin_reduce_l1_handler(const fs_handler_args_t* args);
int pspin_histogram_l1_handler(const fs_handler_args_t* args);

#ifdef __cplusplus
}
#endif
#endif /* PSPIN_EXAMPLES_H */
