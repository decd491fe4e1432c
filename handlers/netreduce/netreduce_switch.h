/* NetReduce's switch side (NetReduce 3.1-3.3): the configuration the control plane installs
 * (shared by the C handler and the simulator's installer), the connection lookup table (CLT) and
 * the aggregator array, all in L2 handler memory, and the handler's outcome codes.
 *
 * One ring per switch, in one of three roles: the rack switch of a ring within one rack, or, for
 * a ring over several racks (3.3), a leaf (its rack's ranks) or the root (the switch above the
 * leaves). A leaf sends its ranks' sum up to the root on a virtual switch-to-switch connection,
 * the root sends the sum of the leaves' sums down to each leaf on another, and each leaf sends
 * the result into the connections that end in its rack: those whose senders are in the rack
 * with the senders' own headers, those whose senders are in another rack with headers the
 * sender's leaf announced (a notice: a copy of the headers of a message's first and last packet
 * sent along the connection's route). Its aggregator array has 2N x MsgLen aggregators (N the hosts' window of
 * messages, MsgLen the packets of a full message); packet k of message MsgID goes to aggregator
 * (MsgID mod 2N) x MsgLen + k. An aggregator keeps, per rank, the packet's headers and its
 * elements (a slot), a bitmap of the ranks in, the message it holds and its state; once every
 * rank is in it sums the slots and sends every rank's packet with the sum in place of its
 * elements. Because MsgID has 8 bits, N must be a power of two (2N divides 256) and at most 32
 * (a slot tells the message after the one it holds, MsgID + 2N, from a resend of the one before,
 * MsgID - 2N, only if the two differ mod 256). */
#ifndef NETREDUCE_SWITCH_H
#define NETREDUCE_SWITCH_H

#include <stdint.h>

#include "fs_handler.h"
#include "netreduce_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NETREDUCE_SWITCH_MAGIC 0x4E524431u /* "NRD1" */
#define NETREDUCE_MAX_RANKS 64u            /* an aggregator's bitmap */
#define NETREDUCE_MAX_WINDOW 32u
#define NETREDUCE_MAX_CHILDREN 32u         /* leaves under a root */
#define NETREDUCE_NO_SLOT 0xFFu            /* slot_of_rank: a rank this switch keeps nothing of */
/* The virtual switch-to-switch connections (3.3): RDMA write-only packets from one switch's
 * fabric address to another's, to this queue pair, with PSN MsgID << 8 | position and the INA
 * header (Rank: the leaf's slot at the root, or the sender's rank in a notice). Their payload is
 * a leaf's sum (up), the root's result (down), or a notice (3.3's CTT-populating notification):
 * a first or last packet's headers of a connection from one rack to another, sent by the
 * sender's leaf to the receiver's, with NETREDUCE_NOTICE_TAG in the INA header, the headers
 * ending NETREDUCE_HEADER_MAX bytes into the payload (zeros before them) and their length in the
 * RETH's DMA length. */
#define NETREDUCE_FABRIC_QP 0x4E5244u      /* "NRD" */
#define NETREDUCE_NOTICE_TAG 0x494E414Eu   /* "INAN" */
#define NETREDUCE_FABRIC_HEADER_BYTES (ROCE_BTH_OFFSET + ROCE_BTH_BYTES + ROCE_RETH_BYTES + NETREDUCE_INA_BYTES)

enum netreduce_role {
  NETREDUCE_ROLE_RACK = 0, /* every rank's host hangs off this switch */
  NETREDUCE_ROLE_LEAF = 1, /* a rack of a multi-rack ring: up to the root, down into its connections */
  NETREDUCE_ROLE_ROOT = 2  /* above the leaves: their sums summed and sent down */
};
#define NETREDUCE_CLT_SEED 0x636C7421u     /* fs_hash's seed for a connection's CLT entry */
/* The most header bytes in front of a packet's elements: Ethernet, IPv4, UDP, BTH, RETH,
 * immediate data and the INA header (a one-packet message), rounded up to a word. */
#define NETREDUCE_HEADER_MAX 84u

/* What every packet reads: at offset 0 of L2 handler memory (the emission point at its end is the
 * only part the handlers change, and only there) and, as every packet reads it, a copy at the
 * start of the set's share of each cluster's L1 state area (NETREDUCE_CONFIG_L1_BYTES, then each
 * HPU's netreduce.mtu-byte buffer for the sum). */
typedef struct netreduce_switch_config {
  uint32_t magic;
  uint32_t ring_id;      /* the ring whose messages this switch aggregates */
  uint32_t ranks;        /* P: its workers */
  uint32_t window;       /* N: messages a worker has in flight */
  uint32_t msg_packets;  /* MsgLen: packets of a full message */
  uint32_t mtu;          /* elements' bytes a packet carries at most (a multiple of 4) */
  uint32_t clt_entries;  /* a power of two */
  uint32_t clt_offset;   /* in L2 handler memory */
  uint32_t aggregators_offset;
  uint32_t aggregator_bytes; /* one aggregator with its P + 1 slots */
  uint32_t slot_bytes;       /* NETREDUCE_HEADER_MAX + mtu */
  uint32_t in_order;         /* results leave in the ring's order (netreduce.in_order) */
  uint32_t order_spins;      /* turns a packet waits for its message's first packet's CLT step
                                (netreduce.order_spins) */
  uint32_t role;             /* enum netreduce_role */
  uint32_t switch_ipv4;      /* LEAF, ROOT: this switch's fabric address (virtual connections') */
  uint32_t parent_ipv4;      /* LEAF: the root's */
  uint32_t leaf;             /* LEAF: its index among the leaves (its slot at the root); others 0 */
  uint32_t sources;          /* slots 0 .. sources-1 take elements: RACK: every rank; LEAF: its
                                rack's ranks; ROOT: its leaves. An aggregator completes with all */
  uint32_t slots;            /* LEAF: sources, then a headers-only slot per rank sending from
                                another rack into this one; the others: sources */
  uint8_t slot_of_rank[NETREDUCE_MAX_RANKS];   /* RACK, LEAF: rank r's slot (NETREDUCE_NO_SLOT) */
  uint8_t receiver_leaf[NETREDUCE_MAX_RANKS];  /* LEAF: the leaf where rank r's connection ends
                                                  (RACK: all 0, as `leaf`) */
  uint32_t leaf_ipv4[NETREDUCE_MAX_CHILDREN];  /* LEAF, ROOT: the leaves' fabric addresses */
  /* Each connection's emission point (in_order; rank i's, or on the root leaf i's): the message
   * and the index of the aggregator whose result goes out next (MsgID << 16 | index), moved on by
   * the handler that sends it. */
  uint32_t emit_at[NETREDUCE_MAX_RANKS];
} netreduce_switch_config_t;
#define NETREDUCE_CONFIG_L1_BYTES ((uint32_t)((sizeof(netreduce_switch_config_t) + 63u) & ~63u))

/* A CLT entry (3.2): the connection (source IP, destination IP, destination QP) and what the
 * first packet of its latest message said: PSN0 and MsgID (psn_msg: PSN0 << 8 | MsgID), and the
 * same MsgID with MsgLen and the sender's rank (info: MsgID | MsgLen << 8 | Rank << 16);
 * `anchored` once a first packet has filled them; `plain`, a connection whose first packet carried
 * no INA header, or whose sender this switch takes no elements of (forwarded as it is). Filling a
 * free entry and moving an anchored one on take the ticket lock; every other packet reads
 * psn_msg and info without it, as a whole only when their MsgIDs agree (a first packet writes
 * info, then psn_msg). */
typedef struct netreduce_clt_entry {
  uint32_t ticket, serving; /* a ticket lock: the writers take it in turn */
  uint32_t used, anchored, plain;
  uint32_t src_ip, dst_ip, dst_qp;
  uint32_t psn_msg, info;
  uint32_t reserved[2];
} netreduce_clt_entry_t;
static inline uint32_t netreduce_clt_psn0(const netreduce_clt_entry_t* e) { return e->psn_msg >> 8; }
static inline uint32_t netreduce_clt_msg_id(const netreduce_clt_entry_t* e) { return e->psn_msg & 0xFFu; }
static inline uint32_t netreduce_clt_msg_len(const netreduce_clt_entry_t* e) { return (e->info >> 8) & 0xFFu; }
static inline uint32_t netreduce_clt_rank(const netreduce_clt_entry_t* e) { return (e->info >> 16) & 0xFFu; }

enum netreduce_aggregator_state {
  NETREDUCE_FREE = 0,     /* never used */
  NETREDUCE_FILLING = 1,  /* sources coming in */
  NETREDUCE_COMPLETE = 2, /* the result made (a leaf: come down from the root); once a
                             connection's result is out (sent), a resend on it gets it again */
  NETREDUCE_RELEASED = 3, /* released one window ahead: every worker has its result */
  NETREDUCE_WAITING = 4   /* LEAF: every source in, their sum sent up, the result not down yet */
};

/* An aggregator: its state, then the result area (headers of the packet being sent, then the
 * sum, then room for the ICRC's 4 bytes), then a slot per source (its packet's headers, then its
 * elements) and, on a leaf, per rank sending into the rack from another (the headers its notice
 * announced). Elements start NETREDUCE_HEADER_MAX bytes into a slot or the result area; headers
 * end there. A slot is NETREDUCE_HEADER_MAX + mtu bytes, the result area 4 more. */
typedef struct netreduce_aggregator {
  uint32_t lock;
  uint32_t state;         /* enum netreduce_aggregator_state */
  uint32_t msg_id;        /* the message it holds (not FREE) */
  uint32_t header_bytes;  /* of its packets (the same for every rank: same opcode, same INA); 0 until one is in */
  uint32_t data_bytes;    /* elements' bytes of its packets; 0 until one is in */
  uint32_t bitmap[NETREDUCE_MAX_RANKS / 32u];  /* sources in */
  uint32_t headers[NETREDUCE_MAX_RANKS / 32u]; /* slots whose headers are in */
  uint32_t msg_len;       /* packets of its message */
  uint32_t sent[NETREDUCE_MAX_RANKS / 32u]; /* COMPLETE: the connections its result has gone out into
                                               (rank i's, or on the root leaf i's) */
} netreduce_aggregator_t;
#define NETREDUCE_AGGREGATOR_HEAD ((uint32_t)sizeof(netreduce_aggregator_t))

/* Bytes of L2 handler memory an aggregator of `slots` slots takes ... */
static inline uint64_t netreduce_aggregator_bytes(uint32_t slots, uint32_t mtu) {
  return NETREDUCE_AGGREGATOR_HEAD + (uint64_t)(slots + 1u) * (NETREDUCE_HEADER_MAX + mtu) + ROCE_ICRC_BYTES;
}
/* ... and of the whole ring's state: the configuration, the CLT, 2N x MsgLen aggregators. */
static inline uint64_t netreduce_ring_bytes(uint32_t slots, uint32_t mtu, uint32_t window, uint32_t msg_packets,
                                            uint32_t clt_entries) {
  return ((sizeof(netreduce_switch_config_t) + 63u) & ~(uint64_t)63u) +
         (uint64_t)clt_entries * sizeof(netreduce_clt_entry_t) +
         2ull * window * msg_packets * netreduce_aggregator_bytes(slots, mtu);
}

/* Outcome codes, in the order of netreduce_outcomes[] (netreduce.c). */
enum netreduce_outcome {
  NETREDUCE_OK = 0,
  NETREDUCE_AGGREGATED,     /* a rank's packet kept in its slot, the packet dropped */
  NETREDUCE_COMPLETED,      /* the last rank's packet: the sum sent into every connection */
  NETREDUCE_DUPLICATE,      /* a resend of a slot already in, while others are missing: kept again */
  NETREDUCE_RESULT_RESENT,  /* a resend to a complete aggregator: the sum sent into its connection */
  NETREDUCE_STALE,          /* a resend of a message every worker has: forwarded as it is */
  NETREDUCE_PASSED,         /* not this ring's (other RoCE traffic, another ring): forwarded as it is */
  NETREDUCE_FIRST_LOST,     /* past its connection's message: its first packet was lost; dropped */
  NETREDUCE_MALFORMED,      /* inconsistent with its ring or its aggregator: dropped */
  NETREDUCE_CLT_FULL,       /* a new connection and no CLT entry free: dropped */
  NETREDUCE_NO_ROUTE,       /* no route towards its destination: dropped */
  NETREDUCE_NOT_INSTALLED,  /* the handler set's memory holds no NetReduce configuration: dropped */
  NETREDUCE_SENT_UP,        /* LEAF: the last source's packet: the rack's sum sent up to the root */
  NETREDUCE_UP_RESENT,      /* LEAF: a resend to an aggregator waiting for the root: the sum sent up again */
  NETREDUCE_RESULT_DOWN,    /* LEAF: the root's result, sent into every connection ending in the rack */
  NETREDUCE_RESULT_PARTLY,  /* LEAF: the root's result, into some of them: a connection from another
                               rack whose headers have not come (its sender resends on timeout) */
  NETREDUCE_NOTICE,         /* LEAF: a notice of a connection ending in the rack, kept (and sent:
                               the leaf sends notices as it aggregates first and last packets) */
  NETREDUCE_LATE,           /* LEAF, ROOT: a sum, result or notice of a message every worker has: dropped */
  NETREDUCE_OUTCOME_COUNT
};

#ifdef __cplusplus
}
#endif
#endif /* NETREDUCE_SWITCH_H */
