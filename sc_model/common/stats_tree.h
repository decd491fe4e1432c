// What a block reports about itself after a run: a tree of named values (whole numbers, numbers,
// text, objects, arrays) that the app turns into the stats JSON, so that each block says what it
// counted without knowing the output format. Object members are kept by name, as in the JSON.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace fs {

class StatsTree {
 public:
  enum class Kind { kNull, kUint, kDouble, kBool, kText, kObject, kArray };

  // The member `key` of an object (made one), created empty if new.
  StatsTree& operator[](const std::string& key) {
    kind_ = Kind::kObject;
    return members_[key];
  }
  // A new last element of an array (made one).
  StatsTree& append() {
    kind_ = Kind::kArray;
    items_.emplace_back();
    return items_.back();
  }
  // An empty array or object even with no element (they print as [] and {}).
  StatsTree& make_array() { return kind_ = Kind::kArray, *this; }
  StatsTree& make_object() { return kind_ = Kind::kObject, *this; }

  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  StatsTree& operator=(T v) {
    kind_ = Kind::kUint;
    uint_ = uint64_t(v);
    return *this;
  }
  StatsTree& operator=(double v) { return kind_ = Kind::kDouble, double_ = v, *this; }
  StatsTree& operator=(bool v) { return kind_ = Kind::kBool, bool_ = v, *this; }
  StatsTree& operator=(const std::string& v) { return kind_ = Kind::kText, text_ = v, *this; }
  StatsTree& operator=(const char* v) { return *this = std::string(v); }
  template <typename T>
  StatsTree& operator=(const std::vector<T>& v) {
    make_array();
    for (const T& x : v) append() = x;
    return *this;
  }
  template <typename T>
  StatsTree& operator=(const std::map<std::string, T>& m) {
    make_object();
    for (const auto& kv : m) (*this)[kv.first] = kv.second;
    return *this;
  }

  Kind kind() const { return kind_; }
  uint64_t uint_value() const { return uint_; }
  double double_value() const { return double_; }
  bool bool_value() const { return bool_; }
  const std::string& text() const { return text_; }
  const std::map<std::string, StatsTree>& members() const { return members_; }
  const std::vector<StatsTree>& items() const { return items_; }

 private:
  Kind kind_ = Kind::kNull;
  uint64_t uint_ = 0;
  double double_ = 0;
  bool bool_ = false;
  std::string text_;
  std::map<std::string, StatsTree> members_;
  std::vector<StatsTree> items_;
};

}  // namespace fs
