/* Flare wire format, shared by the C handlers (host and RISC-V builds) and the simulator's
 * flare_dense and flare_sparse protocols: Ethernet II, IPv4 without options, UDP (fs_packet.h),
 * then a 16-byte Flare header (big-endian fields) and the elements (little-endian); sparse
 * packets have a 20-byte header and (index, value) pairs (below, handlers/flare/README.md). */
#ifndef FLARE_PROTO_H
#define FLARE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "fs_packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FLARE_UDP_PORT_DEFAULT 4950u
#define FLARE_VERSION 1u
#define FLARE_HEADER_BYTES 16u
#define FLARE_RANK_SWITCH 0xFFFFu

#define FLARE_PAYLOAD_OFFSET FS_UDP_PAYLOAD_OFFSET /* where the Flare header starts in a frame */

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

/* Sparse packets (Flare section 7; handlers/flare/README.md): the kind byte's high bits are flags,
 * the header grows to 20 bytes (the shard fields), and elem_count counts (index, value) pairs:
 * a little-endian u32 index within the block, then the value in the dtype's little-endian bytes
 * (8 bytes a pair for int32/float32, 6 for int16, 5 for int8). A sender never puts two blocks in
 * one packet; it numbers its packets for a block from 0 (shard) and flags the last one, which
 * carries the number of packets it sent for the block (shards); an all-zero block is one
 * header-only last packet. */
#define FLARE_FLAG_SPARSE 0x80u /* in the kind byte: a sparse packet */
#define FLARE_FLAG_LAST 0x40u   /* sparse: the sender's last packet for the block (shards is set) */
#define FLARE_KIND_MASK 0x0Fu   /* the kind byte's kind (enum flare_kind) */
#define FLARE_SPARSE_HEADER_BYTES 20u
#define FLARE_OFF_SHARD 16u  /* u16: the packet's number among its sender's packets for the block */
#define FLARE_OFF_SHARDS 18u /* u16: with FLARE_FLAG_LAST, how many packets the sender sent for it; else 0 */
#define FLARE_SPARSE_INDEX_BYTES 4u

typedef struct flare_sparse_header {
  uint8_t version, kind /* enum flare_kind */, flags /* FLARE_FLAG_* */, dtype, op;
  uint32_t allreduce_id, block_id;
  uint16_t sender_rank, pair_count, shard, shards;
} flare_sparse_header_t;

/* Bytes of one (index, value) pair of a dtype, 0 for an unknown dtype. */
static inline uint32_t flare_pair_bytes(uint32_t dtype) {
  const uint32_t v = flare_dtype_bytes(dtype);
  return v ? FLARE_SPARSE_INDEX_BYTES + v : 0;
}

static inline void flare_sparse_decode(const uint8_t* h, flare_sparse_header_t* out) {
  out->version = h[FLARE_OFF_VERSION];
  out->kind = (uint8_t)(h[FLARE_OFF_KIND] & FLARE_KIND_MASK);
  out->flags = (uint8_t)(h[FLARE_OFF_KIND] & ~FLARE_KIND_MASK);
  out->dtype = h[FLARE_OFF_DTYPE];
  out->op = h[FLARE_OFF_OP];
  out->allreduce_id = fs_be32(h + FLARE_OFF_ALLREDUCE);
  out->block_id = fs_be32(h + FLARE_OFF_BLOCK);
  out->sender_rank = (uint16_t)fs_be16(h + FLARE_OFF_RANK);
  out->pair_count = (uint16_t)fs_be16(h + FLARE_OFF_COUNT);
  out->shard = (uint16_t)fs_be16(h + FLARE_OFF_SHARD);
  out->shards = (uint16_t)fs_be16(h + FLARE_OFF_SHARDS);
}

static inline void flare_sparse_encode(const flare_sparse_header_t* in, uint8_t* h) {
  h[FLARE_OFF_VERSION] = in->version;
  h[FLARE_OFF_KIND] = (uint8_t)((in->kind & FLARE_KIND_MASK) | in->flags | FLARE_FLAG_SPARSE);
  h[FLARE_OFF_DTYPE] = in->dtype;
  h[FLARE_OFF_OP] = in->op;
  fs_put_be32(h + FLARE_OFF_ALLREDUCE, in->allreduce_id);
  fs_put_be32(h + FLARE_OFF_BLOCK, in->block_id);
  fs_put_be16(h + FLARE_OFF_RANK, in->sender_rank);
  fs_put_be16(h + FLARE_OFF_COUNT, in->pair_count);
  fs_put_be16(h + FLARE_OFF_SHARD, in->shard);
  fs_put_be16(h + FLARE_OFF_SHARDS, in->shards);
}

#ifdef __cplusplus
}
#endif
#endif /* FLARE_PROTO_H */
