// Turns a finished switch into the stats JSON (schema in docs/STATS.md) and formats the
// readable summary. Every figure an architect asks for lives here, computed from the counters
// the blocks keep.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "switch/switch.h"

namespace fs {

nlohmann::json collect_stats(Switch& sw, Picos end_time);

}  // namespace fs
