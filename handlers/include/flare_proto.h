/* Flare wire format, shared by the C handlers (host and RISC-V builds) and the C++ simulator:
 * Ethernet II, IPv4 without options, UDP, then a 16-byte Flare header (big-endian fields) and
 * the elements (little-endian). Also the host addressing convention used by generated traces. */
#ifndef FLARE_PROTO_H
#define FLARE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLARE_UDP_PORT_DEFAULT 4950u
#define FLARE_VERSION 1u
#define FLARE_HEADER_BYTES 16u
#define FLARE_RANK_SWITCH 0xFFFFu

/* Frame layout: Ethernet II (14) + IPv4 without options (20) + UDP (8) = 42 bytes of headers. */
#define FS_ETH_BYTES 14u
#define FS_IPV4_BYTES 20u
#define FS_UDP_BYTES 8u
#define FS_ETHERTYPE_IPV4 0x0800u
#define FS_IPPROTO_UDP 17u
#define FLARE_PAYLOAD_OFFSET (FS_ETH_BYTES + FS_IPV4_BYTES + FS_UDP_BYTES) /* Flare header */

enum flare_kind { FLARE_KIND_CONTRIB = 0, FLARE_KIND_RESULT = 1 };
enum flare_dtype { FLARE_INT32 = 0, FLARE_INT16 = 1, FLARE_INT8 = 2, FLARE_FLOAT32 = 3 };
/* A handler author adds an operator by adding a value before FLARE_OP_COUNT and its row of
 * folds in handlers/flare/flare_dense.c. */
enum flare_op { FLARE_OP_SUM = 0, FLARE_OP_MIN = 1, FLARE_OP_MAX = 2, FLARE_OP_COUNT };

/* Offsets inside the 16-byte Flare header. */
#define FLARE_OFF_VERSION 0u
#define FLARE_OFF_KIND 1u
#define FLARE_OFF_DTYPE 2u
#define FLARE_OFF_OP 3u
#define FLARE_OFF_ALLREDUCE 4u
#define FLARE_OFF_BLOCK 8u
#define FLARE_OFF_RANK 12u
#define FLARE_OFF_COUNT 14u

typedef struct flare_header {
  uint8_t version, kind, dtype, op;
  uint32_t allreduce_id, block_id;
  uint16_t sender_rank, elem_count;
} flare_header_t;

static inline uint32_t fs_be16(const uint8_t* p) { return ((uint32_t)p[0] << 8) | p[1]; }
static inline uint32_t fs_be32(const uint8_t* p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline void fs_put_be16(uint8_t* p, uint32_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void fs_put_be32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* Bytes per element of a dtype, 0 for an unknown dtype. */
static inline uint32_t flare_dtype_bytes(uint32_t dtype) {
  switch (dtype) {
    case FLARE_INT32: case FLARE_FLOAT32: return 4;
    case FLARE_INT16: return 2;
    case FLARE_INT8: return 1;
    default: return 0;
  }
}

static inline void flare_decode(const uint8_t* h, flare_header_t* out) {
  out->version = h[FLARE_OFF_VERSION];
  out->kind = h[FLARE_OFF_KIND];
  out->dtype = h[FLARE_OFF_DTYPE];
  out->op = h[FLARE_OFF_OP];
  out->allreduce_id = fs_be32(h + FLARE_OFF_ALLREDUCE);
  out->block_id = fs_be32(h + FLARE_OFF_BLOCK);
  out->sender_rank = (uint16_t)fs_be16(h + FLARE_OFF_RANK);
  out->elem_count = (uint16_t)fs_be16(h + FLARE_OFF_COUNT);
}

static inline void flare_encode(const flare_header_t* in, uint8_t* h) {
  h[FLARE_OFF_VERSION] = in->version;
  h[FLARE_OFF_KIND] = in->kind;
  h[FLARE_OFF_DTYPE] = in->dtype;
  h[FLARE_OFF_OP] = in->op;
  fs_put_be32(h + FLARE_OFF_ALLREDUCE, in->allreduce_id);
  fs_put_be32(h + FLARE_OFF_BLOCK, in->block_id);
  fs_put_be16(h + FLARE_OFF_RANK, in->sender_rank);
  fs_put_be16(h + FLARE_OFF_COUNT, in->elem_count);
}

/* Internet checksum (RFC 1071) over `len` bytes, as stored in the IPv4 header. */
static inline uint16_t fs_ipv4_checksum(const uint8_t* p, size_t len) {
  uint32_t sum = 0;
  size_t i;
  for (i = 0; i + 1 < len; i += 2) sum += ((uint32_t)p[i] << 8) | p[i + 1];
  if (len & 1) sum += (uint32_t)p[len - 1] << 8;
  while (sum >> 16) sum = (sum & 0xFFFFu) + (sum >> 16);
  return (uint16_t)~sum;
}

/* Host addressing convention of generated traces: the host on switch port p has MAC
 * 02:00:00:00:(p>>8):(p&255) and IPv4 10.1.(p>>8).(p&255); the switch itself uses MAC
 * 02:00:00:ff:ff:ff and IPv4 10.0.0.1. Result packets go to the broadcast MAC and 10.1.255.255. */
#define FS_SWITCH_IPV4 0x0A000001u
#define FS_HOSTS_BROADCAST_IPV4 0x0A01FFFFu
static inline uint32_t fs_host_ipv4(uint32_t port) { return 0x0A010000u | (port & 0xFFFFu); }
static inline void fs_host_mac(uint32_t port, uint8_t mac[6]) {
  mac[0] = 0x02; mac[1] = 0; mac[2] = 0; mac[3] = 0; mac[4] = (uint8_t)(port >> 8); mac[5] = (uint8_t)port;
}
static inline void fs_switch_mac(uint8_t mac[6]) {
  mac[0] = 0x02; mac[1] = 0; mac[2] = 0; mac[3] = 0xff; mac[4] = 0xff; mac[5] = 0xff;
}

#ifdef __cplusplus
}
#endif
#endif /* FLARE_PROTO_H */
