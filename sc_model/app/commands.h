// The CLI's subcommands. Each takes its arguments (after the subcommand name) and returns the
// process exit code: 0 success, 1 simulation error (including a failed --verify), 2 bad input or
// usage. Errors are printed to stderr as "flaresim: <message>".
#pragma once
#include <string>
#include <vector>

namespace fs {

int cmd_run(const std::vector<std::string>& args);
int cmd_gen(const std::vector<std::string>& args);
int cmd_info(const std::vector<std::string>& args);
int cmd_iss(const std::vector<std::string>& args);  // sc_model/app/cmd_iss.cpp
int cmd_sweep(const std::vector<std::string>& args);  // sc_model/app/cmd_sweep.cpp
int cmd_plot(const std::vector<std::string>& args);   // sc_model/app/cmd_plot.cpp (runs plot.py)
int cmd_trace(const std::vector<std::string>& args);  // sc_model/app/cmd_trace.cpp
int cli_main(int argc, char** argv);

}  // namespace fs
