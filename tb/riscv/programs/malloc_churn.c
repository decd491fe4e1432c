/* Heap churn through picolibc's malloc over the runtime's sbrk (1 MiB heap in .heap): thousands
 * of pseudo-random malloc/free/realloc/calloc operations on a table of live blocks, each block
 * filled with a pattern derived from its id and verified before it is freed or grown; calloc
 * must return zeroed memory; allocation failure (a request larger than the heap) returns NULL.
 * Only contents and counts are printed, never addresses. */
#include <stdlib.h>

#include "testlib.h"

#define SLOTS 128
static uint8_t* ptr[SLOTS];
static uint32_t size[SLOTS], id[SLOTS];

static void fill(int s) {
  for (uint32_t i = 0; i < size[s]; i++) ptr[s][i] = (uint8_t)(id[s] * 31 + i * 7);
}
static int check(int s, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (ptr[s][i] != (uint8_t)(id[s] * 31 + i * 7)) return 0;
  return 1;
}

int main(void) {
  uint32_t next_id = 1, mallocs = 0, frees = 0, reallocs = 0, callocs = 0, bad = 0, fails = 0, live_bytes_max = 0;
  uint32_t live = 0;
  for (int step = 0; step < 6000; step++) {
    int s = (int)(rnd() % SLOTS);
    uint32_t op = rnd() % 10;
    if (!ptr[s]) {
      uint32_t n = (rnd() % 8 == 0) ? rnd() % 8000 + 1 : rnd() % 200 + 1;
      if (op < 3) {
        ptr[s] = calloc(n, 1);
        callocs++;
        if (ptr[s])
          for (uint32_t i = 0; i < n; i++) bad += ptr[s][i] != 0;
      } else {
        ptr[s] = malloc(n);
        mallocs++;
      }
      if (!ptr[s]) { fails++; continue; }
      size[s] = n;
      id[s] = next_id++;
      live += n;
      fill(s);
    } else if (op < 6) {
      bad += !check(s, size[s]);
      live -= size[s];
      free(ptr[s]);
      ptr[s] = NULL;
      frees++;
    } else {
      uint32_t n = rnd() % 3000 + 1;
      uint8_t* q = realloc(ptr[s], n);
      reallocs++;
      if (!q) { fails++; continue; }
      ptr[s] = q;
      bad += !check(s, n < size[s] ? n : size[s]);
      live = live - size[s] + n;
      size[s] = n;
      fill(s);
    }
    if (live > live_bytes_max) live_bytes_max = live;
  }
  for (int s = 0; s < SLOTS; s++)
    if (ptr[s]) {
      bad += !check(s, size[s]);
      free(ptr[s]);
      ptr[s] = NULL;
    }
  show("mallocs", mallocs);
  show("callocs", callocs);
  show("reallocs", reallocs);
  show("frees", frees);
  show("corrupted blocks", bad);
  show("failed allocations", fails);
  show("max live bytes", live_bytes_max);
  void* huge = malloc(2u << 20);
  show("2 MiB malloc is NULL", huge == NULL);
  void* again = malloc(100000);
  show("100 KB malloc after churn ok", again != NULL);
  free(again);
  /* a linked list built and torn down */
  struct cell { struct cell* next; uint32_t v; };
  struct cell* head = NULL;
  for (uint32_t i = 0; i < 5000; i++) {
    struct cell* c = malloc(sizeof *c);
    c->v = i * i;
    c->next = head;
    head = c;
  }
  uint32_t sum = 0, n = 0;
  while (head) {
    struct cell* c = head;
    head = c->next;
    sum += c->v;
    n++;
    free(c);
  }
  show("list sum", sum);
  show("list n", n);
  return finish("malloc_churn");
}
