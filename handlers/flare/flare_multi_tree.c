/* Flare dense aggregation on several buffers per block (Flare section 6.2) and as a tree of
 * buffers (section 6.3); see flare_dense.c for admission and results. */
#include "flare_internal.h"

/* B buffers: a handler folds its contribution into whichever buffer is free (trying its own
 * rank's buffer first), waiting only when all B are taken; the handler that makes the block
 * complete folds the other buffers into its own and sends the result. */
int flare_multi(flare_ctx_t* c) {
  flare_block_state_t* st = c->st;
  const uint32_t nb = c->ar->buffers;
  const fs_divisor_t* by_nb = &c->ar->by_buffers;
  const uint32_t first = fs_remainder(c->h.sender_rank, fs_divide(c->h.sender_rank, by_nb), by_nb); /* rank mod nb */
  const flare_fold_fn fold = flare_fold_for(c->h.op, c->h.dtype);
  flare_buffer_t* b = 0;
  uint32_t k;
  int outcome, last;

  fs_lock(&st->lock);
  outcome = flare_admit(c);
  fs_unlock(&st->lock);
  if (outcome != FS_OK) return outcome;

  for (k = 0; k < nb && !b; ++k) {
    const uint32_t i = first + k < nb ? first + k : first + k - nb; /* (first + k) mod nb, no divide */
    flare_buffer_t* t = flare_buffer(c, i);
    if (!__atomic_exchange_n(&t->lock, 1u, __ATOMIC_ACQUIRE)) b = t;
  }
  if (!b) {
    b = flare_buffer(c, first);
    fs_lock(&b->lock);
  }
  if (!b->filled) {
    fs_dma_copy(flare_buffer_data(b), c->elems, c->bytes);
    b->filled = 1;
  } else {
    fold(flare_buffer_data(b), c->elems, c->h.elem_count);
  }
  fs_unlock(&b->lock);

  fs_lock(&st->lock);
  last = ++st->folded == c->ar->n_children;
  fs_unlock(&st->lock);
  if (!last) return FS_OK;
  /* Every contribution is folded into some buffer and no handler touches them any more. */
  for (k = 0; k < nb; ++k) {
    flare_buffer_t* o = flare_buffer(c, k);
    if (o != b && o->filled) fold(flare_buffer_data(b), flare_buffer_data(o), c->h.elem_count);
  }
  {
    const uint32_t len = flare_build_result(c, flare_buffer_data(b));
    fs_lock(&st->lock);
    flare_release(st);
    fs_unlock(&st->lock);
    return flare_send_result(c, len);
  }
}

/* A buffer per child: rank r's contribution is copied into buffer r, then folds go up a fixed
 * binary tree over the ranks. Node (level l, index j) covers ranks j 2^l .. (j + 1) 2^l - 1 and
 * keeps its aggregate in the buffer of its first rank: left = left op right, whatever order the
 * halves arrive in, so float sums are the same bits on every run. Each node counts its halves
 * with an atomic add; the handler that brings the second half does the fold and goes on up, the
 * first one stops. Nobody waits for a lock to aggregate (the block's lock is held only to admit
 * a contribution). */
int flare_tree(flare_ctx_t* c) {
  flare_block_state_t* st = c->st;
  const uint32_t n = c->ar->n_children;
  const uint32_t levels = flare_tree_levels(n);
  const uint32_t rank = c->h.sender_rank;
  const flare_fold_fn fold = flare_fold_for(c->h.op, c->h.dtype);
  uint32_t* counters = flare_tree_counter_base(c);
  uint32_t l;
  int outcome;

  fs_lock(&st->lock);
  outcome = flare_admit(c);
  fs_unlock(&st->lock);
  if (outcome != FS_OK) return outcome;

  fs_dma_copy(flare_buffer_data(flare_buffer(c, rank)), c->elems, c->bytes);
  for (l = 0; l < levels; ++l) {
    const uint32_t left = (rank >> (l + 1)) << (l + 1); /* first rank of the parent node */
    const uint32_t right = left + (1u << l);            /* first rank of its right half */
    if (right >= n) continue;                           /* no right half: nothing to wait for */
    /* The release makes this half's data visible to the handler that brings the other one. */
    if (__atomic_fetch_add(&counters[(1u << (levels - l - 1)) + (rank >> (l + 1))], 1u, __ATOMIC_ACQ_REL) == 0)
      return FS_OK;
    fold(flare_buffer_data(flare_buffer(c, left)), flare_buffer_data(flare_buffer(c, right)), c->h.elem_count);
  }
  {
    const uint32_t len = flare_build_result(c, flare_buffer_data(flare_buffer(c, 0)));
    fs_lock(&st->lock);
    flare_release(st);
    fs_unlock(&st->lock);
    return flare_send_result(c, len);
  }
}
