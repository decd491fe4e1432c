// Builders of configuration keys (config/config.h's ConfigKey) for the core's schema and the
// sections protocols declare: each key gets its name, one-line doc, range or choices, and a
// getter that reaches its field in a Config, from which its parser, printer and JSON follow.
#pragma once
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "config/config.h"
#include "common/errors.h"
#include "common/text.h"

namespace fs {

[[noreturn]] inline void bad_value(const std::string& key, const std::string& text, const std::string& want) {
  throw InputError("bad value '" + text + "' for '" + key + "': expected " + want);
}

inline uint64_t parse_key_uint(const std::string& key, const std::string& text, uint64_t lo, uint64_t hi) {
  const std::string t = trim(text);
  std::ostringstream want;
  want << "a whole number from " << lo << " to " << hi;
  uint64_t v = 0;
  if (!parse_decimal(t, hi, &v) || v < lo) bad_value(key, text, want.str());
  return v;
}

inline double parse_key_double(const std::string& key, const std::string& text, double lo, double hi) {
  const std::string t = trim(text);
  std::ostringstream want;
  want << "a number from " << lo << " to " << hi;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || errno || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
    bad_value(key, text, want.str());
  return v;
}

inline std::string show_double(double v) {
  std::ostringstream o;
  o.precision(12);
  o << v;
  return o.str();
}

inline std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

template <typename Get>
ConfigKey uint_key(std::string name, std::string doc, uint64_t lo, uint64_t hi, Get get) {
  ConfigKey k;
  k.name = name;
  k.doc = std::move(doc);
  k.set = [name, lo, hi, get](Config& c, const std::string& t) {
    auto& f = get(c);
    f = static_cast<std::remove_reference_t<decltype(f)>>(parse_key_uint(name, t, lo, hi));
  };
  k.show = [get](const Config& c) { return std::to_string(get(const_cast<Config&>(c))); };
  k.value = [get](const Config& c) { return ConfigValue(uint64_t(get(const_cast<Config&>(c)))); };
  return k;
}

template <typename Get>
ConfigKey size_key(std::string name, std::string doc, uint64_t lo, uint64_t hi, Get get) {
  ConfigKey k = uint_key(name, std::move(doc), lo, hi, get);
  k.choices = "bytes, optionally with a KiB, MiB or GiB suffix";
  k.set = [name, lo, hi, get](Config& c, const std::string& t) {
    uint64_t v = parse_size(name, t);
    if (v < lo || v > hi)
      bad_value(name, t, "a size from " + std::to_string(lo) + " to " + std::to_string(hi) + " bytes");
    get(c) = v;
  };
  return k;
}

template <typename Get>
ConfigKey double_key(std::string name, std::string doc, double lo, double hi, Get get) {
  ConfigKey k;
  k.name = name;
  k.doc = std::move(doc);
  k.set = [name, lo, hi, get](Config& c, const std::string& t) { get(c) = parse_key_double(name, t, lo, hi); };
  k.show = [get](const Config& c) { return show_double(get(const_cast<Config&>(c))); };
  k.value = [get](const Config& c) { return ConfigValue(double(get(const_cast<Config&>(c)))); };
  return k;
}

template <typename Get>
ConfigKey bool_key(std::string name, std::string doc, Get get) {
  ConfigKey k;
  k.name = name;
  k.doc = std::move(doc);
  k.choices = "true, false (or on, off, 1, 0)";
  k.set = [name, get](Config& c, const std::string& t) {
    const std::string v = trim(t);
    if (v == "true" || v == "on" || v == "1")
      get(c) = true;
    else if (v == "false" || v == "off" || v == "0")
      get(c) = false;
    else
      bad_value(name, t, "true or false");
  };
  k.show = [get](const Config& c) { return std::string(get(const_cast<Config&>(c)) ? "true" : "false"); };
  k.value = [get](const Config& c) { return ConfigValue(bool(get(const_cast<Config&>(c)))); };
  return k;
}

// A string key; `check` validates (throws) and may be empty; `choices` lists fixed values.
template <typename Get>
ConfigKey string_key(std::string name, std::string doc, std::vector<std::string> choices, Get get,
                     std::function<void(const std::string&, const std::string&)> check = {}) {
  ConfigKey k;
  k.name = name;
  k.doc = std::move(doc);
  k.choices = join(choices, ", ");
  k.set = [name, choices, get, check](Config& c, const std::string& t) {
    // The value is echoed into the stats JSON, which holds UTF-8 only.
    if (!valid_utf8(t)) throw InputError("bad value for '" + name + "': not valid UTF-8 text");
    const std::string v = trim(t);
    if (!choices.empty()) {
      bool found = false;
      for (const auto& ch : choices) found = found || ch == v;
      if (!found) bad_value(name, t, "one of " + join(choices, ", "));
    }
    if (check) check(name, v);
    get(c) = v;
  };
  k.show = [get](const Config& c) { return get(const_cast<Config&>(c)); };
  k.value = [get](const Config& c) { return ConfigValue(std::string(get(const_cast<Config&>(c)))); };
  return k;
}

// A key whose value is one of an enum's names (config/choices.h), parsed into the enum when set.
template <typename Get>
ConfigKey enum_key(std::string name, std::string doc, Get get) {
  using E = std::remove_reference_t<decltype(get(std::declval<Config&>()))>;
  std::vector<std::string> names(ChoiceNames<E>::names.begin(), ChoiceNames<E>::names.end());
  ConfigKey k;
  k.name = name;
  k.doc = std::move(doc);
  k.choices = join(names, ", ");
  k.set = [name, names, get](Config& c, const std::string& t) {
    E e;
    if (!parse_choice(trim(t), &e)) bad_value(name, t, "one of " + join(names, ", "));
    get(c) = e;
  };
  k.show = [get](const Config& c) { return std::string(choice_name(get(const_cast<Config&>(c)))); };
  k.value = [get](const Config& c) { return ConfigValue(std::string(choice_name(get(const_cast<Config&>(c))))); };
  return k;
}

// A getter for field `field` of protocol section `section` (of struct type Type).
#define FS_SECTION_FIELD(Type, section, field) [](Config& c) -> auto& { return c.sections.get<Type>(section).field; }

}  // namespace fs
