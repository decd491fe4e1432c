// Entry point of the `flaresim` executable. We provide main() ourselves (SystemC's library would
// otherwise) so that SystemC's copyright banner can be switched off before SystemC starts, and
// stdout holds only our output. sc_main must still exist for the library to link.
#include <cstdlib>
#include <systemc>

#include "app/commands.h"

int sc_main(int, char**) { return 1; }  // unused: main() below is the entry point

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return fs::cli_main(argc, argv);
}
