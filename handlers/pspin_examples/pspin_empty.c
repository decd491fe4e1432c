/* pspin_empty: follows PsPIN's examples/empty (handlers/empty.c, payload handler empty_ph), the
 * baseline of a handler run: it does nothing with the packet. What differs: PsPIN's optional
 * NUM_INT_OP busy loop (0 in the example) is left out. The packet counts as handled and nothing
 * is sent. */
#include "pspin_examples.h"

int pspin_empty_handler(const fs_handler_args_t* args) {
  (void)args;
  return FS_OK;
}

static const fs_outcome_desc_t pspin_empty_outcomes[] = {{"ok", 0, 0, 0}};
FS_HANDLER_SET(pspin_empty, "PsPIN's empty example: does nothing (handlers/pspin_examples)", -1, -1,
               pspin_empty_outcomes);
