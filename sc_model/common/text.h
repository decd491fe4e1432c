// Small text helpers shared by the configuration, rule, route and expected-file parsers.
#pragma once
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace fs {

// `s` without leading and trailing blanks (spaces, tabs, CR, LF).
inline std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// The whitespace-separated words of a line of a text file, up to a '#' comment.
inline std::vector<std::string> line_words(const std::string& line) {
  std::istringstream in(line.substr(0, line.find('#')));
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Parses a plain decimal number (digits only: no sign, no 0x, no octal) no larger than `max`.
inline bool parse_decimal(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = uint64_t(c - '0');
    if (d > max || v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

// A sorted list of numbers as ranges, the way port lists are written: "0-14,16".
template <typename Sorted>
std::string format_ranges(const Sorted& values) {
  std::string out;
  auto it = values.begin();
  while (it != values.end()) {
    const auto first = *it;
    auto last = first;
    for (++it; it != values.end() && *it == last + 1; ++it) last = *it;
    out += (out.empty() ? "" : ",") + std::to_string(first) + (last != first ? "-" + std::to_string(last) : "");
  }
  return out;
}

// True if `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF):
// what the JSON outputs can hold. Names and values that are not are refused before a run.
inline bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = (unsigned char)s[i];
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const unsigned char d = (unsigned char)s[i + k];
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

// "0x%08x" of a 32-bit value (addresses, instruction words in messages).
inline std::string hex32(uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string out = "0x00000000";
  for (int i = 9; i >= 2; --i, v >>= 4) out[size_t(i)] = digits[v & 15];
  return out;
}

// `s` quoted for a POSIX shell if it needs it (commands flaresim prints or writes for the user).
inline std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// How the user started flaresim (its argv[0], e.g. build/flaresim), for the commands it prints
// for them to run next; "flaresim" until set_program_path() is called.
inline std::string& program_path_storage() {
  static std::string path = "flaresim";
  return path;
}
inline const std::string& program_path() { return program_path_storage(); }
inline void set_program_path(const std::string& argv0) { program_path_storage() = argv0.empty() ? "flaresim" : argv0; }

}  // namespace fs

