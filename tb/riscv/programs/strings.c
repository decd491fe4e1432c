/* picolibc string and memory functions: memcpy (all alignments and lengths), memmove with
 * forward and backward overlap, memset, memcmp, memchr, strlen, strcmp/strncmp (including bytes
 * >= 0x80, which compare as unsigned), strcpy/strncpy/strcat, strchr/strrchr, strstr, strspn/
 * strcspn, strtok, strtol/strtoul (bases, signs, overflow), atoi, and sprintf/snprintf. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static uint8_t src[300], dst[300];

static uint32_t hash_buf(const void* p, size_t n) {
  const uint8_t* b = p;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
  return h;
}

int main(void) {
  for (int i = 0; i < 300; i++) src[i] = (uint8_t)(i * 37 + 11);
  /* memcpy: every source/dest alignment, many lengths */
  uint32_t h = 0;
  for (int so = 0; so < 4; so++)
    for (int d = 0; d < 4; d++)
      for (int len = 0; len < 70; len += 3) {
        memset(dst, 0xee, sizeof dst);
        memcpy(dst + d, src + so, (size_t)len);
        h = h * 3 + hash_buf(dst, 100);
      }
  show("memcpy sweep", h);
  /* memmove overlaps */
  uint8_t buf[64];
  for (int i = 0; i < 64; i++) buf[i] = (uint8_t)i;
  memmove(buf + 5, buf, 40);
  show("memmove forward", hash_buf(buf, 64));
  for (int i = 0; i < 64; i++) buf[i] = (uint8_t)i;
  memmove(buf, buf + 7, 50);
  show("memmove backward", hash_buf(buf, 64));
  for (int i = 0; i < 64; i++) buf[i] = (uint8_t)i;
  memmove(buf + 1, buf, 63);
  show("memmove by one", hash_buf(buf, 64));
  /* memset odd ranges */
  memset(buf, 0, sizeof buf);
  memset(buf + 3, 0xa5, 29);
  memset(buf + 40, 0x100 + 0x3c, 1);
  show("memset", hash_buf(buf, 64));
  /* comparisons */
  show("memcmp lt", (uint32_t)(memcmp("abc\x80", "abc\x01", 4) > 0));
  show("strcmp hi bytes", (uint32_t)(strcmp("\xff", "a") > 0));
  show("strcmp eq", (uint32_t)strcmp("hello", "hello"));
  show("strcmp lt", (uint32_t)(strcmp("hell", "hello") < 0));
  show("strncmp 3", (uint32_t)strncmp("abcdef", "abcxyz", 3));
  show("memchr", (uint32_t)((const char*)memchr("find the x here", 'x', 15) - "find the x here"));
  /* lengths and searches */
  const char* text = "the quick brown fox jumps over the lazy dog";
  show("strlen", (uint32_t)strlen(text));
  show("strchr o", (uint32_t)(strchr(text, 'o') - text));
  show("strrchr o", (uint32_t)(strrchr(text, 'o') - text));
  show("strstr lazy", (uint32_t)(strstr(text, "lazy") - text));
  show("strstr none", (uint32_t)(strstr(text, "cat") == NULL));
  show("strspn", (uint32_t)strspn(text, "the "));
  show("strcspn", (uint32_t)strcspn(text, "xyz"));
  for (size_t n = 0; n < 20; n++) {
    char s[32];
    memset(s, 'a', n);
    s[n] = 0;
    mix((uint32_t)strlen(s + (n & 3 ? 1 : 0)));
  }
  /* copies and concatenation */
  char out[128];
  strcpy(out, "alpha");
  strcat(out, "-beta");
  strncat(out, "-gammadelta", 6);
  printf("strcat: %s\n", out);
  mix(hash_buf(out, strlen(out)));
  char pad[12];
  memset(pad, 'z', sizeof pad);
  strncpy(pad, "abc", sizeof pad);
  show("strncpy pad", hash_buf(pad, sizeof pad));
  /* tokenising */
  char csv[] = "10,-20,,0x1F,077,  42 ,end";
  uint32_t tokh = 0;
  for (char* tok = strtok(csv, ","); tok; tok = strtok(NULL, ",")) {
    long v = strtol(tok, NULL, 0);
    printf("token '%s' -> %ld\n", tok, v);
    tokh = tokh * 31 + (uint32_t)v;
  }
  show("tokens", tokh);
  /* conversions */
  show("strtol -2147483648", (uint32_t)strtol("-2147483648", NULL, 10));
  show("strtol overflow", (uint32_t)strtol("99999999999", NULL, 10));
  show("strtoul hex", (uint32_t)strtoul("ffffFFFF", NULL, 16));
  show("strtoul base36", (uint32_t)strtoul("zz", NULL, 36));
  show("strtol binary", (uint32_t)strtol("-101101", NULL, 2));
  const char* num = "123abc";
  char* end;
  show("strtol end", (uint32_t)strtol(num, &end, 10));
  show("strtol end offset", (uint32_t)(end - num));
  show("atoi", (uint32_t)atoi("  -777xyz"));
  /* formatted output into buffers */
  int n = sprintf(out, "[%5d|%-5d|%05d|%+d|%x|%X|%o|%c|%s|%.3s|%%]", 42, -42, 42, 7, 0xbeef, 0xbeef, 8, 'Q', "str", "truncate");
  printf("sprintf: %s (%d)\n", out, n);
  mix(hash_buf(out, (size_t)n));
  n = snprintf(out, 10, "%s", "0123456789abcdef");
  printf("snprintf: %s (%d)\n", out, n);
  mix(hash_buf(out, strlen(out))); mix((uint32_t)n);
  n = snprintf(out, sizeof out, "%10.4s|%-10s|%*d|%-*d|", "abcdefg", "left", 6, 99, 6, 99);
  printf("widths: %s (%d)\n", out, n);
  mix(hash_buf(out, (size_t)n));
  return finish("strings");
}
