// MAC learning table (see mac_table.h).
#include "switch/mac_table.h"

namespace fs {

void MacTable::learn(uint16_t vid, uint64_t mac, unsigned port, Picos now) {
  const auto key = std::make_pair(vid, mac);
  auto it = table_.find(key);
  if (it != table_.end() && expired(it->second, now)) {  // learned afresh
    table_.erase(it);
    ++aged;
  } else if (it != table_.end()) {
    if (it->second.port != port) ++moved;
    it->second = Entry{port, now};
    return;
  }
  if (table_.size() >= capacity_) forget_aged(now);
  if (table_.size() >= capacity_) {
    ++refused;
    return;
  }
  table_.emplace(key, Entry{port, now});
  ++learned;
  if (table_.size() > entries_max) entries_max = table_.size();
}

std::optional<unsigned> MacTable::find(uint16_t vid, uint64_t mac, Picos now) {
  const auto it = table_.find(std::make_pair(vid, mac));
  if (it == table_.end()) return std::nullopt;
  if (expired(it->second, now)) {
    table_.erase(it);
    ++aged;
    return std::nullopt;
  }
  return it->second.port;
}

void MacTable::forget_aged(Picos now) {
  for (auto it = table_.begin(); it != table_.end();) {
    if (expired(it->second, now)) {
      it = table_.erase(it);
      ++aged;
    } else {
      ++it;
    }
  }
}

}  // namespace fs
