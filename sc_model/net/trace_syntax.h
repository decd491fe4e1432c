// Text-trace syntaxes: a line '<time> <port> KEYWORD ...' whose frame the syntax builds from the
// tokens after the keyword (traces/FORMAT.md). The trace reader knows only 'hex' itself; the
// registry starts with the built-in field syntaxes (eth, ip, udp, tcp: net/field_syntax.h), and
// protocols register theirs before main() runs (plugin/protocol.h).
// Also the token helpers every syntax uses for its messages and numbers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "net/packet.h"

namespace fs {

class TraceSyntax {
 public:
  virtual ~TraceSyntax() = default;
  virtual std::string keyword() const = 0;  // e.g. the protocol's short name
  virtual std::string usage() const = 0;    // the line form after '<time> <port> ', for messages
  // The frame described by tokens[first..] of a line on `port`; throws InputError "where: reason".
  virtual Bytes build(const std::vector<std::string>& tokens, size_t first, uint16_t port,
                      const std::string& where) const = 0;
};

// Registers a syntax (kept for the life of the program); a keyword may be registered once.
void register_trace_syntax(const TraceSyntax* syntax);
// The syntax for a keyword, or nullptr; and all of them, by keyword.
const TraceSyntax* find_trace_syntax(const std::string& keyword);
const std::vector<const TraceSyntax*>& trace_syntaxes();

// A token as it may appear in a message: at most 40 characters, non-printables escaped, quoted.
std::string quote_token(const std::string& tok);
// Digits only (no sign), at least one.
bool token_is_digits(const std::string& s);
// Unsigned decimal without sign; false if not digits or above max.
bool parse_token_uint(const std::string& s, uint64_t max, uint64_t* out);
// The same, or hexadecimal after "0x" ("0x88b5"): header fields in field lines and filters.
bool parse_token_number(const std::string& s, uint64_t max, uint64_t* out);

}  // namespace fs
