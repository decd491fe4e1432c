/* NetReduce's wire format (NetReduce 3.1-3.2, Fig. 4), shared by the C handlers (host and RISC-V
 * builds) and the simulator's netreduce protocol: RoCEv2 (Ethernet II, IPv4, UDP to port 4791,
 * the InfiniBand base transport header, its extension headers, the payload, the invariant CRC)
 * carrying RDMA writes of the hosts' ring connections, whose messages start with the INA header.
 *
 * BTH, 12 bytes (big-endian fields): 0 opcode | 1 solicited event (bit 7), migration request
 * (bit 6), pad count (bits 5-4: payload bytes added to reach a multiple of 4), transport header
 * version (bits 3-0, 0) | 2 partition key | 4 FECN, BECN, reserved (the ICRC covers them as
 * ones) | 5 destination queue pair (24 bits) | 8 acknowledge request (bit 7), reserved | 9 PSN
 * (24 bits).
 * Then, by opcode (reliable connection only): RETH, 16 bytes (virtual address 64 bits, remote key
 * 32, DMA length 32) on the first packet of an RDMA write; immediate data, 4 bytes, on the last;
 * AETH, 4 bytes (syndrome 8 bits, message sequence number 24) on an acknowledgement.
 *
 * The INA header, 8 bytes at the start of every message's data (so in its first packet only):
 * 0 InetTag (NETREDUCE_INET_TAG, big-endian) | 4 RingID | 5 MsgID | 6 MsgLen (packets in the
 * message) | 7 Rank (the sender's in the ring). The gradient elements follow it. */
#ifndef NETREDUCE_PROTO_H
#define NETREDUCE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "fs_packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_UDP_PORT 4791u
#define ROCE_BTH_BYTES 12u
#define ROCE_RETH_BYTES 16u
#define ROCE_IMM_BYTES 4u
#define ROCE_AETH_BYTES 4u
#define ROCE_ICRC_BYTES 4u
#define ROCE_BTH_OFFSET FS_UDP_PAYLOAD_OFFSET /* in a frame of fs_packet.h's layout */
#define ROCE_PSN_MASK 0xFFFFFFu
#define ROCE_QP_MASK 0xFFFFFFu
#define ROCE_DEFAULT_PKEY 0xFFFFu

/* Reliable-connection opcodes (the transport's high bits 000). */
#define ROCE_RC_WRITE_FIRST 0x06u
#define ROCE_RC_WRITE_MIDDLE 0x07u
#define ROCE_RC_WRITE_LAST 0x08u
#define ROCE_RC_WRITE_LAST_IMM 0x09u
#define ROCE_RC_WRITE_ONLY 0x0Au
#define ROCE_RC_WRITE_ONLY_IMM 0x0Bu
#define ROCE_RC_ACK 0x11u

/* AETH syndromes: an ACK (credit count 31: no end-to-end flow control), a NAK for a PSN
 * sequence error (the receiver saw a gap: the sender goes back to the AETH's PSN). */
#define ROCE_AETH_ACK 0x1Fu
#define ROCE_AETH_NAK_SEQUENCE 0x60u

#define NETREDUCE_INET_TAG 0x494E4131u /* "INA1" */
#define NETREDUCE_INA_BYTES 8u

typedef struct roce_bth {
  uint8_t opcode;
  uint8_t solicited, migration, pad_count; /* pad_count 0-3 */
  uint16_t pkey;
  uint32_t dest_qp; /* 24 bits */
  uint8_t ack_request;
  uint32_t psn; /* 24 bits */
} roce_bth_t;

typedef struct roce_reth {
  uint64_t virtual_address;
  uint32_t remote_key, dma_length;
} roce_reth_t;

typedef struct roce_aeth {
  uint8_t syndrome;
  uint32_t msn; /* 24 bits */
} roce_aeth_t;

typedef struct netreduce_ina {
  uint32_t inet_tag;
  uint8_t ring_id, msg_id, msg_len, rank;
} netreduce_ina_t;

/* Which extension headers follow the BTH for an opcode this format uses (0 for the others). */
static inline int roce_has_reth(uint8_t op) {
  return op == ROCE_RC_WRITE_FIRST || op == ROCE_RC_WRITE_ONLY || op == ROCE_RC_WRITE_ONLY_IMM;
}
static inline int roce_has_imm(uint8_t op) { return op == ROCE_RC_WRITE_LAST_IMM || op == ROCE_RC_WRITE_ONLY_IMM; }
static inline int roce_has_aeth(uint8_t op) { return op == ROCE_RC_ACK; }
static inline int roce_is_write(uint8_t op) { return op >= ROCE_RC_WRITE_FIRST && op <= ROCE_RC_WRITE_ONLY_IMM; }
/* Bytes of the extension headers an opcode carries after the BTH. */
static inline unsigned roce_extension_bytes(uint8_t op) {
  return (roce_has_reth(op) ? ROCE_RETH_BYTES : 0u) + (roce_has_imm(op) ? ROCE_IMM_BYTES : 0u) +
         (roce_has_aeth(op) ? ROCE_AETH_BYTES : 0u);
}

/* (a - b) mod 2^24 as a signed distance in -2^23 .. 2^23 - 1: how far PSN a is past PSN b. */
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b) {
  return (int32_t)(((a - b) & ROCE_PSN_MASK) << 8) >> 8;
}

static inline void roce_bth_decode(const uint8_t* h, roce_bth_t* out) {
  out->opcode = h[0];
  out->solicited = (uint8_t)(h[1] >> 7);
  out->migration = (uint8_t)((h[1] >> 6) & 1u);
  out->pad_count = (uint8_t)((h[1] >> 4) & 3u);
  out->pkey = (uint16_t)fs_be16(h + 2);
  out->dest_qp = (uint32_t)fs_be32(h + 4) & ROCE_QP_MASK;
  out->ack_request = (uint8_t)(h[8] >> 7);
  out->psn = (uint32_t)fs_be32(h + 8) & ROCE_PSN_MASK;
}

/* Header version 0; FECN, BECN and the reserved bits 0. */
static inline void roce_bth_encode(const roce_bth_t* in, uint8_t* h) {
  h[0] = in->opcode;
  h[1] = (uint8_t)((in->solicited & 1u) << 7 | (in->migration & 1u) << 6 | (in->pad_count & 3u) << 4);
  fs_put_be16(h + 2, in->pkey);
  fs_put_be32(h + 4, in->dest_qp & ROCE_QP_MASK);
  fs_put_be32(h + 8, (uint32_t)(in->ack_request & 1u) << 31 | (in->psn & ROCE_PSN_MASK));
}

static inline void roce_reth_decode(const uint8_t* h, roce_reth_t* out) {
  out->virtual_address = (uint64_t)fs_be32(h) << 32 | (uint64_t)fs_be32(h + 4);
  out->remote_key = (uint32_t)fs_be32(h + 8);
  out->dma_length = (uint32_t)fs_be32(h + 12);
}

static inline void roce_reth_encode(const roce_reth_t* in, uint8_t* h) {
  fs_put_be32(h, (uint32_t)(in->virtual_address >> 32));
  fs_put_be32(h + 4, (uint32_t)in->virtual_address);
  fs_put_be32(h + 8, in->remote_key);
  fs_put_be32(h + 12, in->dma_length);
}

static inline void roce_aeth_decode(const uint8_t* h, roce_aeth_t* out) {
  out->syndrome = h[0];
  out->msn = (uint32_t)fs_be32(h) & 0xFFFFFFu;
}

static inline void roce_aeth_encode(const roce_aeth_t* in, uint8_t* h) {
  fs_put_be32(h, (uint32_t)in->syndrome << 24 | (in->msn & 0xFFFFFFu));
}

static inline void netreduce_ina_decode(const uint8_t* h, netreduce_ina_t* out) {
  out->inet_tag = (uint32_t)fs_be32(h);
  out->ring_id = h[4], out->msg_id = h[5], out->msg_len = h[6], out->rank = h[7];
}

static inline void netreduce_ina_encode(const netreduce_ina_t* in, uint8_t* h) {
  fs_put_be32(h, in->inet_tag);
  h[4] = in->ring_id, h[5] = in->msg_id, h[6] = in->msg_len, h[7] = in->rank;
}

#ifdef __cplusplus
}
#endif

#endif /* NETREDUCE_PROTO_H */
