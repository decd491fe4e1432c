/* Canary wire format (Canary 4.1), shared by the C handlers (host and RISC-V builds) and the
 * simulator's canary protocol. Canary sends its header straight on Ethernet; flaresim carries it
 * over Ethernet II, IPv4 without options and UDP (fs_packet.h), which 4.1 allows, to
 * CANARY_UDP_PORT_DEFAULT. The 19-byte header, big-endian fields:
 *   0 destination (IPv4 address of the block's leader host) | 4 id (the application id in the
 *   high CANARY_APP_BITS bits, the block's sequence number below, 3.4) | 8 counter (packets
 *   reduced into this one) | 10 hosts (hosts taking part) | 12 children (on a collision: the
 *   ingress port where the switch met it) | 16 switch address (on a collision: the switch) |
 *   18 flags (bit 7 bypass, bit 6 multicast, the low six bits padding, 0)
 * then the data: little-endian int32 elements, CANARY_ELEMENTS of them in a full packet (5). */
#ifndef CANARY_PROTO_H
#define CANARY_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "fs_packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CANARY_UDP_PORT_DEFAULT 4952u
#define CANARY_HEADER_BYTES 19u
#define CANARY_ELEMENTS 256u      /* int32 elements of a full packet (Canary 5) */
#define CANARY_ELEMENT_BYTES 4u
#define CANARY_APP_BITS 8u        /* the id's high bits: the application (multi-tenancy, 3.4) */

#define CANARY_PAYLOAD_OFFSET FS_UDP_PAYLOAD_OFFSET /* where the Canary header starts in a frame */

#define CANARY_OFF_DESTINATION 0u
#define CANARY_OFF_ID 4u
#define CANARY_OFF_COUNTER 8u
#define CANARY_OFF_HOSTS 10u
#define CANARY_OFF_CHILDREN 12u
#define CANARY_OFF_SWITCH 16u
#define CANARY_OFF_FLAGS 18u

#define CANARY_FLAG_BYPASS 0x80u
#define CANARY_FLAG_MULTICAST 0x40u
#define CANARY_FLAG_PADDING 0x3Fu  /* must be 0 */

typedef struct canary_header {
  uint32_t destination, id;
  uint16_t counter, hosts;
  uint32_t children;
  uint16_t switch_address;
  uint8_t flags;
} canary_header_t;

/* The id of application `app`'s block `sequence` (sequence below 2^(32 - CANARY_APP_BITS)). */
static inline uint32_t canary_id(uint32_t app, uint32_t sequence) {
  return (app << (32u - CANARY_APP_BITS)) | (sequence & ((1u << (32u - CANARY_APP_BITS)) - 1u));
}
static inline uint32_t canary_id_app(uint32_t id) { return id >> (32u - CANARY_APP_BITS); }
static inline uint32_t canary_id_sequence(uint32_t id) { return id & ((1u << (32u - CANARY_APP_BITS)) - 1u); }

static inline void canary_decode(const uint8_t* h, canary_header_t* out) {
  out->destination = (uint32_t)fs_be32(h + CANARY_OFF_DESTINATION);
  out->id = (uint32_t)fs_be32(h + CANARY_OFF_ID);
  out->counter = (uint16_t)fs_be16(h + CANARY_OFF_COUNTER);
  out->hosts = (uint16_t)fs_be16(h + CANARY_OFF_HOSTS);
  out->children = (uint32_t)fs_be32(h + CANARY_OFF_CHILDREN);
  out->switch_address = (uint16_t)fs_be16(h + CANARY_OFF_SWITCH);
  out->flags = h[CANARY_OFF_FLAGS];
}

static inline void canary_encode(const canary_header_t* in, uint8_t* h) {
  fs_put_be32(h + CANARY_OFF_DESTINATION, in->destination);
  fs_put_be32(h + CANARY_OFF_ID, in->id);
  fs_put_be16(h + CANARY_OFF_COUNTER, in->counter);
  fs_put_be16(h + CANARY_OFF_HOSTS, in->hosts);
  fs_put_be32(h + CANARY_OFF_CHILDREN, in->children);
  fs_put_be16(h + CANARY_OFF_SWITCH, in->switch_address);
  h[CANARY_OFF_FLAGS] = in->flags;
}

#ifdef __cplusplus
}
#endif

#endif /* CANARY_PROTO_H */
