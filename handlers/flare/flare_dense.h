/* Flare dense aggregation: the handler-memory layout the control plane installs (shared by the C
 * handler and the simulator's installer), the per-block state kept in cluster L1, and the
 * handler's outcome codes. One handler set serves every allreduce the switch takes part in; each
 * allreduce has its own algorithm (single buffer, B buffers, or a tree of buffers), children,
 * parent and share of every cluster's L1 (Flare sections 4 and 6). */
#ifndef FLARE_DENSE_H
#define FLARE_DENSE_H

#include <stdint.h>

#include "flare_proto.h"
#include "fs_divide.h"
#include "fs_handler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FLARE_DENSE_MAGIC 0x464C4432u /* "FLD2" */
#define FLARE_DENSE_MAX_CHILDREN 256u
#define FLARE_MAX_ALLREDUCES 16u
#define FLARE_NO_PARENT 0xFFFFFFFFu
#define FLARE_MAX_BUFFERS 16u /* multi: at most this many buffers per block */

enum flare_algorithm {
  FLARE_ALGO_SINGLE = 0, /* one buffer per block; each fold in a critical section */
  FLARE_ALGO_MULTI = 1,  /* B buffers per block; a handler folds into a free one; the last folds them together */
  FLARE_ALGO_TREE = 2    /* a buffer per child; pairs fold up a fixed tree when both are present */
};

/* One allreduce, as the network manager sets it up. Block b of the allreduce lives in cluster
 * b % num_clusters, block state (b / num_clusters) % states_per_cluster, at l1_offset in that
 * cluster's L1 state area: hosts may have states_per_cluster x num_clusters blocks in flight. */
typedef struct flare_allreduce_config {
  uint32_t allreduce_id;
  uint32_t algorithm;          /* enum flare_algorithm */
  uint32_t buffers;            /* per block: 1 (single), B (multi), n_children (tree) */
  uint32_t n_children;         /* contributions per block: the children in rank order */
  uint32_t parent_port;        /* FLARE_NO_PARENT at the root; else aggregated blocks go up there */
  uint32_t rank_at_parent;     /* the sender rank this switch uses towards its parent */
  uint32_t slot_payload;       /* element bytes one buffer holds */
  uint32_t state_bytes;        /* bytes of one block state (flare_block_state_bytes) */
  uint32_t l1_offset;          /* where this allreduce's block states start in each cluster */
  uint32_t states_per_cluster; /* block states in each cluster */
  fs_divisor_t by_states;      /* divides by states_per_cluster (fs_divide.h: no divide instruction) */
  fs_divisor_t by_buffers;     /* divides by buffers */
} flare_allreduce_config_t;

/* The allreduce table, which every packet reads: the installer writes a copy at the start of the
 * set's share of every cluster's L1 state area (args->l1), so that a handler reads it at L1's
 * single cycle instead of L2's latency (the control plane replicates read-only configuration
 * close to the cores, as Flare keeps per-allreduce state in the clusters' L1, section 4). The
 * block states follow it (l1_offset >= FLARE_TABLE_L1_BYTES). */
typedef struct flare_dense_table {
  uint32_t magic;
  uint32_t n_allreduces;
  fs_divisor_t by_clusters; /* divides by the switch's clusters (a block's home, its state) */
  flare_allreduce_config_t allreduces[FLARE_MAX_ALLREDUCES];
} flare_dense_table_t;
#define FLARE_TABLE_L1_BYTES ((uint32_t)((sizeof(flare_dense_table_t) + 7u) & ~7u))

/* Written at offset 0 of L2 handler memory when the handler set is installed: the table again,
 * and the ports of each allreduce's children (rank -> port), which only the packet that sends a
 * block's result reads (results are multicast to all of them). */
typedef struct flare_dense_config {
  flare_dense_table_t table;
  uint32_t ports[FLARE_MAX_ALLREDUCES][FLARE_DENSE_MAX_CHILDREN]; /* by table index, then rank */
} flare_dense_config_t;

/* The state of one block in L1: this header, then (tree only) the tree's arrival counters, then
 * `buffers` buffers of a flare_buffer_t header and slot_payload bytes each. The header's lock
 * guards the header (and, for the single buffer, the buffer too). */
typedef struct flare_block_state {
  uint32_t lock;               /* spin lock over the header (taken with an atomic swap) */
  uint32_t busy;               /* aggregating (allreduce_id, block_id) */
  uint32_t completed;          /* not busy: the result of (allreduce_id, block_id) went out */
  uint32_t allreduce_id;
  uint32_t block_id;
  uint16_t received;           /* contributions accepted */
  uint16_t elem_count;
  uint8_t dtype, op, pad[2];
  uint32_t folded;             /* multi: contributions folded into the buffers */
  uint32_t children[FLARE_DENSE_MAX_CHILDREN / 32]; /* bitmap by rank: already accepted */
} flare_block_state_t;

typedef struct flare_buffer {
  uint32_t lock;   /* multi: held while a handler folds into this buffer */
  uint32_t filled; /* holds data (else the next contribution is copied in) */
} flare_buffer_t;

/* Levels of the tree over n children: the smallest L with 2^L >= n. */
static inline uint32_t flare_tree_levels(uint32_t n) {
  uint32_t l = 0;
  while ((1u << l) < n) ++l;
  return l;
}
/* Arrival counters of the tree's nodes, heap-numbered (node (level l, index j) is 2^(L-l) + j). */
static inline uint32_t flare_tree_counters(uint32_t n) { return 2u << flare_tree_levels(n); }

static inline uint32_t flare_buffer_bytes(uint32_t slot_payload) {
  return (uint32_t)((sizeof(flare_buffer_t) + slot_payload + 7u) & ~7u);
}
static inline uint32_t flare_state_header_bytes(uint32_t algorithm, uint32_t n_children) {
  uint32_t b = (uint32_t)sizeof(flare_block_state_t);
  if (algorithm == FLARE_ALGO_TREE) b += 4u * flare_tree_counters(n_children);
  return (b + 7u) & ~7u;
}
static inline uint32_t flare_block_state_bytes(uint32_t algorithm, uint32_t buffers, uint32_t n_children,
                                               uint32_t slot_payload) {
  return flare_state_header_bytes(algorithm, n_children) + buffers * flare_buffer_bytes(slot_payload);
}

/* Outcome codes (FS_OK = aggregated). Names in the same order: flare_dense_outcomes. */
enum flare_dense_outcome {
  FLARE_DENSE_RESULT_SENT = 1,   /* last contribution of a block: result multicast to the children */
  FLARE_DENSE_SENT_UP,           /* last contribution of a block: aggregate sent to the parent */
  FLARE_DENSE_RESULT_FORWARDED,  /* a result from the parent, multicast to the children */
  FLARE_DENSE_MALFORMED,         /* not a well-formed Flare packet (IPv4 without options) */
  FLARE_DENSE_UNKNOWN_ALLREDUCE, /* no allreduce with this id is installed */
  FLARE_DENSE_BAD_RANK,          /* sender rank outside the installed children */
  FLARE_DENSE_DUPLICATE,         /* this rank's contribution was already aggregated, or the
                                    block's result already went out */
  FLARE_DENSE_WINDOW_EXCEEDED,   /* the block's state still holds another block: a host sent
                                    more blocks in flight than the allreduce has states */
  FLARE_DENSE_TOO_LARGE,         /* more element bytes than a buffer holds */
  FLARE_DENSE_MISMATCH,          /* dtype, op or count differs from the block's first packet */
  FLARE_DENSE_NOT_INSTALLED,     /* handler memory holds no configuration */
  FLARE_DENSE_OUTCOME_COUNT
};

int flare_dense_handler(const fs_handler_args_t* args);

#ifdef __cplusplus
}
#endif
#endif /* FLARE_DENSE_H */
