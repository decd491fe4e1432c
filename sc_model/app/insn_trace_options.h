// The `run` options that choose what --trace-insn writes (pspin/insn_trace.h): the filters by
// cluster, HPU, handler set, packet range and time window, the line limit and symbolised PCs.
#pragma once
#include <boost/program_options.hpp>

#include "pspin/insn_trace.h"

namespace fs {

boost::program_options::options_description insn_trace_options_description();
// The options given; InputError names a bad one. With a filter but no --trace-insn, an error.
InsnTraceOptions insn_trace_options(const boost::program_options::variables_map& vm);

}  // namespace fs
