// The ISS timing model: cycles per instruction class, starting from the RI5CY/CV32E40P figures
// (docs/ISS.md), all configurable (the timing.* keys, declared with their defaults in
// iss/timing.def). The core adds memory-region costs and stalls on top.
#pragma once
#include <cstdint>

namespace fs::iss {

struct Timing {
#define FS_UINT(sec, field, type, def, lo, hi, doc) type field = def;
#include "iss/timing.def"
#undef FS_UINT
};

}  // namespace fs::iss
