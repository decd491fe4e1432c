// The test executable's main() comes from GoogleTest; SystemC's library still needs an sc_main
// symbol to link. Tests drive sc_start() directly, each in its own process.
extern "C" int sc_main(int, char**) { return 1; }
