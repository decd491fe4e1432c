// Links one folder's whole library with only the folders it declares (CMakeLists.txt's
// flaresim_folder): a call into a folder it may not use is then an undefined reference, and the
// build fails. Never run.
extern "C" int sc_main(int, char**) { return 1; }
int main() { return 0; }
