/* fs_log (fs_handler.h): formats into a bounded buffer on the handler's own stack and writes the
 * line with fs_log_write. Built into the host back end and into every handler's RISC-V ELF (where
 * the linker keeps it, and picolibc's vsnprintf, only if the handler calls it), so the same code
 * formats on both back ends and its cycles count on the ISS. */
#include <stdarg.h>
#include <stdio.h>

#include "fs_handler.h"

int fs_log(const char* fmt, ...) {
  char line[FS_LOG_MAX_LINE + 1];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return -1;
  if (n > FS_LOG_MAX_LINE) n = FS_LOG_MAX_LINE;
  return fs_log_write(line, (uint32_t)n) == 0 ? n : -1;
}
