/* Wire format of the rina protocol (Rina: ring allreduce with in-network aggregation at the
 * top-of-rack switch, Rina §IV), shared by the C handler (host and RISC-V builds) and the
 * simulator's agents and workers. Carried over Ethernet II, IPv4 without options and UDP
 * (fs_packet.h) to RINA_UDP_PORT_DEFAULT.
 *
 * The ring runs over G groups: the workers nearest an in-network-aggregation (INA) switch (a rack,
 * or the racks below a switch above them), its agent the lowest-ranked worker, or an autonomous
 * worker. The gradient is cut into G chunks, chunk c
 * into packets of at most RINA_ELEMENTS int32 values. Chunk c's step s (1 .. 2G - 1) is done by
 * group (c + s - 1) mod G: steps 1 .. G add each group's gradients to the partial sum (step G
 * completes it), steps G .. 2G - 1 hand the complete sum to each group's workers (AllGather).
 * In an INA group a step 1 .. G is: the agent's TASK to its switch, which multicasts a PULL to
 * the rack; every worker's GRAD to the switch (the agent's holding the partial sum that came to
 * it as DATA); the switch's sum, sent on as DATA to the next group's entry (its agent, or the
 * autonomous worker; for a group above racks its switch, which hands a partial sum on to the
 * agent), at step G also multicast to the rack, FULL. A FULL DATA coming to an INA group's entry
 * is caught by its switch, multicast to the rack and sent on to the next group. What the switch
 * multicasts to its rack is addressed to the group's address (rina_group_ipv4 of its agent),
 * which plain switches between it and a rack below copy on by their multicast routes.
 * The entry that takes a DATA ACKs it to its sender; an INA switch multicasts the ACK of its own
 * sum to its rack, whose workers' windows it frees.
 *
 * The 24-byte header, big-endian fields:
 *   0 kind (RINA_TASK .. RINA_ACK) | 1 flags | 2 iteration | 4 chunk | 6 step (1 .. 2G - 1) |
 *   8 groups (G) | 10 packet (the packet's index in its chunk; TASK, PULL: the chunk's packet
 *   count; ACK: the first packet it acknowledges) | 12 slot (GRAD: the switch's aggregator the
 *   packet's sum is kept in) | 14 elements (int32 values that follow) | 16 member (GRAD: the
 *   sender's index in its group, its bit in the switch's bitmap) | 17 members (TASK, PULL, GRAD:
 *   the group's workers, 1 .. 32; ACK: the packets it acknowledges, from `packet` on, 1 .. 255)
 *   | 18 reserved (0) | 20 next (TASK: the IPv4 address of the next group's entry; 0 otherwise)
 * then, for GRAD and DATA, the values (little-endian int32); for TASK, the group's workers'
 * IPv4 addresses (big-endian, member order, the agent first). Flags: FULL (DATA: the complete sum
 * of the chunk, AllGather); ECE (ACK: the DATA it acknowledges arrived ECN-marked); the other bits
 * are padding, 0; SUM (GRAD: a switch's sum of the members whose bitmap is in `next`, `member` the
 * lowest of them, on its way to the group's switch above it). GRADs and DATA travel ECN-capable. */
#ifndef RINA_PROTO_H
#define RINA_PROTO_H

#include <stdint.h>

#include "fs_packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RINA_UDP_PORT_DEFAULT 4970u
#define RINA_HEADER_BYTES 24u
#define RINA_ELEMENTS 256u /* int32 values of a full packet: 1 KiB */
#define RINA_ELEMENT_BYTES 4u
#define RINA_MAX_MEMBERS 32u
#define RINA_MAX_GROUPS 4096u /* 2G - 1 steps fit the 16-bit step */

#define RINA_PAYLOAD_OFFSET FS_UDP_PAYLOAD_OFFSET

#define RINA_OFF_KIND 0u
#define RINA_OFF_FLAGS 1u
#define RINA_OFF_ITERATION 2u
#define RINA_OFF_CHUNK 4u
#define RINA_OFF_STEP 6u
#define RINA_OFF_GROUPS 8u
#define RINA_OFF_PACKET 10u
#define RINA_OFF_SLOT 12u
#define RINA_OFF_ELEMENTS 14u
#define RINA_OFF_MEMBER 16u
#define RINA_OFF_MEMBERS 17u
#define RINA_OFF_RESERVED 18u
#define RINA_OFF_NEXT 20u

enum rina_kind { RINA_TASK = 1, RINA_PULL = 2, RINA_GRAD = 3, RINA_DATA = 4, RINA_ACK = 5 };
#define RINA_FLAG_FULL 0x80u
#define RINA_FLAG_ECE 0x40u
#define RINA_FLAG_SUM 0x20u
#define RINA_FLAG_PADDING 0x1Fu

typedef struct rina_header {
  uint8_t kind, flags;
  uint16_t iteration, chunk, step, groups, packet, slot, elements;
  uint8_t member, members;
  uint32_t next;
} rina_header_t;

static inline void rina_decode(const uint8_t* h, rina_header_t* out) {
  out->kind = h[RINA_OFF_KIND];
  out->flags = h[RINA_OFF_FLAGS];
  out->iteration = (uint16_t)fs_be16(h + RINA_OFF_ITERATION);
  out->chunk = (uint16_t)fs_be16(h + RINA_OFF_CHUNK);
  out->step = (uint16_t)fs_be16(h + RINA_OFF_STEP);
  out->groups = (uint16_t)fs_be16(h + RINA_OFF_GROUPS);
  out->packet = (uint16_t)fs_be16(h + RINA_OFF_PACKET);
  out->slot = (uint16_t)fs_be16(h + RINA_OFF_SLOT);
  out->elements = (uint16_t)fs_be16(h + RINA_OFF_ELEMENTS);
  out->member = h[RINA_OFF_MEMBER];
  out->members = h[RINA_OFF_MEMBERS];
  out->next = (uint32_t)fs_be32(h + RINA_OFF_NEXT);
}

/* Writes the header, the reserved bytes 0. */
static inline void rina_encode(const rina_header_t* in, uint8_t* h) {
  h[RINA_OFF_KIND] = in->kind;
  h[RINA_OFF_FLAGS] = in->flags;
  fs_put_be16(h + RINA_OFF_ITERATION, in->iteration);
  fs_put_be16(h + RINA_OFF_CHUNK, in->chunk);
  fs_put_be16(h + RINA_OFF_STEP, in->step);
  fs_put_be16(h + RINA_OFF_GROUPS, in->groups);
  fs_put_be16(h + RINA_OFF_PACKET, in->packet);
  fs_put_be16(h + RINA_OFF_SLOT, in->slot);
  fs_put_be16(h + RINA_OFF_ELEMENTS, in->elements);
  h[RINA_OFF_MEMBER] = in->member;
  h[RINA_OFF_MEMBERS] = in->members;
  fs_put_be16(h + RINA_OFF_RESERVED, 0);
  fs_put_be32(h + RINA_OFF_NEXT, in->next);
}

/* A group's address: what its switch multicasts to its workers goes to it (239.1.x.y, x.y the
 * agent's host number). */
#define RINA_GROUP_PREFIX 0xEF010000u
static inline uint32_t rina_group_ipv4(uint32_t agent_ipv4) { return RINA_GROUP_PREFIX | (agent_ipv4 & 0xFFFFu); }

/* The bitmap of a group of `members` workers when every one has contributed. */
static inline uint32_t rina_full_bitmap(uint32_t members) {
  return members >= 32u ? 0xFFFFFFFFu : ((1u << members) - 1u);
}

/* What is wrong with a header, the first of these that applies (the switch drops such a packet;
 * the simulator's reader names the problem: rina_frame.cpp). */
enum rina_problem {
  RINA_FINE = 0,
  RINA_BAD_KIND,       /* not one of the five kinds */
  RINA_BAD_PADDING,    /* padding flags set */
  RINA_OTHER_KINDS_FLAG, /* FULL on anything but DATA, ECE on anything but an ACK, SUM on anything but a GRAD */
  RINA_BAD_GROUPS,     /* groups 0 or above RINA_MAX_GROUPS */
  RINA_BAD_STEP,       /* step 0 or beyond 2G - 1 (TASK, PULL, GRAD: beyond G, the last that sums) */
  RINA_BAD_CHUNK,      /* chunk >= groups */
  RINA_BAD_MEMBERS,    /* TASK, PULL, GRAD: members 0 or above RINA_MAX_MEMBERS; GRAD: member >= members
                          (SUM: the bitmap in next without member, or with members beyond the group's);
                          ACK: members (packets acknowledged) 0 */
  RINA_STRAY_NEXT,     /* next set on anything but a TASK or a SUM GRAD, or 0 on one */
  RINA_BAD_ELEMENTS    /* values on a kind that carries none (TASK, PULL, ACK), or above RINA_ELEMENTS */
};

static inline int rina_header_problem(const rina_header_t* h) {
  const int task = h->kind == RINA_TASK, pull = h->kind == RINA_PULL, grad = h->kind == RINA_GRAD;
  if (h->kind < RINA_TASK || h->kind > RINA_ACK) return RINA_BAD_KIND;
  if (h->flags & RINA_FLAG_PADDING) return RINA_BAD_PADDING;
  const int sum = grad && (h->flags & RINA_FLAG_SUM);
  if (((h->flags & RINA_FLAG_FULL) && h->kind != RINA_DATA) || ((h->flags & RINA_FLAG_ECE) && h->kind != RINA_ACK) ||
      ((h->flags & RINA_FLAG_SUM) && !grad))
    return RINA_OTHER_KINDS_FLAG;
  if (h->groups == 0 || h->groups > RINA_MAX_GROUPS) return RINA_BAD_GROUPS;
  if (h->step == 0 || h->step > 2u * h->groups - 1u || ((task || pull || grad) && h->step > h->groups))
    return RINA_BAD_STEP;
  if (h->chunk >= h->groups) return RINA_BAD_CHUNK;
  if ((task || pull || grad) && (h->members == 0 || h->members > RINA_MAX_MEMBERS)) return RINA_BAD_MEMBERS;
  if (grad && h->member >= h->members) return RINA_BAD_MEMBERS;
  if (h->kind == RINA_ACK && h->members == 0) return RINA_BAD_MEMBERS;
  if ((task || sum) ? h->next == 0 : h->next != 0) return RINA_STRAY_NEXT;
  if (sum && (!(h->next & (1u << h->member)) || (h->next & ~rina_full_bitmap(h->members)))) return RINA_BAD_MEMBERS;
  if (((task || pull || h->kind == RINA_ACK) && h->elements) || h->elements > RINA_ELEMENTS) return RINA_BAD_ELEMENTS;
  return RINA_FINE;
}

#ifdef __cplusplus
}
#endif

#endif /* RINA_PROTO_H */
