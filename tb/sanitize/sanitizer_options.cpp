// The sanitizer build's runtime options, built into every executable of it (CMakeLists.txt,
// FLARESIM_SANITIZE), so that ctest, scripts and a user running build-sanitize/flaresim by hand
// get the same checks: every report stops the program with a failure exit status (UBSan's too,
// which would otherwise print and carry on), leaks are reported at exit, and third-party reports
// are suppressed by tb/sanitize/ubsan.supp, whose entries each say why. Options given in
// ASAN_OPTIONS or UBSAN_OPTIONS still override these.

extern "C" const char* __asan_default_options() { return "halt_on_error=1:detect_leaks=1:strict_string_checks=1"; }

extern "C" const char* __ubsan_default_options() {
  return "halt_on_error=1:print_stacktrace=1:suppressions=" FLARESIM_SANITIZE_DIR "/ubsan.supp";
}
