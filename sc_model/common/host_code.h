// Where an address of the simulator's own host code is, for messages about native handlers: the
// function and source line as the program's debug information has them, read by binutils'
// addr2line (run once per address; a fault path, not a hot one). addr2line reads DWARF line
// tables as they are, inlined functions included, from the file the address is mapped from,
// with nothing linked into the simulator; the handlers' host code is built with -g
// (handlers/CMakeLists.txt) even in Release builds, so their lines are known. Without addr2line,
// or for code without debug information (the C library), the nearest exported symbol (dladdr)
// and the file say what little is known.
#pragma once
#include <cstdint>
#include <string>

namespace fs {

// "host pc 0x55d3c4a1b2c3 in bad_handler at /src/x.c:31", with ", inlined into caller at
// /src/y.c:12" for each function the code at the address is inlined into. `return_address`:
// the address is one a call returns to, and the line is that of the call (the byte before it).
std::string describe_host_pc(uintptr_t pc, bool return_address = false);

// Whether `pc` is in the main program's code (not a shared library's).
bool in_main_program(uintptr_t pc);

}  // namespace fs
