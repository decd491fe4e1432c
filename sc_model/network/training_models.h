// The training models that host agents of training jobs can name (a2tp.model, rina.model): each
// one's gradient bytes per iteration (fp32 gradients of every parameter) and forward-pass FLOPs
// per sample, with where each number comes from, and the compute time of an iteration estimated
// from them for a batch. docs/PROTOCOLS.md ("Training-model presets") has the table and the
// sources.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/units.h"

namespace fs {

struct TrainingModel {
  const char* name;
  uint64_t gradient_bytes;  // per worker and iteration
  double forward_flops;     // the forward pass of one sample
  const char* source;       // where the numbers come from, in a line
};

// Every preset, in the order the models keys list them ("custom" is not one: the protocol's own
// keys say it).
const std::vector<TrainingModel>& training_models();
// The preset called `name`, or nullptr.
const TrainingModel* find_training_model(const std::string& name);
// "custom" and every preset's name, the choices of a models key.
std::vector<std::string> training_model_choices();
// An iteration's forward and backward passes over `batch` samples, in microseconds: 3 x the
// forward FLOPs (backward ~ 2 x forward) on an RTX 3090 (35.6 TFLOP/s fp32 peak, NVIDIA's
// specification, the GPU of A2TP's and Rina's testbeds) at 40% of its peak. An estimate, not a
// measurement.
double training_compute_us(const TrainingModel& m, double batch);

// What one worker of a training job sends and computes in an iteration.
struct TrainingWorkload {
  uint64_t gradient_bytes;
  Picos compute;
};
// The workload a models key (`key`, e.g. "rina.model") names: for "custom", `custom_bytes` and
// `custom_compute_us`; for a preset, its gradient bytes x `scale` (a multiple of 4, at least 4)
// and its compute time for `batch` samples x `scale`. InputError naming the key for an unknown
// model.
TrainingWorkload training_workload(const std::string& key, const std::string& model, uint64_t custom_bytes,
                                   double custom_compute_us, double scale, double batch);

}  // namespace fs
