/*
 * The system layer of the ISS differential-test programs: picolibc's stdio, exit and malloc on
 * top of the Linux user-mode ABI, using only three system calls (ecall, number in a7):
 *   64 write(a0 = fd, a1 = buf, a2 = len)  -> a0 = bytes written or -errno
 *   93 exit(a0 = status)                   (does not return)
 *   94 exit_group(a0 = status)             (does not return; fallback if 93 returns)
 * stdout and stderr both go to fd 1 through a small line buffer, flushed at '\n', when full,
 * on fflush(), and in _exit(). The heap is the fixed 1 MiB .heap region of link.ld
 * (__heap_start..__heap_end), handed out by sbrk(); no brk system call is made.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

static long sys_call3(long n, long a, long b, long c) {
  register long a0 __asm__("a0") = a;
  register long a1 __asm__("a1") = b;
  register long a2 __asm__("a2") = c;
  register long a7 __asm__("a7") = n;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

ssize_t write(int fd, const void* buf, size_t len) {
  const char* p = (const char*)buf;
  size_t done = 0;
  while (done < len) {
    long r = sys_call3(64, fd, (long)(p + done), (long)(len - done));
    if (r <= 0) {
      if (done) break;
      errno = r < 0 ? (int)-r : EIO;
      return -1;
    }
    done += (size_t)r;
  }
  return (ssize_t)done;
}

static char out_buf[256];
static size_t out_len;

static int out_flush(FILE* f) {
  (void)f;
  if (out_len) {
    write(1, out_buf, out_len);
    out_len = 0;
  }
  return 0;
}

static int out_put(char c, FILE* f) {
  out_buf[out_len++] = c;
  if (c == '\n' || out_len == sizeof out_buf) out_flush(f);
  return (unsigned char)c;
}

static int no_get(FILE* f) {
  (void)f;
  return EOF;
}

static FILE out_file = FDEV_SETUP_STREAM(out_put, no_get, out_flush, _FDEV_SETUP_RW);
FILE* const stdin = &out_file;
FILE* const stdout = &out_file;
FILE* const stderr = &out_file;

void _exit(int status) {
  out_flush(stdout);
  sys_call3(93, status, 0, 0);
  sys_call3(94, status, 0, 0);
  for (;;) {
  }
}

extern char __heap_start[], __heap_end[];
static char* heap_top = __heap_start;

void* sbrk(ptrdiff_t incr) {
  char* old = heap_top;
  if (incr < 0 ? (size_t)-incr > (size_t)(heap_top - __heap_start)
               : (size_t)incr > (size_t)(__heap_end - heap_top)) {
    errno = ENOMEM;
    return (void*)-1;
  }
  heap_top += incr;
  return old;
}

/* Other hooks picolibc may pull in; none of them makes a system call. */
ssize_t read(int fd, void* buf, size_t len) {
  (void)fd; (void)buf; (void)len;
  errno = ENOSYS;
  return -1;
}
int close(int fd) {
  (void)fd;
  errno = ENOSYS;
  return -1;
}
off_t lseek(int fd, off_t off, int whence) {
  (void)fd; (void)off; (void)whence;
  errno = ENOSYS;
  return -1;
}
pid_t getpid(void) { return 1; }
int kill(pid_t pid, int sig) {
  (void)pid; (void)sig;
  _exit(128 + sig);
}
