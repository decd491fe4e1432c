/* What the Flare dense handler's parts share (flare_dense.c: packet checks, block admission,
 * results and the single buffer; flare_multi_tree.c: the multiple-buffer and tree algorithms):
 * the context of one contribution and the helpers over block states and buffers. */
#ifndef FLARE_INTERNAL_H
#define FLARE_INTERNAL_H

#include "flare_dense.h"

typedef void (*flare_fold_fn)(uint8_t* acc, const uint8_t* in, uint32_t n);

/* One contribution being aggregated. */
typedef struct flare_ctx {
  const fs_handler_args_t* args;
  const flare_allreduce_config_t* ar; /* in this cluster's copy of the table (L1) */
  const uint32_t* ports;               /* its children's ports, rank order (L2) */
  flare_header_t h;
  flare_block_state_t* st;
  uint8_t* buffers;      /* the block state's first buffer */
  uint32_t buffer_bytes; /* from one buffer to the next */
  const uint8_t* elems;  /* the packet's elements */
  uint32_t bytes;        /* element bytes in the packet */
} flare_ctx_t;

/* Starts a block in a free state: a clean header, empty buffers, tree counters at zero. */
void flare_start_block(flare_ctx_t* c);

/* acc[i] = acc[i] op in[i] for n elements of the block's dtype. */
flare_fold_fn flare_fold_for(uint32_t op, uint32_t dtype);

/* Where the block state's buffers are (computed once per contribution: the handler's hot path). */
static inline void flare_locate_buffers(flare_ctx_t* c) {
  c->buffers = (uint8_t*)c->st + flare_state_header_bytes(c->ar->algorithm, c->ar->n_children);
  c->buffer_bytes = flare_buffer_bytes(c->ar->slot_payload);
}
static inline flare_buffer_t* flare_buffer(const flare_ctx_t* c, uint32_t i) {
  return (flare_buffer_t*)(c->buffers + (size_t)i * c->buffer_bytes);
}
static inline uint8_t* flare_buffer_data(flare_buffer_t* b) { return (uint8_t*)(b + 1); }
static inline uint32_t* flare_tree_counter_base(const flare_ctx_t* c) { return (uint32_t*)(c->st + 1); }

/* Sets n words to zero, a word a store (the C library's memset goes a byte at a time on RV32, and
 * the block state is cleared with its lock held). */
static inline void flare_clear_words(uint32_t* p, uint32_t n) {
  while (n--) *(volatile uint32_t*)p++ = 0;
}

/* With the block state's lock held: takes the contribution into the block (starting the block
 * if the state is free), or says why not (duplicate, window exceeded, mismatch). Inlined: it is
 * on every contribution's path. */
static inline __attribute__((always_inline)) int flare_admit(flare_ctx_t* c) {
  flare_block_state_t* st = c->st;
  const flare_header_t* h = &c->h;
  const uint32_t word = h->sender_rank / 32, bit = 1u << (h->sender_rank % 32);
  if (!st->busy) {
    /* A retransmission that arrives after its block's result went out, or after a later block
     * of the same state, must not start the block again (it would hold the state for good):
     * hosts never have more blocks in flight than states, so an older block is done. */
    if (st->completed && st->allreduce_id == h->allreduce_id && h->block_id <= st->block_id)
      return FLARE_DENSE_DUPLICATE;
    flare_start_block(c);
  } else {
    if (st->allreduce_id != h->allreduce_id || st->block_id != h->block_id)
      return h->block_id < st->block_id ? FLARE_DENSE_DUPLICATE : FLARE_DENSE_WINDOW_EXCEEDED;
    if (st->children[word] & bit) return FLARE_DENSE_DUPLICATE;
    if (st->elem_count != h->elem_count || st->dtype != h->dtype || st->op != h->op) return FLARE_DENSE_MISMATCH;
  }
  st->children[word] |= bit;
  st->received++;
  return FS_OK;
}
/* The block is complete and `data` holds its aggregate: turns the packet into the result (or,
 * below the root, the contribution to the parent) and returns its length. */
uint32_t flare_build_result(flare_ctx_t* c, const uint8_t* data);
/* Sends what flare_build_result made; returns the outcome code. */
int flare_send_result(flare_ctx_t* c, uint32_t len);
/* Frees the block state for the next block (the result went out). */
void flare_release(flare_block_state_t* st);

int flare_multi(flare_ctx_t* c);
int flare_tree(flare_ctx_t* c);

#endif /* FLARE_INTERNAL_H */
