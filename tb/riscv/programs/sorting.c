/* Sorting algorithms on pseudo-random data, each verified sorted and fingerprinted: insertion
 * sort, shell sort, heap sort, recursive quicksort (median of three), top-down merge sort on the
 * heap (malloc), radix sort (unsigned, 8-bit digits), and picolibc's qsort on signed ints, on
 * structs with a stable tie-break, and on strings. */
#include <stdlib.h>

#include "testlib.h"

#define N 3000
static int32_t orig[N], a[N];

static void reset(void) { memcpy(a, orig, sizeof a); }
static uint32_t fingerprint(const int32_t* x, int n) {
  uint32_t h = 0;
  for (int i = 0; i < n; i++) h = h * 2654435761u + (uint32_t)x[i];
  return h;
}
static int sorted(const int32_t* x, int n) {
  for (int i = 1; i < n; i++)
    if (x[i - 1] > x[i]) return 0;
  return 1;
}
static void report(const char* name) {
  printf("%-10s sorted %d fp %08lx min %ld max %ld\n", name, sorted(a, N), (unsigned long)fingerprint(a, N),
         (long)a[0], (long)a[N - 1]);
  mix(fingerprint(a, N)); mix((uint32_t)sorted(a, N));
}

static void insertion(int32_t* x, int n) {
  for (int i = 1; i < n; i++) {
    int32_t v = x[i];
    int j = i - 1;
    while (j >= 0 && x[j] > v) { x[j + 1] = x[j]; j--; }
    x[j + 1] = v;
  }
}
static void shell(int32_t* x, int n) {
  for (int gap = n / 2; gap > 0; gap /= 2)
    for (int i = gap; i < n; i++) {
      int32_t v = x[i];
      int j = i;
      while (j >= gap && x[j - gap] > v) { x[j] = x[j - gap]; j -= gap; }
      x[j] = v;
    }
}
static void sift(int32_t* x, int start, int end) {
  int root = start;
  while (2 * root + 1 <= end) {
    int child = 2 * root + 1, sw = root;
    if (x[sw] < x[child]) sw = child;
    if (child + 1 <= end && x[sw] < x[child + 1]) sw = child + 1;
    if (sw == root) return;
    int32_t t = x[root]; x[root] = x[sw]; x[sw] = t;
    root = sw;
  }
}
static void heapsort_(int32_t* x, int n) {
  for (int s = (n - 2) / 2; s >= 0; s--) sift(x, s, n - 1);
  for (int e = n - 1; e > 0; e--) {
    int32_t t = x[0]; x[0] = x[e]; x[e] = t;
    sift(x, 0, e - 1);
  }
}
static void quick(int32_t* x, int lo, int hi) {
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    int32_t p1 = x[lo], p2 = x[mid], p3 = x[hi];
    int32_t pivot = p1 < p2 ? (p2 < p3 ? p2 : (p1 < p3 ? p3 : p1)) : (p1 < p3 ? p1 : (p2 < p3 ? p3 : p2));
    int i = lo, j = hi;
    while (i <= j) {
      while (x[i] < pivot) i++;
      while (x[j] > pivot) j--;
      if (i <= j) { int32_t t = x[i]; x[i] = x[j]; x[j] = t; i++; j--; }
    }
    if (j - lo < hi - i) { quick(x, lo, j); lo = i; }
    else { quick(x, i, hi); hi = j; }
  }
}
static void merge_rec(int32_t* x, int32_t* tmp, int n) {
  if (n < 2) return;
  int h = n / 2;
  merge_rec(x, tmp, h);
  merge_rec(x + h, tmp, n - h);
  int i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = x[i] <= x[j] ? x[i++] : x[j++];
  while (i < h) tmp[k++] = x[i++];
  while (j < n) tmp[k++] = x[j++];
  memcpy(x, tmp, (size_t)n * sizeof *x);
}
static void radix(int32_t* x, int n) {
  uint32_t* u = (uint32_t*)x;
  uint32_t* tmp = malloc((size_t)n * sizeof *tmp);
  for (int i = 0; i < n; i++) u[i] ^= 0x80000000u; /* signed -> unsigned order */
  for (int shift = 0; shift < 32; shift += 8) {
    uint32_t count[257] = {0};
    for (int i = 0; i < n; i++) count[((u[i] >> shift) & 0xff) + 1]++;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (int i = 0; i < n; i++) tmp[count[(u[i] >> shift) & 0xff]++] = u[i];
    memcpy(u, tmp, (size_t)n * sizeof *u);
  }
  for (int i = 0; i < n; i++) u[i] ^= 0x80000000u;
  free(tmp);
}
static int cmp_int(const void* p, const void* q) {
  int32_t x = *(const int32_t*)p, y = *(const int32_t*)q;
  return (x > y) - (x < y);
}
struct item { uint16_t key; uint16_t seq; };
static int cmp_item(const void* p, const void* q) {
  const struct item *x = p, *y = q;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}
static int cmp_str(const void* p, const void* q) { return strcmp(*(const char* const*)p, *(const char* const*)q); }

int main(void) {
  for (int i = 0; i < N; i++) orig[i] = (int32_t)rnd() >> (rnd() % 20);
  orig[7] = INT32_MIN;
  orig[8] = INT32_MAX;
  orig[9] = orig[10] = 0;
  reset(); insertion(a, N); report("insertion");
  reset(); shell(a, N); report("shell");
  reset(); heapsort_(a, N); report("heap");
  reset(); quick(a, 0, N - 1); report("quick");
  reset(); { int32_t* tmp = malloc(N * sizeof *tmp); merge_rec(a, tmp, N); free(tmp); } report("merge");
  reset(); radix(a, N); report("radix");
  reset(); qsort(a, N, sizeof a[0], cmp_int); report("qsort");
  static struct item items[500];
  for (int i = 0; i < 500; i++) { items[i].key = (uint16_t)(rnd() % 37); items[i].seq = (uint16_t)i; }
  qsort(items, 500, sizeof items[0], cmp_item);
  uint32_t h = 0;
  int ok = 1;
  for (int i = 0; i < 500; i++) {
    h = h * 31 + items[i].key * 1000u + items[i].seq;
    if (i && cmp_item(&items[i - 1], &items[i]) > 0) ok = 0;
  }
  show("struct qsort", h);
  show("struct qsort ok", (uint32_t)ok);
  const char* words[] = {"pear", "apple", "fig", "banana", "kiwi", "cherry", "date", "grape", "apple", "Zebra", "zebra", ""};
  qsort(words, sizeof words / sizeof words[0], sizeof words[0], cmp_str);
  for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++) printf("'%s' ", words[i]);
  printf("\n");
  for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++) mix((uint32_t)strlen(words[i]) * 100 + (uint32_t)words[i][0]);
  return finish("sorting");
}
