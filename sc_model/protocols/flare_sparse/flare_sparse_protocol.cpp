// The flare_sparse protocol (Flare's sparse allreduce, Flare section 7) as a flaresim plug-in:
// its configuration section (flare_sparse.*), the flare_sparse handler set and its control
// plane, and the stats section with the sparse allreduce table.
#include <nlohmann/json.hpp>

#include "plugin/protocol.h"
#include "protocols/flare_sparse/sparse_config.h"
#include "protocols/flare_sparse/sparse_setup.h"
#include "switch/switch.h"

extern "C" const fs_handler_set_desc_t flare_sparse_handler_set;

namespace fs {
namespace {

class FlareSparse : public Protocol {
 public:
  std::string name() const override { return "flare_sparse"; }
  std::string doc() const override {
    return "Flare sparse allreduce: hash tables with spill buffers or arrays, single storage or tree (Flare 7)";
  }
  std::vector<ConfigSection> config_sections() const override {
    return {ConfigSection{kFlareSparseSection, FlareSparseConfig{}, sparse_config_keys()}};
  }
  std::vector<HandlerSetSpec> handler_sets() const override { return {{&flare_sparse_handler_set, &control_}}; }
  // Dense packets share the UDP port; the sparse flag in the kind byte picks this set.
  std::vector<std::string> default_parser_rules() const override {
    static_assert(FLARE_FLAG_SPARSE == 0x80 && FLARE_OFF_KIND == 1, "the rule below names the sparse flag's bit");
    return {"udp_dport=" + std::to_string(FLARE_UDP_PORT_DEFAULT) + ",payload[1]&0x80=0x80 -> flare_sparse"};
  }
  void add_stats(const RunView& run, nlohmann::json& stats) const override;

 private:
  FlareSparseControl control_;
};

void FlareSparse::add_stats(const RunView& run, nlohmann::json& stats) const {
  const int set = find_handler_set("flare_sparse");
  const HandlerSetMemory& mem = run.sw.pspin().set_memory(set);
  stats["flare_sparse"] = {{"allreduces", nlohmann::json::array()}};
  if (!mem.l1_bytes) return;  // not installed: the section is there, empty
  nlohmann::json& ars = stats["flare_sparse"]["allreduces"];
  for (const SparseAllreduce& a : sparse_allreduces(run.cfg, mem.l1_bytes))
    ars.push_back({{"id", a.table.allreduce_id},
                   {"algorithm", a.algorithm},
                   {"storage", a.storage},
                   {"children", a.ports.size()},
                   {"span", a.table.span},
                   {"hash_slots", a.storage == "hash" ? a.table.hash_slots : 0},
                   {"storage_bytes", a.table.storage_bytes},
                   {"state_bytes", a.table.state_bytes},
                   {"states_per_cluster", a.table.states_per_cluster},
                   {"l1_offset", a.table.l1_offset}});
}

}  // namespace

FS_PROTOCOL(FlareSparse);

}  // namespace fs
