// The text trace's built-in field syntaxes: '<time> <port> eth|ip|udp|tcp key=value ...' lines
// that describe an ordinary frame by its header fields (traces/FORMAT.md, "Frames by fields").
// They plug into the same registry as the protocols' syntaxes (net/trace_syntax.h), which holds
// them from the start.
#pragma once
#include <vector>

#include "net/trace_syntax.h"

namespace fs {

const std::vector<const TraceSyntax*>& field_trace_syntaxes();

}  // namespace fs
