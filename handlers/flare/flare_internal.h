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
  const uint8_t* elems; /* the packet's elements */
  uint32_t bytes;       /* element bytes in the packet */
} flare_ctx_t;

/* acc[i] = acc[i] op in[i] for n elements of the block's dtype. */
flare_fold_fn flare_fold_for(uint32_t op, uint32_t dtype);

static inline flare_buffer_t* flare_buffer(const flare_ctx_t* c, uint32_t i) {
  return (flare_buffer_t*)((uint8_t*)c->st + flare_state_header_bytes(c->ar->algorithm, c->ar->n_children) +
                           (size_t)i * flare_buffer_bytes(c->ar->slot_payload));
}
static inline uint8_t* flare_buffer_data(flare_buffer_t* b) { return (uint8_t*)(b + 1); }
static inline uint32_t* flare_tree_counter_base(const flare_ctx_t* c) { return (uint32_t*)(c->st + 1); }

/* With the block state's lock held: takes the contribution into the block (starting the block
 * if the state is free), or says why not (duplicate, window exceeded, mismatch). */
int flare_admit(flare_ctx_t* c);
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
