/* Flare sparse aggregation (placeholder until the handler lands: every packet is not_installed). */
#include "flare_sparse.h"

int flare_sparse_handler(const fs_handler_args_t* args) {
  (void)args;
  return FLARE_SPARSE_NOT_INSTALLED;
}

static const fs_outcome_desc_t flare_sparse_outcomes[] = {
    /* name, drop, completes_block, no_block */
    {"ok", 0, 0, 0},           {"spilled", 0, 0, 0},          {"result_sent", 0, 1, 0},
    {"sent_up", 0, 1, 0},      {"result_forwarded", 0, 0, 1}, {"malformed", 1, 0, 0},
    {"unknown_allreduce", 1, 0, 0}, {"bad_rank", 1, 0, 0},    {"duplicate", 1, 0, 0},
    {"window_exceeded", 1, 0, 0},   {"mismatch", 1, 0, 0},    {"not_installed", 1, 0, 0},
};
FS_HANDLER_SET(flare_sparse,
               "Flare sparse allreduce: (index, value) pairs in a hash table with a spill buffer or an array "
               "of the block's span, single storage or a tree per allreduce (int32/int16/int8/float32; sum/min/max)",
               FLARE_OFF_BLOCK, FLARE_OFF_ALLREDUCE, flare_sparse_outcomes);
