/* Flare dense aggregation with a single buffer per block: each contribution is folded into its
 * block's buffer in the L1 of the block's home cluster; the contribution that completes the
 * block turns the packet into the result and multicasts it to every child port. A bitmap of
 * ranks makes a retransmitted contribution harmless. Supports int32/int16/int8/float32 with
 * sum, min and max. */
#include "flare_dense.h"

#include <stddef.h>
#include <string.h>

/* Element data in a packet starts 58 bytes into the frame, so it is only 2-byte aligned; the
 * HPU core (RI5CY) loads and stores misaligned words in hardware, so the folds and copies use
 * word accesses through memcpy, which the RISC-V build (-mno-strict-align) turns into lw/sw. */
static void copy_bytes(uint8_t* dst, const uint8_t* src, uint32_t n) {
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t w;
    memcpy(&w, src + i, 4);
    memcpy(dst + i, &w, 4);
  }
  for (; i < n; ++i) dst[i] = src[i];
}

#define DEFINE_FOLD(name, type, expr)                                    \
  static void name(uint8_t* acc, const uint8_t* in, uint32_t n) {        \
    uint32_t i;                                                           \
    _Pragma("GCC unroll 4")                                               \
    for (i = 0; i < n; ++i) {                                             \
      type a, b;                                                          \
      memcpy(&a, acc + i * sizeof(type), sizeof(type));                   \
      memcpy(&b, in + i * sizeof(type), sizeof(type));                    \
      a = (expr);                                                         \
      memcpy(acc + i * sizeof(type), &a, sizeof(type));                   \
    }                                                                     \
  }

/* Integer sums wrap (two's complement), computed on unsigned types to stay defined in C. */
DEFINE_FOLD(sum_i32, uint32_t, (uint32_t)(a + b))
DEFINE_FOLD(sum_i16, uint16_t, (uint16_t)(a + b))
DEFINE_FOLD(sum_i8, uint8_t, (uint8_t)(a + b))
DEFINE_FOLD(sum_f32, float, a + b)
DEFINE_FOLD(min_i32, int32_t, (b < a ? b : a))
DEFINE_FOLD(min_i16, int16_t, (b < a ? b : a))
DEFINE_FOLD(min_i8, int8_t, (b < a ? b : a))
DEFINE_FOLD(min_f32, float, (b < a ? b : a))
DEFINE_FOLD(max_i32, int32_t, (b > a ? b : a))
DEFINE_FOLD(max_i16, int16_t, (b > a ? b : a))
DEFINE_FOLD(max_i8, int8_t, (b > a ? b : a))
DEFINE_FOLD(max_f32, float, (b > a ? b : a))

typedef void (*fold_fn)(uint8_t*, const uint8_t*, uint32_t);

/* [op][dtype]; a handler author adds an operator by adding a row and an enum value. */
static const fold_fn folds[3][4] = {
    {sum_i32, sum_i16, sum_i8, sum_f32},
    {min_i32, min_i16, min_i8, min_f32},
    {max_i32, max_i16, max_i8, max_f32},
};

/* Rewrites the contribution frame in place into the result frame for the hosts. */
static uint32_t make_result(uint8_t* pkt, const flare_block_slot_t* slot, const uint8_t* data) {
  const uint32_t bytes = (uint32_t)slot->elem_count * flare_dtype_bytes(slot->dtype);
  uint8_t* ip = pkt + FS_ETH_BYTES;
  uint8_t* udp = ip + FS_IPV4_BYTES;
  uint8_t* fh = udp + FS_UDP_BYTES;
  flare_header_t h;
  uint32_t i;
  for (i = 0; i < 6; ++i) pkt[i] = 0xFF; /* broadcast to the hosts */
  fs_switch_mac(pkt + 6);
  fs_put_be16(ip + 2, FS_IPV4_BYTES + FS_UDP_BYTES + FLARE_HEADER_BYTES + bytes);
  ip[8] = 64;
  fs_put_be32(ip + 12, FS_SWITCH_IPV4);
  fs_put_be32(ip + 16, FS_HOSTS_BROADCAST_IPV4);
  fs_put_be16(ip + 10, 0);
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  fs_put_be16(udp + 4, FS_UDP_BYTES + FLARE_HEADER_BYTES + bytes);
  fs_put_be16(udp + 6, 0); /* no UDP checksum (allowed over IPv4) */
  h.version = FLARE_VERSION;
  h.kind = FLARE_KIND_RESULT;
  h.dtype = slot->dtype;
  h.op = slot->op;
  h.allreduce_id = slot->allreduce_id;
  h.block_id = slot->block_id;
  h.sender_rank = FLARE_RANK_SWITCH;
  h.elem_count = slot->elem_count;
  flare_encode(&h, fh);
  fs_dma_copy(fh + FLARE_HEADER_BYTES, data, bytes); /* the cluster DMA copies the result */
  return FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES + bytes;
}

/* Folds one contribution into its block's buffer; called with the buffer's lock held. When the
 * block is complete, rewrites the packet into the result (still under the lock: the buffer may
 * be reused as soon as it is released). */
static int aggregate(flare_block_slot_t* slot, uint8_t* data, const flare_header_t* h, uint8_t* pkt, uint32_t bytes,
                     uint32_t n_children) {
  const uint8_t* elems = pkt + FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES;
  if (!slot->busy) {
    /* A retransmission that arrives after its block's result went out must not start the
     * block again (it would hold the buffer for good). */
    if (slot->completed && slot->allreduce_id == h->allreduce_id && slot->block_id == h->block_id)
      return FLARE_DENSE_DUPLICATE;
    memset(&slot->busy, 0, sizeof(*slot) - offsetof(flare_block_slot_t, busy));
    slot->busy = 1;
    slot->allreduce_id = h->allreduce_id;
    slot->block_id = h->block_id;
    slot->elem_count = h->elem_count;
    slot->dtype = h->dtype;
    slot->op = h->op;
    copy_bytes(data, elems, bytes);
  } else {
    if (slot->allreduce_id != h->allreduce_id || slot->block_id != h->block_id) return FLARE_DENSE_BUFFER_BUSY;
    if (slot->children[h->sender_rank / 32] & (1u << (h->sender_rank % 32))) return FLARE_DENSE_DUPLICATE;
    if (slot->elem_count != h->elem_count || slot->dtype != h->dtype || slot->op != h->op) return FLARE_DENSE_MISMATCH;
    folds[h->op][h->dtype](data, elems, h->elem_count);
  }
  slot->children[h->sender_rank / 32] |= 1u << (h->sender_rank % 32);
  slot->received++;
  if (slot->received < n_children) return FS_OK;
  make_result(pkt, slot, data);
  slot->busy = 0;
  slot->completed = 1;
  return FLARE_DENSE_RESULT_SENT;
}

int flare_dense_handler(const fs_handler_args_t* args) {
  const flare_dense_config_t* cfg = (const flare_dense_config_t*)args->handler_mem;
  flare_header_t h;
  uint32_t dsize, bytes, home, slot_bytes, l1_size = 0;
  uint8_t* l1;
  flare_block_slot_t* slot;
  uint8_t* data;
  int outcome;

  if (args->handler_mem_size < sizeof(*cfg) || cfg->magic != FLARE_DENSE_MAGIC) return FLARE_DENSE_NOT_INSTALLED;
  if (args->pkt_len < FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES) return FLARE_DENSE_MALFORMED;
  /* The wire format is Ethernet II, IPv4 without options, UDP: the Flare header sits at 42. */
  if (fs_be16(args->pkt + 12) != FS_ETHERTYPE_IPV4 || args->pkt[FS_ETH_BYTES] != 0x45 ||
      args->pkt[FS_ETH_BYTES + 9] != FS_IPPROTO_UDP)
    return FLARE_DENSE_MALFORMED;
  flare_decode(args->pkt + FLARE_PAYLOAD_OFFSET, &h);
  dsize = flare_dtype_bytes(h.dtype);
  bytes = (uint32_t)h.elem_count * dsize;
  /* The UDP payload must be exactly the header and elem_count elements: a count that claims
   * more (or less) than the packet carries would fold Ethernet padding or drop data. */
  if (h.version != FLARE_VERSION || h.kind != FLARE_KIND_CONTRIB || dsize == 0 || h.op > FLARE_OP_MAX ||
      h.elem_count == 0 || args->pkt_len < FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES + bytes ||
      fs_be16(args->pkt + FS_ETH_BYTES + FS_IPV4_BYTES + 4) != FS_UDP_BYTES + FLARE_HEADER_BYTES + bytes)
    return FLARE_DENSE_MALFORMED;
  if (h.sender_rank >= cfg->n_children) return FLARE_DENSE_BAD_RANK;
  if (bytes > cfg->slot_payload) return FLARE_DENSE_TOO_LARGE;

  home = h.block_id % args->num_clusters;
  l1 = fs_cluster_l1(home, &l1_size);
  slot_bytes = flare_dense_slot_bytes(cfg->slot_payload);
  slot = (flare_block_slot_t*)(l1 + (size_t)((h.block_id / args->num_clusters) % cfg->slots_per_cluster) * slot_bytes);
  data = (uint8_t*)(slot + 1);

  fs_lock(&slot->lock);
  outcome = aggregate(slot, data, &h, args->pkt, bytes, cfg->n_children);
  fs_unlock(&slot->lock);
  if (outcome == FLARE_DENSE_RESULT_SENT)
    fs_multicast(args->pkt, FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES + bytes, cfg->ports, cfg->n_children);
  return outcome;
}

/* Names of the outcome codes, in the order of enum flare_dense_outcome. */
static const fs_outcome_desc_t flare_dense_outcomes[] = {
    {"ok", 0},        {"result_sent", 0}, {"malformed", 1}, {"bad_rank", 1},      {"duplicate", 1},
    {"buffer_busy", 1}, {"too_large", 1}, {"mismatch", 1},  {"not_installed", 1},
};
FS_HANDLER_SET(flare_dense, "Flare dense allreduce, one buffer per block (int32/int16/int8/float32; sum/min/max)",
               FLARE_OFF_BLOCK, flare_dense_outcomes);
