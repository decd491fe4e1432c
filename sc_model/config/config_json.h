// The effective configuration as JSON, for the stats file's echo of it (so a result can be
// re-run). Kept apart from config.h so that blocks, which include config.h, do not see JSON.
#pragma once
#include <nlohmann/json.hpp>

#include "config/config.h"

namespace fs {

// {"section": {"key": value}} for every key of the schema.
nlohmann::json config_to_json(const Config& cfg);

}  // namespace fs
