// The training models a2tp's jobs can name (a2tp.model): each one's gradient bytes per iteration
// (fp32 gradients of every parameter) and compute time per iteration, with where each number
// comes from. docs/PROTOCOLS.md ("ATP and A2TP", "Model presets") has the table and the sources.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace fs {

struct A2tpModelPreset {
  const char* name;
  uint64_t gradient_bytes;  // per worker and iteration
  double compute_us;        // forward and backward pass of one iteration, before the push
  const char* source;       // where the numbers come from, in a line
};

// Every preset, in the order a2tp.model lists them ("custom" is not one: hosts.bytes and
// a2tp.compute_us say it).
const std::vector<A2tpModelPreset>& a2tp_model_presets();
// The preset called `name`, or nullptr.
const A2tpModelPreset* find_a2tp_model_preset(const std::string& name);

}  // namespace fs
