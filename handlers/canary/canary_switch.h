/* Canary's switch side: the configuration the control plane installs (shared by the C handler
 * and the simulator's installer), the block descriptor kept in cluster L1, and the handler's
 * outcome codes. One descriptor table per switch (Canary 3.2), cut across the clusters: the
 * descriptor of block id `id` lives in cluster id mod C (where the hier-fcfs and home-cluster
 * schedulers send the block's packets), in slot hash(id) mod S there, or with the static mapping
 * (3.2) in slot (sequence / C) mod (S / A) of application (app mod A)'s share of the S slots. */
#ifndef CANARY_SWITCH_H
#define CANARY_SWITCH_H

#include <stdint.h>

#include "canary_proto.h"
#include "fs_divide.h"
#include "fs_handler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CANARY_SWITCH_MAGIC 0x43414E31u /* "CAN1" */
#define CANARY_MAX_PORTS 128u           /* ports a Canary switch has at most: its children bitmap */
#define CANARY_PORT_WORDS (CANARY_MAX_PORTS / 32u)
#define CANARY_HASH_SEED 0x63616E61u    /* fs_hash's seed for the descriptor slot ("cana") */

enum canary_mapping { CANARY_MAP_HASH = 0, CANARY_MAP_STATIC = 1 };

/* What every packet reads: the installer writes it at offset 0 of L2 handler memory and a copy
 * at the start of the set's share of every cluster's L1 state area. */
typedef struct canary_switch_config {
  uint32_t magic;
  uint32_t switch_address;   /* this switch's Canary address (1..65535), what a collision reports */
  uint32_t switch_ipv4;      /* fs_switch_ipv4(switch_address): restoration packets come to it */
  uint32_t timeout_cycles;   /* the aggregation timeout (3.1.1), in PsPIN cycles */
  uint32_t lifetime_cycles;  /* a descriptor sent on but never freed by a broadcast is freed this long
                                after it was sent (0: never) */
  uint32_t mapping;          /* enum canary_mapping */
  uint32_t slots;            /* descriptors per cluster (S) */
  uint32_t app_slots;        /* static mapping: slots of each application's share (S / A) */
  fs_divisor_t by_clusters;  /* divides by the switch's clusters */
  fs_divisor_t by_slots;     /* by S */
  fs_divisor_t by_apps;      /* by A, the applications sharing the table (static mapping) */
  fs_divisor_t by_app_slots; /* by S / A */
  uint32_t descriptors_offset; /* where the descriptors start in each cluster's L1 share */
} canary_switch_config_t;
#define CANARY_CONFIG_L1_BYTES ((uint32_t)((sizeof(canary_switch_config_t) + 63u) & ~63u))

enum canary_descriptor_state {
  CANARY_FREE = 0,        /* no block */
  CANARY_AGGREGATING = 1, /* collecting packets until the timer fires (or every host is in) */
  CANARY_SENT = 2         /* sent on towards the leader: later packets are stragglers */
};

/* A block's descriptor (3.1.1, 3.1.3): its state under a lock, then the frame it sends on, kept
 * whole: the first packet's headers, rewritten when the descriptor is sent, and the accumulator
 * as the frame's data, so that sending it is one fs_send. The frame starts CANARY_FRAME_SKEW bytes
 * into `frame_area` so that the data (61 bytes into the frame) is word-aligned. */
#define CANARY_FRAME_HEADER_BYTES (CANARY_PAYLOAD_OFFSET + CANARY_HEADER_BYTES) /* 61 */
#define CANARY_FRAME_SKEW 3u
typedef struct canary_descriptor {
  uint32_t lock;        /* spin lock over the whole descriptor */
  uint32_t state;       /* enum canary_descriptor_state */
  uint32_t id;          /* the block's id while not free */
  uint32_t counter;     /* packets reduced into the accumulator so far */
  uint32_t hosts;       /* hosts taking part, from the first packet */
  uint32_t elements;    /* elements of the block (every packet of it carries as many) */
  uint32_t children[CANARY_PORT_WORDS]; /* ports the block's packets came in on (the broadcast's) */
  uint8_t frame_area[CANARY_FRAME_SKEW + CANARY_FRAME_HEADER_BYTES];
  int32_t data[CANARY_ELEMENTS];        /* the accumulator: the frame's data */
} canary_descriptor_t;
#define CANARY_DESCRIPTOR_BYTES ((uint32_t)sizeof(canary_descriptor_t))

/* Outcome codes, in the order of canary_outcomes[] (canary.c). */
enum canary_outcome {
  CANARY_OK = 0,
  CANARY_ALLOCATED,     /* a block's first packet: a descriptor taken, the packet dropped */
  CANARY_AGGREGATED,    /* folded into its block's descriptor, the packet dropped */
  CANARY_SENT_ON,       /* folded in and, every host's data being in, sent on at once */
  CANARY_STRAGGLER,     /* came after its block was sent on: forwarded at once */
  CANARY_COLLISION,     /* the slot holds another block: marked and bypassed to the leader */
  CANARY_BYPASSED,      /* a bypass packet (collision, request, unicast result) forwarded */
  CANARY_BROADCAST,     /* a result (or failure) multicast to the block's children, descriptor freed */
  CANARY_ORPHAN,        /* a broadcast for a block this switch holds no descriptor of: dropped */
  CANARY_RESTORED,      /* a restoration packet for this switch: its data sent out of the named port */
  CANARY_TIMEOUT_SENT,  /* timer run: the descriptor's data sent on */
  CANARY_EXPIRED,       /* timer run: a descriptor never freed by a broadcast, freed */
  CANARY_IDLE_TIMER,    /* timer run: nothing to do (the descriptor moved on) */
  CANARY_MALFORMED,     /* not a Canary packet this switch can take: dropped */
  CANARY_NO_ROUTE,      /* no route towards the packet's destination: dropped */
  CANARY_NOT_INSTALLED, /* the handler set's memory holds no Canary configuration: dropped */
  CANARY_OUTCOME_COUNT
};

#ifdef __cplusplus
}
#endif
#endif /* CANARY_SWITCH_H */
