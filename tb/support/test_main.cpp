// main() for the test executables: GoogleTest's runner, and the sc_main symbol SystemC's library
// needs to link. main is defined here, in an object of every executable, because libsystemc.so
// has a main of its own (it calls sc_main): which one a library on the link line would give
// depends on the libraries' order. Tests drive sc_start() directly, each in its own process.
#include <gtest/gtest.h>

extern "C" int sc_main(int, char**) { return 1; }

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
