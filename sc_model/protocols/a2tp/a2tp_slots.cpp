// ATP's dynamic aggregator allocation (see a2tp_slots.h).
#include "protocols/a2tp/a2tp_slots.h"

#include <string>

#include "common/errors.h"
#include "common/splitmix64.h"

namespace fs {

A2tpSlotTable::A2tpSlotTable(uint32_t job, unsigned slots, unsigned aggregators, unsigned part, unsigned parts)
    : slots_(slots), part_(part) {
  if (aggregators == 0 || aggregators > (1u << 16) || slots == 0 || slots > aggregators)
    throw InputError("a2tp.slots: a table of " + std::to_string(slots) + " entries over " +
                     std::to_string(aggregators) + " aggregators (1 to a2tp.aggregators entries)");
  if (parts == 0 || part >= parts || uint64_t(parts) * slots > aggregators)
    throw InputError("a2tp.slots: " + std::to_string(parts) + " shards' tables of " + std::to_string(slots) +
                     " entries each are more than the " + std::to_string(aggregators) +
                     " aggregators (a2tp.ps colocated: a2tp.slots x the job's hosts at most a2tp.aggregators)");
  held_.assign(aggregators, false);
  entries_.reserve(size_t(parts) * slots);
  for (uint64_t entry = 0; entry < uint64_t(parts) * slots; ++entry) {
    uint16_t index = 0;
    for (uint64_t salt = 0;; ++salt) {
      index = uint16_t(splitmix64_mix((uint64_t(job) << 32 | entry) + salt * kSplitmixGolden) % aggregators);
      if (!held_[index]) break;
    }
    held_[index] = true;
    entries_.push_back(index);
  }
}

bool A2tpSlotTable::move(uint64_t sequence, uint16_t to) {
  if (to >= held_.size() || held_[to]) return false;
  uint16_t& entry = entries_[this->entry(sequence)];
  held_[entry] = false;
  held_[to] = true;
  entry = to;
  return true;
}

A2tpSlotMover::A2tpSlotMover(const A2tpSlotTable& table, uint64_t seed)
    : table_(table), seen_(table.aggregators(), false) {
  order_.resize(table.aggregators());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = uint16_t(i);
  uint64_t state = seed;
  for (size_t i = order_.size(); i > 1; --i) {  // Fisher-Yates
    state += kSplitmixGolden;
    std::swap(order_[i - 1], order_[splitmix64_mix(state) % i]);
  }
}

void A2tpSlotMover::seen(uint16_t aggregator) {
  if (aggregator < seen_.size()) seen_[aggregator] = true;
}

std::optional<uint16_t> A2tpSlotMover::move(uint64_t sequence) {
  // An aggregator passed over is seen or held: held ones are seen once used, so neither comes
  // back.
  for (; tried_ < order_.size(); ++tried_) {
    const uint16_t to = order_[tried_];
    if (seen_[to] || table_.holds(to)) continue;
    ++tried_;
    table_.move(sequence, to);
    seen_[to] = true;
    return to;
  }
  return std::nullopt;
}

}  // namespace fs
