// Fuzzing harness: the configuration (config/config_io.h): INI text applied key by key, the
// relations between keys checked (validate_config), then, as a run does before it starts, every
// registered handler set's memory laid out and installed (each protocol's own keys: port lists,
// setups). Everything wrong is an InputError naming the key. Configurations whose memories would
// take more than 16 MiB are not installed, to keep each input fast.
#include <cstdint>
#include <sstream>
#include <string>

#include "blocks/handler_harness.h"
#include "config/config.h"
#include "config/config_io.h"
#include "fuzz/fuzz_check.h"
#include "pspin/handler_sets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  fs::Config cfg;
  if (!fs::fuzz::accepts([&] {
        fs::apply_ini(cfg, "fuzz.ini", in);
        fs::validate_config(cfg);
      }))
    return 0;
  const uint64_t memory = uint64_t(cfg.pspin.clusters) * cfg.pspin.l1_bytes + cfg.pspin.l2_handler_bytes;
  if (memory > (16u << 20)) return 0;
  for (const fs::HandlerSet& set : fs::handler_sets())
    fs::fuzz::accepts([&] { fs_tb::HandlerHarness harness(cfg, set); });
  return 0;
}
