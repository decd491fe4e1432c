/* Flare dense aggregation, single buffer per block: the handler-memory layout the control plane
 * installs (shared by the C handler and the simulator's installer), the per-block buffer layout
 * kept in cluster L1, and the handler's outcome codes. */
#ifndef FLARE_DENSE_H
#define FLARE_DENSE_H

#include <stdint.h>

#include "flare_proto.h"
#include "fs_handler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FLARE_DENSE_MAGIC 0x464C4431u /* "FLD1" */
#define FLARE_DENSE_MAX_CHILDREN 256u

/* Written at offset 0 of L2 handler memory when the handler set is installed. */
typedef struct flare_dense_config {
  uint32_t magic;
  uint32_t n_children;         /* contributions per block (hosts in rank order below) */
  uint32_t slot_payload;       /* element bytes one block buffer holds */
  uint32_t slots_per_cluster;  /* block buffers in each cluster's L1 state area */
  uint32_t ports[FLARE_DENSE_MAX_CHILDREN]; /* rank -> port; results are multicast to all */
} flare_dense_config_t;

/* One block buffer in L1: this header, then slot_payload bytes of partial aggregate. Block b
 * lives in cluster (b % num_clusters), buffer ((b / num_clusters) % slots_per_cluster). HPUs
 * running at the same time may aggregate into the same buffer: every update happens with the
 * buffer's lock held (Flare's single-buffer critical section). */
typedef struct flare_block_slot {
  uint32_t lock;               /* spin lock over everything below (taken with an atomic swap) */
  uint32_t busy;               /* aggregating (allreduce_id, block_id) */
  uint32_t completed;          /* not busy: the result of (allreduce_id, block_id) went out */
  uint32_t allreduce_id;
  uint32_t block_id;
  uint16_t received;
  uint16_t elem_count;
  uint8_t dtype, op, pad[2];
  uint32_t children[FLARE_DENSE_MAX_CHILDREN / 32]; /* bitmap by rank: already aggregated */
} flare_block_slot_t;

static inline uint32_t flare_dense_slot_bytes(uint32_t slot_payload) {
  return (uint32_t)((sizeof(flare_block_slot_t) + slot_payload + 7u) & ~7u);
}

/* Outcome codes (FS_OK = aggregated). Names in the same order: flare_dense_outcome_names. */
enum flare_dense_outcome {
  FLARE_DENSE_RESULT_SENT = 1,   /* last contribution of a block: result multicast */
  FLARE_DENSE_MALFORMED,         /* not a well-formed Flare contribution (IPv4 without options) */
  FLARE_DENSE_BAD_RANK,          /* sender rank outside the installed children */
  FLARE_DENSE_DUPLICATE,         /* this rank's contribution was already aggregated, or the
                                    block's result already went out */
  FLARE_DENSE_BUFFER_BUSY,       /* the block's buffer still holds another block */
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
