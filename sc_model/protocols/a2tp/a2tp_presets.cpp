// The training-model presets (see a2tp_presets.h). Gradient sizes: A2TP 6.1 gives VGG16's and
// ResNet50's model sizes; AlexNet's and BERT-base's are their papers' parameter counts x 4 bytes.
// Compute times are estimates, the same formula for every model: 3 x the forward pass's FLOPs
// per sample (backward ~ 2 x forward) x a batch of 32, on an RTX 3090 (the GPU of A2TP's
// testbed: 35.6 TFLOP/s fp32 peak, NVIDIA's specification) at 40% of its peak. The FLOPs per
// sample are the usual figures for 224 x 224 images (ResNet50 3.8 G, from its paper; VGG16
// 15.5 G; AlexNet 0.72 G) and, for BERT-base, 2 x parameters x 128 tokens. The batch and the
// utilisation are assumptions, not measurements: what matters for A2TP's experiments is that
// ResNet50 computes for long relative to its gradients and VGG16 the other way round (A2TP 6.1).
#include "protocols/a2tp/a2tp_presets.h"

namespace fs {
namespace {

constexpr double kBatch = 32, kPeakFlops = 35.6e12, kUtilisation = 0.4;
constexpr double compute_us(double forward_flops) { return 3 * forward_flops * kBatch / (kPeakFlops * kUtilisation) * 1e6; }

}  // namespace

const std::vector<A2tpModelPreset>& a2tp_model_presets() {
  static const std::vector<A2tpModelPreset> presets = {
      {"resnet50", 98'000'000, compute_us(3.8e9), "98 MB (A2TP 6.1); 3.8 GFLOPs a 224x224 image (He et al. 2016)"},
      {"vgg16", 528'000'000, compute_us(15.5e9), "528 MB (A2TP 6.1); 15.5 GFLOPs a 224x224 image"},
      {"alexnet", 240'000'000, compute_us(0.72e9),
       "60 M parameters (Krizhevsky et al. 2012) x 4 bytes; 0.72 GFLOPs a 224x224 image"},
      {"bert", 440'000'000, compute_us(2 * 110e6 * 128),
       "BERT-base, 110 M parameters (Devlin et al. 2019) x 4 bytes; 2 x parameters x 128 tokens a sequence"},
  };
  return presets;
}

const A2tpModelPreset* find_a2tp_model_preset(const std::string& name) {
  for (const A2tpModelPreset& p : a2tp_model_presets())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace fs
