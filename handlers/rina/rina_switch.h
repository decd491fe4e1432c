/* The rina switch side: the configuration the control plane installs (shared by the C handler and
 * the simulator's installer), the group an agent's TASK sets up, the aggregator slot kept in
 * cluster L1, and the handler's outcome codes. The switch's S slots are cut across the clusters:
 * slot i lives in cluster i mod C, at index i / C there. A GRAD names its slot; the group's
 * workers choose it so that no two aggregations open at once share one (rina_jobs.h). */
#ifndef RINA_SWITCH_H
#define RINA_SWITCH_H

#include <stdint.h>

#include "fs_divide.h"
#include "fs_handler.h"
#include "rina_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RINA_SWITCH_MAGIC 0x52494E31u /* "RIN1" */

/* At offset 0 of L2 handler memory, and a copy at the start of the set's share of every
 * cluster's L1 state area. */
typedef struct rina_switch_config {
  uint32_t magic;
  uint32_t self;        /* this switch's IPv4 address (fs_fabric_switch_ipv4 of its address) */
  uint32_t slots;       /* S */
  uint32_t per_cluster; /* slots in each cluster: ceil(S / C) */
  fs_divisor_t by_clusters;
  uint32_t slots_offset; /* where the slots start in each cluster's L1 share */
  uint32_t group_offset; /* where the group (rina_group_t) is in L2 handler memory */
  uint32_t sums;         /* rina_sum_part_t entries after the group (0: none) */
} rina_switch_config_t;
#define RINA_CONFIG_L1_BYTES ((uint32_t)((sizeof(rina_switch_config_t) + 63u) & ~63u))

/* The group behind this switch, as its agent's TASK last set it up (Rina §IV-B3: the rack's
 * workers, the next group's entry); `valid` 0 until the first TASK. In L2 handler memory. */
typedef struct rina_group {
  uint32_t valid;
  uint32_t members;                    /* 1 .. 32 */
  uint32_t next;                       /* the next group's entry (IPv4) */
  uint32_t member[RINA_MAX_MEMBERS];   /* the workers' IPv4 addresses, member order: member[0] the agent */
} rina_group_t;

/* This switch's part in a group above it (a group of the members nearest an INA switch above
 * racks, whose GRADs pass this INA switch on their way up): it sums the GRADs of the members of
 * `mask` and sends the sum on as one GRAD (SUM), and copies what the group's switch multicasts to
 * the group's address out of `down`, towards those members. Set by the control plane, after the
 * group in L2 handler memory. */
#define RINA_MAX_SUM_PARTS 4u
typedef struct rina_sum_part {
  uint32_t group_switch;  /* the group's switch's IPv4 address: the GRADs' destination */
  uint32_t group_address; /* the group's address (rina_group_ipv4) */
  uint32_t mask;          /* the members (bits by member index) whose GRADs pass this switch */
  uint32_t children;      /* ports in `down` */
  uint16_t down[RINA_MAX_MEMBERS];
} rina_sum_part_t;

/* An aggregator slot: free when `busy` is 0; held from a packet's first GRAD until its sum goes on. */
typedef struct rina_slot {
  uint32_t lock;
  uint32_t busy;
  uint32_t iteration, chunk, step, packet;
  uint32_t bitmap;   /* members summed in */
  uint32_t members;
  uint32_t elements;
  int32_t values[RINA_ELEMENTS];
} rina_slot_t;
#define RINA_SLOT_BYTES ((uint32_t)sizeof(rina_slot_t))

/* Outcome codes, in the order of rina_outcomes[] (rina.c). */
enum rina_outcome {
  RINA_OK = 0,
  RINA_TASKED,        /* an agent's TASK: the group set up, a PULL multicast to its workers */
  RINA_TAKEN,         /* a GRAD took a free slot: dropped */
  RINA_AGGREGATED,    /* a GRAD summed into its slot: dropped */
  RINA_COMPLETED,     /* a GRAD completed its slot's sum: sent on as DATA (at the last summing step also
                         multicast to the rack, FULL), the slot freed */
  RINA_DUPLICATE,     /* a GRAD of a member already summed in: dropped */
  RINA_SLOT_BUSY,     /* a GRAD naming a slot that holds another packet's sum: dropped */
  RINA_ACKED,         /* an ACK of this switch's sum: multicast to the rack */
  RINA_RELAY_ACKED,   /* an ACK of a DATA this switch relayed: nobody waits for it; consumed */
  RINA_RELAYED,       /* a FULL DATA for this group's agent: multicast to the rack and sent on */
  RINA_DELIVERED,     /* the same at the chunk's last step: multicast to the rack only */
  RINA_FORWARDED,     /* a rina packet for someone else: forwarded by the routes */
  RINA_TO_AGENT,      /* a partial sum for this switch as its group's entry: sent on to the agent */
  RINA_SUMMED_ON,     /* a GRAD for a group above that completed this switch's part of its sum: the sum
                         sent on to the group's switch (SUM), the slot freed */
  RINA_COPIED,        /* a packet to a group above: copied towards this switch's members of it */
  RINA_NO_GROUP,      /* a GRAD or ACK before any TASK set the group up: dropped */
  RINA_MALFORMED,     /* not a rina packet this switch can take: dropped */
  RINA_NO_ROUTE,      /* no route towards a destination: dropped */
  RINA_NOT_INSTALLED, /* the handler set's memory holds no rina configuration: dropped */
  RINA_OUTCOME_COUNT
};

#ifdef __cplusplus
}
#endif
#endif /* RINA_SWITCH_H */
