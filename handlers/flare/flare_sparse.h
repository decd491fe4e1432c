/* Flare sparse aggregation (Flare section 7): the handler-memory layout the control plane installs
 * (shared by the C handler and the simulator's installer), the per-block state kept in cluster
 * L1, and the handler's outcome codes. One handler set serves every sparse allreduce the switch
 * takes part in; each has its children, parent, algorithm (single storage or a tree of per-child
 * storages), storage (hash table with a spill buffer, or an array of the block's span) and share
 * of every cluster's L1. The wire format is in flare_proto.h and README.md. */
#ifndef FLARE_SPARSE_H
#define FLARE_SPARSE_H

#include <stdint.h>

#include "flare_proto.h"
#include "fs_divide.h"
#include "fs_handler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FLARE_SPARSE_MAGIC 0x464C5331u /* "FLS1" */
#define FLARE_SPARSE_MAX_CHILDREN 256u
#define FLARE_SPARSE_MAX_ALLREDUCES 16u
/* A sender's packets for one block are numbered 0 .. FLARE_SPARSE_MAX_SHARDS-1 (the block state
 * keeps a bitmap of them per child, to reject a retransmitted one). */
#define FLARE_SPARSE_MAX_SHARDS 64u
#define FLARE_SPARSE_NO_PARENT 0xFFFFFFFFu

enum flare_sparse_algorithm {
  FLARE_SPARSE_SINGLE = 0, /* one storage per block; each packet folded with the block's lock held */
  FLARE_SPARSE_TREE = 2    /* a storage per child; complete children fold up a fixed binary tree */
};
enum flare_sparse_storage {
  FLARE_STORE_HASH = 0, /* hash table of (index, value) slots; a collision goes to the spill buffer */
  FLARE_STORE_ARRAY = 1 /* the block's span of values; scanned for non-zeros when the block completes */
};

/* One sparse allreduce, as the network manager sets it up. Block b lives in cluster
 * b % num_clusters, block state (b / num_clusters) % states_per_cluster, at l1_offset in that
 * cluster's L1 state area. A block state is: flare_sparse_block_t, the children's records
 * (n_children x flare_sparse_child_t), the tree's arrival counters (tree only), the staging
 * frame (the spill buffer, also where result packets are built), then the storages (one, or one
 * per child for the tree) of storage_bytes each. */
typedef struct flare_sparse_allreduce {
  uint32_t allreduce_id;
  uint32_t algorithm;          /* enum flare_sparse_algorithm */
  uint32_t storage;            /* enum flare_sparse_storage */
  uint32_t n_children;
  uint32_t parent_port;        /* FLARE_SPARSE_NO_PARENT at the root */
  uint32_t rank_at_parent;
  uint32_t span;               /* elements per block: a pair's index must be below it */
  uint32_t hash_slots;         /* hash: slots per table (a power of two) */
  uint32_t hash_shift;         /* hash: 32 - log2(hash_slots) */
  uint32_t max_payload;        /* pair bytes of a packet the switch sends */
  uint32_t off_children;       /* offsets inside a block state */
  uint32_t off_counters;
  uint32_t off_frame;
  uint32_t off_storage;
  uint32_t storage_bytes;      /* one storage */
  uint32_t state_bytes;        /* a whole block state */
  uint32_t l1_offset;          /* where this allreduce's block states start in each cluster */
  uint32_t states_per_cluster;
  fs_divisor_t by_states;
} flare_sparse_allreduce_t;

/* The allreduce table: copied to the start of the set's L1 state area of every cluster (read by
 * every packet at L1 latency), and the children's ports in L2 handler memory after it. */
typedef struct flare_sparse_table {
  uint32_t magic;
  uint32_t n_allreduces;
  fs_divisor_t by_clusters;
  flare_sparse_allreduce_t allreduces[FLARE_SPARSE_MAX_ALLREDUCES];
} flare_sparse_table_t;
#define FLARE_SPARSE_TABLE_L1_BYTES ((uint32_t)((sizeof(flare_sparse_table_t) + 7u) & ~7u))

typedef struct flare_sparse_config {
  flare_sparse_table_t table;
  uint32_t ports[FLARE_SPARSE_MAX_ALLREDUCES][FLARE_SPARSE_MAX_CHILDREN]; /* by table index, then rank */
} flare_sparse_config_t;

/* A block state's header. The lock guards the header, the children's records and the staging
 * frame (and, for the single algorithm, the storage). */
typedef struct flare_sparse_block {
  uint32_t lock;
  uint32_t busy;          /* aggregating (allreduce_id, block_id) */
  uint32_t completed;     /* not busy: the result of (allreduce_id, block_id) went out */
  uint32_t allreduce_id;
  uint32_t block_id;
  uint8_t dtype, op, pad[2];
  uint32_t children_done; /* children all of whose packets for the block arrived */
  uint32_t shards_out;    /* packets sent for the block so far (spills, results): the next one's number */
  uint32_t staged;        /* pairs in the staging frame (the spill buffer) */
  uint32_t spills;        /* spill packets sent for the block */
} flare_sparse_block_t;

/* What a block state knows of one child. */
typedef struct flare_sparse_child {
  uint32_t seen[FLARE_SPARSE_MAX_SHARDS / 32]; /* packets (by number) already taken */
  uint32_t lock;      /* tree: held while a packet of this child folds into its storage */
  uint16_t received;  /* packets taken (under the block's lock) */
  uint16_t announced; /* packets the child sent for the block (its last packet says), 0 until then */
  uint16_t folded;    /* tree: packets folded into the child's storage (under its lock) */
  uint16_t pad;
} flare_sparse_child_t;

/* A hash slot: key = index + 1 (0: empty), and the value's bits (its dtype, zero-extended). An
 * array storage is span values of 4 bytes (0: absent). */
typedef struct flare_sparse_slot {
  uint32_t key;
  uint32_t bits;
} flare_sparse_slot_t;

/* The staging frame sits 2 bytes into its area (as the HPU's packet slot, so that the pairs after
 * the 62 header bytes are word-aligned). */
#define FLARE_SPARSE_FRAME_PAD 2u
#define FLARE_SPARSE_PAIRS_OFFSET (FLARE_PAYLOAD_OFFSET + FLARE_SPARSE_HEADER_BYTES)

static inline uint32_t flare_sparse_align8(uint32_t b) { return (b + 7u) & ~7u; }
/* Levels and arrival counters of the tree over n children (as the dense tree's). */
static inline uint32_t flare_sparse_tree_levels(uint32_t n) {
  uint32_t l = 0;
  while ((1u << l) < n) ++l;
  return l;
}
static inline uint32_t flare_sparse_storage_bytes(uint32_t storage, uint32_t span, uint32_t hash_slots) {
  return flare_sparse_align8(storage == FLARE_STORE_HASH ? hash_slots * (uint32_t)sizeof(flare_sparse_slot_t)
                                                         : span * 4u);
}
/* Fills the offsets and sizes of a block state of allreduce `a` from its algorithm, storage,
 * children, span, hash_slots and max_payload. */
static inline void flare_sparse_layout(flare_sparse_allreduce_t* a) {
  uint32_t off = flare_sparse_align8((uint32_t)sizeof(flare_sparse_block_t));
  a->off_children = off;
  off += flare_sparse_align8(a->n_children * (uint32_t)sizeof(flare_sparse_child_t));
  a->off_counters = off;
  if (a->algorithm == FLARE_SPARSE_TREE) off += flare_sparse_align8(4u << flare_sparse_tree_levels(a->n_children));
  a->off_frame = off;
  off += flare_sparse_align8(FLARE_SPARSE_FRAME_PAD + FLARE_SPARSE_PAIRS_OFFSET + a->max_payload);
  a->off_storage = off;
  a->storage_bytes = flare_sparse_storage_bytes(a->storage, a->span, a->hash_slots);
  a->state_bytes = off + (a->algorithm == FLARE_SPARSE_TREE ? a->n_children : 1u) * a->storage_bytes;
}

/* Outcome codes (FS_OK = aggregated). Names in the same order: flare_sparse_outcomes. */
enum flare_sparse_outcome {
  FLARE_SPARSE_SPILLED = 1,       /* aggregated; a full spill buffer went on (to the parent or the hosts) */
  FLARE_SPARSE_RESULT_SENT,       /* completed its block: the result went to the children */
  FLARE_SPARSE_SENT_UP,           /* completed its block: the aggregate went to the parent */
  FLARE_SPARSE_RESULT_FORWARDED,  /* a result packet from the parent, multicast to the children */
  FLARE_SPARSE_MALFORMED,         /* not a well-formed sparse Flare packet (lengths, index beyond the
                                     span, shard numbers, flags) */
  FLARE_SPARSE_UNKNOWN_ALLREDUCE, /* no sparse allreduce with this id is installed */
  FLARE_SPARSE_BAD_RANK,          /* sender rank outside the installed children */
  FLARE_SPARSE_DUPLICATE,         /* this packet of this child was already taken, or the block's result
                                     already went out */
  FLARE_SPARSE_WINDOW_EXCEEDED,   /* the block's state still holds another block */
  FLARE_SPARSE_MISMATCH,          /* dtype or op differs from the block's first packet */
  FLARE_SPARSE_NOT_INSTALLED,     /* handler memory holds no configuration */
  FLARE_SPARSE_OUTCOME_COUNT
};

int flare_sparse_handler(const fs_handler_args_t* args);

#ifdef __cplusplus
}
#endif
#endif /* FLARE_SPARSE_H */
