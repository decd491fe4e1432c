// The end-of-run dump of handler state (`flaresim run --dump-state FILE`): every installed
// handler set's range of each cluster's L1 state area and of L2 handler memory, as hexdump -C
// style lines (offset, 16 bytes in hex, the printable ones) with repeated lines folded into '*'.
// Offsets count from the start of the set's range, which is where the handler's `l1` and
// `handler_mem` pointers (fs_handler_args_t) point.
#pragma once
#include <ostream>

#include "pspin/pspin_unit.h"

namespace fs {

void dump_handler_state(std::ostream& out, PspinUnit& unit);

// `bytes` as hexdump -C lines (offsets from 0), folding runs of identical lines into "*"; the
// last line holds the end offset.
void hex_dump(std::ostream& out, const uint8_t* bytes, size_t size);

}  // namespace fs
