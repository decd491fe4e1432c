/* Flare dense aggregation: the packet checks, the allreduce table lookup, block admission (a
 * bitmap of ranks makes a retransmitted contribution harmless), the element folds, results (to
 * the children at the root, to the parent below it) and the single-buffer algorithm: each
 * contribution is folded into its block's buffer in the L1 of the block's home cluster inside a
 * critical section. The multiple-buffer and tree algorithms are in flare_multi_tree.c.
 * Supports int32/int16/int8/float32 with sum, min and max. */
#include "flare_internal.h"

#include <stddef.h>
#include <string.h>

/* Element data in a packet starts 58 bytes into the frame, which the switch puts 2 bytes into the
 * HPU's packet slot (FS_PKT_FRAME_OFFSET, as PsPIN aligns its packets' IPv4 headers), so the
 * elements are word-aligned and the fold's loads cost no misalignment cycle. The folds access
 * words through memcpy (no alignment or aliasing assumption in C), which the RISC-V build turns
 * into single lw/sw. Copies (a block's first contribution into its buffer, the result into the
 * packet) go through the cluster DMA, as Flare assumes (section 6.3: 64 cycles for 1 KiB instead
 * of the core's loop). */

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

#if defined(FS_XPULP) && defined(__riscv)
#include "fs_xpulp.h"

/* With RI5CY's Xpulp (hpu.isa = rv32imafc_xpulp), the integer folds run two words a turn in a
 * hardware loop, the packet's words read with post-increment loads and the buffer's written with
 * post-increment stores, and int16/int8 combine two or four elements per instruction with packed
 * SIMD (Flare section 6.4): 8 instructions for 2 words, scheduled so that no instruction uses the
 * value loaded just before it. What is left over (fewer than 8 bytes) goes through the plain
 * fold. `combine` is one fs_xpulp.h instruction text macro (rd, rs1, rs2). */
#define DEFINE_XP_FOLD(name, plain, elem_bytes, combine)                                       \
  static void name(uint8_t* acc, const uint8_t* in, uint32_t n) {                             \
    const uint32_t pairs = n * (elem_bytes) / 8, done = pairs * 8 / (elem_bytes);              \
    uint32_t a0, a1, b0, b1;                                                                   \
    if (pairs) {                                                                               \
      __asm__ volatile(FS_XP_LOOP_BEGIN(0, "%[pairs]")                                     \
                       FS_XP_LW_PI("%[b0]", "%[in]", 4)                                        \
                       FS_XP_LW_PI("%[b1]", "%[in]", 4)                                        \
                       "lw %[a0], 0(%[acc])\n\t"                                               \
                       "lw %[a1], 4(%[acc])\n\t"                                               \
                       combine("%[a0]", "%[a0]", "%[b0]")                                      \
                       combine("%[a1]", "%[a1]", "%[b1]")                                      \
                       FS_XP_SW_PI("%[a0]", "%[acc]", 4)                                       \
                       FS_XP_LOOP_LAST(0)                                                      \
                       FS_XP_SW_PI("%[a1]", "%[acc]", 4)                                       \
                       FS_XP_LOOP_END                                                          \
                       : [in] "+r"(in), [acc] "+r"(acc), [a0] "=&r"(a0), [a1] "=&r"(a1),      \
                         [b0] "=&r"(b0), [b1] "=&r"(b1)                                        \
                       : [pairs] "r"(pairs)                                                    \
                       : "memory");                                                            \
    }                                                                                          \
    if (done < n) plain(acc, in, n - done);                                                    \
  }
DEFINE_XP_FOLD(xp_sum_i32, sum_i32, 4, FS_XP_ADD)
DEFINE_XP_FOLD(xp_sum_i16, sum_i16, 2, FS_XP_ADD_H)
DEFINE_XP_FOLD(xp_sum_i8, sum_i8, 1, FS_XP_ADD_B)
DEFINE_XP_FOLD(xp_min_i32, min_i32, 4, FS_XP_MIN)
DEFINE_XP_FOLD(xp_min_i16, min_i16, 2, FS_XP_MIN_H)
DEFINE_XP_FOLD(xp_min_i8, min_i8, 1, FS_XP_MIN_B)
DEFINE_XP_FOLD(xp_max_i32, max_i32, 4, FS_XP_MAX)
DEFINE_XP_FOLD(xp_max_i16, max_i16, 2, FS_XP_MAX_H)
DEFINE_XP_FOLD(xp_max_i8, max_i8, 1, FS_XP_MAX_B)

/* float32 sums: two elements a turn, no post-increment for the FP loads (RI5CY has none). */
static void xp_sum_f32(uint8_t* acc, const uint8_t* in, uint32_t n) {
  const uint32_t pairs = n / 2;
  float a0, a1, b0, b1;
  if (pairs) {
    __asm__ volatile(FS_XP_LOOP_BEGIN(0, "%[pairs]")
                     "flw %[b0], 0(%[in])\n\t"
                     "flw %[b1], 4(%[in])\n\t"
                     "flw %[a0], 0(%[acc])\n\t"
                     "flw %[a1], 4(%[acc])\n\t"
                     "addi %[in], %[in], 8\n\t"
                     "fadd.s %[a0], %[a0], %[b0]\n\t"
                     "fadd.s %[a1], %[a1], %[b1]\n\t"
                     "fsw %[a0], 0(%[acc])\n\t"
                     "fsw %[a1], 4(%[acc])\n\t"
                     FS_XP_LOOP_LAST(0)
                     "addi %[acc], %[acc], 8\n\t"
                     FS_XP_LOOP_END
                     : [in] "+r"(in), [acc] "+r"(acc), [a0] "=&f"(a0), [a1] "=&f"(a1), [b0] "=&f"(b0), [b1] "=&f"(b1)
                     : [pairs] "r"(pairs)
                     : "memory");
  }
  if (n & 1) sum_f32(acc, in, 1);
}

static const flare_fold_fn folds[FLARE_OP_COUNT][4] = {
    {xp_sum_i32, xp_sum_i16, xp_sum_i8, xp_sum_f32},
    {xp_min_i32, xp_min_i16, xp_min_i8, min_f32},
    {xp_max_i32, xp_max_i16, xp_max_i8, max_f32},
};
#else
/* [op][dtype]; a handler author adds an operator by adding a row here and a value before
 * FLARE_OP_COUNT in enum flare_op (flare_proto.h). */
static const flare_fold_fn folds[FLARE_OP_COUNT][4] = {
    {sum_i32, sum_i16, sum_i8, sum_f32},
    {min_i32, min_i16, min_i8, min_f32},
    {max_i32, max_i16, max_i8, max_f32},
};
#endif


flare_fold_fn flare_fold_for(uint32_t op, uint32_t dtype) { return folds[op][dtype]; }

uint32_t flare_build_result(flare_ctx_t* c, const uint8_t* data) {
  const flare_block_state_t* st = c->st;
  const uint32_t bytes = (uint32_t)st->elem_count * flare_dtype_bytes(st->dtype);
  const int up = c->ar->parent_port != FLARE_NO_PARENT;
  uint8_t* pkt = c->args->pkt;
  uint8_t* ip = pkt + FS_ETH_BYTES;
  uint8_t* udp = ip + FS_IPV4_BYTES;
  uint8_t* fh = udp + FS_UDP_BYTES;
  flare_header_t h;
  uint32_t i;
  for (i = 0; i < 6; ++i) pkt[i] = 0xFF; /* broadcast (to the hosts, or to the parent switch) */
  fs_switch_mac(pkt + 6);
  fs_put_be16(ip + 2, FS_IPV4_BYTES + FS_UDP_BYTES + FLARE_HEADER_BYTES + bytes);
  ip[8] = 64;
  fs_put_be32(ip + 12, FS_SWITCH_IPV4);
  fs_put_be32(ip + 16, up ? FS_SWITCH_IPV4 : FS_HOSTS_BROADCAST_IPV4);
  fs_put_be16(ip + 10, 0);
  fs_put_be16(ip + 10, fs_ipv4_checksum(ip, FS_IPV4_BYTES));
  fs_put_be16(udp + 4, FS_UDP_BYTES + FLARE_HEADER_BYTES + bytes);
  fs_put_be16(udp + 6, 0); /* no UDP checksum (allowed over IPv4) */
  h.version = FLARE_VERSION;
  h.kind = up ? FLARE_KIND_CONTRIB : FLARE_KIND_RESULT;
  h.dtype = st->dtype;
  h.op = st->op;
  h.allreduce_id = st->allreduce_id;
  h.block_id = st->block_id;
  h.sender_rank = up ? (uint16_t)c->ar->rank_at_parent : FLARE_RANK_SWITCH;
  h.elem_count = st->elem_count;
  flare_encode(&h, fh);
  fs_dma_copy(fh + FLARE_HEADER_BYTES, data, bytes); /* the cluster DMA copies the aggregate */
  return FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES + bytes;
}

int flare_send_result(flare_ctx_t* c, uint32_t len) {
  if (c->ar->parent_port != FLARE_NO_PARENT) {
    fs_send(c->args->pkt, len, c->ar->parent_port);
    return FLARE_DENSE_SENT_UP;
  }
  fs_multicast(c->args->pkt, len, c->ports, c->ar->n_children);
  return FLARE_DENSE_RESULT_SENT;
}

void flare_release(flare_block_state_t* st) {
  st->busy = 0;
  st->completed = 1;
}

void flare_start_block(flare_ctx_t* c) {
  flare_block_state_t* st = c->st;
  const flare_header_t* h = &c->h;
  const uint32_t n = c->ar->n_children;
  uint32_t i;
  /* The header from `busy` on: counters and the bitmap words the children use. */
  flare_clear_words(&st->busy, (uint32_t)(offsetof(flare_block_state_t, children) - offsetof(flare_block_state_t, busy)) / 4u +
                                   (n + 31u) / 32u);
  if (c->ar->algorithm == FLARE_ALGO_TREE) {
    /* The nodes' counters (heap numbers 1 .. 2^levels - 1); the tree uses no buffer flags. */
    flare_clear_words(flare_tree_counter_base(c), 1u << flare_tree_levels(n));
  } else {
    for (i = 0; i < c->ar->buffers; ++i) {
      flare_buffer_t* b = flare_buffer(c, i);
      b->lock = 0;
      b->filled = 0;
    }
  }
  st->busy = 1;
  st->allreduce_id = h->allreduce_id;
  st->block_id = h->block_id;
  st->elem_count = h->elem_count;
  st->dtype = h->dtype;
  st->op = h->op;
}

/* Single buffer: the whole fold happens with the block's lock held; the contribution that
 * completes the block turns the packet into the result, still under the lock (the buffer may be
 * reused as soon as it is released). */
static int flare_single(flare_ctx_t* c) {
  flare_block_state_t* st = c->st;
  flare_buffer_t* b = flare_buffer(c, 0);
  uint32_t len = 0;
  int outcome;
  fs_lock(&st->lock);
  outcome = flare_admit(c);
  if (outcome == FS_OK) {
    if (!b->filled) {
      fs_dma_copy(flare_buffer_data(b), c->elems, c->bytes);  /* the cluster DMA copies it in */
      b->filled = 1;
    } else {
      flare_fold_for(c->h.op, c->h.dtype)(flare_buffer_data(b), c->elems, c->h.elem_count);
    }
    if (st->received == c->ar->n_children) {
      len = flare_build_result(c, flare_buffer_data(b));
      flare_release(st);
    }
  }
  fs_unlock(&st->lock);
  return len ? flare_send_result(c, len) : outcome;
}

/* The index of the installed allreduce with this id in the table, or FLARE_MAX_ALLREDUCES. */
static uint32_t find_allreduce(const flare_dense_table_t* t, uint32_t id) {
  uint32_t i;
  for (i = 0; i < t->n_allreduces && i < FLARE_MAX_ALLREDUCES; ++i)
    if (t->allreduces[i].allreduce_id == id) break;
  return i < t->n_allreduces ? i : FLARE_MAX_ALLREDUCES;
}

int flare_dense_handler(const fs_handler_args_t* args) {
  const flare_dense_table_t* table = (const flare_dense_table_t*)args->l1; /* this cluster's copy */
  flare_ctx_t c;
  uint32_t dsize, home, round, index;
  uint8_t* l1;

  if (args->l1_size < FLARE_TABLE_L1_BYTES || args->handler_mem_size < sizeof(flare_dense_config_t) ||
      table->magic != FLARE_DENSE_MAGIC || table->by_clusters.d != args->num_clusters)
    return FLARE_DENSE_NOT_INSTALLED;
  if (args->pkt_len < FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES) return FLARE_DENSE_MALFORMED;
  /* The wire format is Ethernet II, IPv4 without options, UDP: the Flare header sits at 42. */
  if (fs_be16(args->pkt + 12) != FS_ETHERTYPE_IPV4 || args->pkt[FS_ETH_BYTES] != 0x45 ||
      args->pkt[FS_ETH_BYTES + 9] != FS_IPPROTO_UDP)
    return FLARE_DENSE_MALFORMED;
  c.args = args;
  flare_decode(args->pkt + FLARE_PAYLOAD_OFFSET, &c.h);
  dsize = flare_dtype_bytes(c.h.dtype);
  c.bytes = (uint32_t)c.h.elem_count * dsize;
  c.elems = args->pkt + FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES;
  /* The UDP payload must be exactly the header and elem_count elements: a count that claims
   * more (or less) than the packet carries would fold Ethernet padding or drop data. */
  if (c.h.version != FLARE_VERSION || c.h.kind > FLARE_KIND_RESULT || dsize == 0 || c.h.op >= FLARE_OP_COUNT ||
      c.h.elem_count == 0 || args->pkt_len < FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES + c.bytes ||
      fs_be16(args->pkt + FS_ETH_BYTES + FS_IPV4_BYTES + 4) != FS_UDP_BYTES + FLARE_HEADER_BYTES + c.bytes)
    return FLARE_DENSE_MALFORMED;
  index = find_allreduce(table, c.h.allreduce_id);
  if (index == FLARE_MAX_ALLREDUCES) return FLARE_DENSE_UNKNOWN_ALLREDUCE;
  c.ar = &table->allreduces[index];
  c.ports = ((const flare_dense_config_t*)args->handler_mem)->ports[index];
  if (c.h.kind == FLARE_KIND_RESULT) {
    /* A result from the parent: every child gets it. Only switches below the root expect one. */
    if (c.ar->parent_port == FLARE_NO_PARENT || args->ingress_port != c.ar->parent_port) return FLARE_DENSE_MALFORMED;
    fs_multicast(args->pkt, FLARE_PAYLOAD_OFFSET + FLARE_HEADER_BYTES + c.bytes, c.ports, c.ar->n_children);
    return FLARE_DENSE_RESULT_FORWARDED;
  }
  if (c.h.sender_rank >= c.ar->n_children) return FLARE_DENSE_BAD_RANK;
  if (c.bytes > c.ar->slot_payload) return FLARE_DENSE_TOO_LARGE;

  /* Block b's home is cluster b mod clusters, its state (b / clusters) mod states there. */
  round = fs_divide(c.h.block_id, &table->by_clusters);
  home = fs_remainder(c.h.block_id, round, &table->by_clusters);
  l1 = fs_cluster_l1(home, NULL); /* home < clusters: by_clusters.d is args->num_clusters */
  c.st = (flare_block_state_t*)(l1 + c.ar->l1_offset +
                                (size_t)fs_remainder(round, fs_divide(round, &c.ar->by_states), &c.ar->by_states) *
                                    c.ar->state_bytes);
  flare_locate_buffers(&c);
  switch (c.ar->algorithm) {
    case FLARE_ALGO_MULTI: return flare_multi(&c);
    case FLARE_ALGO_TREE: return flare_tree(&c);
    default: return flare_single(&c);
  }
}

/* Names of the outcome codes, in the order of enum flare_dense_outcome. */
static const fs_outcome_desc_t flare_dense_outcomes[] = {
    /* name, drop, completes_block, no_block */
    {"ok", 0, 0, 0},          {"result_sent", 0, 1, 0},       {"sent_up", 0, 1, 0},  {"result_forwarded", 0, 0, 1},
    {"malformed", 1, 0, 0},   {"unknown_allreduce", 1, 0, 0}, {"bad_rank", 1, 0, 0}, {"duplicate", 1, 0, 0},
    {"window_exceeded", 1, 0, 0}, {"too_large", 1, 0, 0},     {"mismatch", 1, 0, 0}, {"not_installed", 1, 0, 0},
};
FS_HANDLER_SET(flare_dense,
               "Flare dense allreduce: single buffer, multiple buffers or tree per allreduce "
               "(int32/int16/int8/float32; sum/min/max)",
               FLARE_OFF_BLOCK, FLARE_OFF_ALLREDUCE, flare_dense_outcomes);
