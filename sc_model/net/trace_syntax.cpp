// Registered text-trace syntaxes (the built-in field syntaxes and the protocols') and the token
// helpers (see trace_syntax.h).
#include "net/trace_syntax.h"

#include <algorithm>
#include <stdexcept>

#include "net/field_syntax.h"

namespace fs {
namespace {

std::vector<const TraceSyntax*>& registry() {  // by keyword; the built-in field syntaxes from the start
  static std::vector<const TraceSyntax*> syntaxes = [] {
    std::vector<const TraceSyntax*> v = field_trace_syntaxes();
    std::sort(v.begin(), v.end(), [](const TraceSyntax* a, const TraceSyntax* b) { return a->keyword() < b->keyword(); });
    return v;
  }();
  return syntaxes;
}

}  // namespace

void register_trace_syntax(const TraceSyntax* syntax) {
  if (syntax->keyword() == "hex" || find_trace_syntax(syntax->keyword()))
    throw std::logic_error("trace syntax '" + syntax->keyword() + "' registered twice");
  auto& r = registry();
  r.insert(std::upper_bound(r.begin(), r.end(), syntax,
                            [](const TraceSyntax* a, const TraceSyntax* b) { return a->keyword() < b->keyword(); }),
           syntax);
}

const TraceSyntax* find_trace_syntax(const std::string& keyword) {
  for (const TraceSyntax* t : registry())
    if (t->keyword() == keyword) return t;
  return nullptr;
}

const std::vector<const TraceSyntax*>& trace_syntaxes() { return registry(); }

// A token as it may appear in a message: at most 40 characters, non-printables escaped.
std::string quote_token(const std::string& tok) {
  static const char* hex = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < tok.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(tok[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (tok.size() > 40) out += "...";
  return out + "'";
}

bool token_is_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Unsigned decimal without sign; false if not digits or above max.
bool parse_token_uint(const std::string& s, uint64_t max, uint64_t* out) {
  if (!token_is_digits(s)) return false;
  uint64_t v = 0;
  for (char c : s) {
    const uint64_t d = uint64_t(c - '0');
    if (d > max || v > (max - d) / 10) return false;  // d > max: max - d would wrap (max < 9)
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool parse_token_number(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return parse_token_uint(s, max, out);
  uint64_t v = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0 || v > (max - uint64_t(d)) / 16) return false;
    v = v * 16 + uint64_t(d);
  }
  *out = v;
  return true;
}

}  // namespace fs
