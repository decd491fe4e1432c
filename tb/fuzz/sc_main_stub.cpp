// libsystemc.so refers to sc_main, which every program linking it must define. The harnesses
// never start SystemC; this one is never called.
extern "C" int sc_main(int, char**) { return 1; }
