// The training-model presets (see training_models.h). Gradient sizes: A2TP 6.1 gives VGG16's and
// ResNet50's model sizes; the others are their papers' parameter counts x 4 bytes. The FLOPs per
// sample are the usual figures for 224 x 224 images (299 x 299 for Inception-v3) and, for
// BERT-base, 2 x parameters x 128 tokens. What matters for the papers' experiments is the ratio of
// computing to communicating: ResNet50 computes for long relative to its gradients, VGG16 the
// other way round (A2TP 6.1).
#include "network/training_models.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace fs {
namespace {

constexpr double kPeakFlops = 35.6e12, kUtilisation = 0.4;

}  // namespace

const std::vector<TrainingModel>& training_models() {
  static const std::vector<TrainingModel> models = {
      {"resnet50", 98'000'000, 3.8e9, "98 MB (A2TP 6.1); 3.8 GFLOPs a 224x224 image (He et al. 2016)"},
      {"vgg16", 528'000'000, 15.5e9, "528 MB (A2TP 6.1); 15.5 GFLOPs a 224x224 image"},
      {"alexnet", 240'000'000, 0.72e9, "60 M parameters (Krizhevsky et al. 2012) x 4 bytes; 0.72 GFLOPs a 224x224 image"},
      {"bert", 440'000'000, 2 * 110e6 * 128,
       "BERT-base, 110 M parameters (Devlin et al. 2019) x 4 bytes; 2 x parameters x 128 tokens a sequence"},
      {"inceptionv3", 95'200'000, 5.7e9,
       "23.8 M parameters (Szegedy et al. 2016) x 4 bytes; 5.7 GFLOPs a 299x299 image"},
      {"resnet101", 178'000'000, 7.8e9, "44.5 M parameters (He et al. 2016) x 4 bytes; 7.8 GFLOPs a 224x224 image"},
  };
  return models;
}

const TrainingModel* find_training_model(const std::string& name) {
  for (const TrainingModel& m : training_models())
    if (name == m.name) return &m;
  return nullptr;
}

std::vector<std::string> training_model_choices() {
  std::vector<std::string> out{"custom"};
  for (const TrainingModel& m : training_models()) out.push_back(m.name);
  return out;
}

double training_compute_us(const TrainingModel& m, double batch) {
  return 3 * m.forward_flops * batch / (kPeakFlops * kUtilisation) * 1e6;
}

TrainingWorkload training_workload(const std::string& key, const std::string& model, uint64_t custom_bytes,
                                   double custom_compute_us, double scale, double batch) {
  const auto picos = [](double us) { return Picos(std::llround(us * double(kPicosPerUs))); };
  if (model == "custom") return {custom_bytes, picos(custom_compute_us)};
  const TrainingModel* m = find_training_model(model);
  if (!m) throw InputError(key + ": no preset '" + model + "'");
  const uint64_t bytes = std::max<uint64_t>(4, uint64_t(std::llround(double(m->gradient_bytes) * scale)) / 4 * 4);
  return {bytes, picos(training_compute_us(*m, batch) * scale)};
}

}  // namespace fs
