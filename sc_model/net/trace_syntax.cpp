// Registered text-trace syntaxes and the token helpers (see trace_syntax.h).
#include "net/trace_syntax.h"

#include <algorithm>
#include <stdexcept>

namespace fs {
namespace {

std::vector<const TraceSyntax*>& registry() {  // by keyword
  static std::vector<const TraceSyntax*> syntaxes;
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
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace fs
