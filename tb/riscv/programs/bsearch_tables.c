/* Searching and lookup: picolibc bsearch over a sorted table (hits, misses, both ends), a
 * hand-written lower_bound, an open-addressing hash table with linear probing (insert, lookup,
 * delete with tombstones), and a binary-search-tree built on the heap with in-order traversal. */
#include <stdlib.h>

#include "testlib.h"

static int cmp_u32(const void* p, const void* q) {
  uint32_t x = *(const uint32_t*)p, y = *(const uint32_t*)q;
  return (x > y) - (x < y);
}

static int lower_bound(const uint32_t* a, int n, uint32_t key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (a[mid] < key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

#define HSIZE 1024
static uint32_t hkeys[HSIZE], hvals[HSIZE];
static uint8_t hstate[HSIZE]; /* 0 empty, 1 used, 2 deleted */
static uint32_t hslot(uint32_t k) { return (k * 2654435761u) >> 22; }
static void hput(uint32_t k, uint32_t v) {
  uint32_t i = hslot(k);
  int tomb = -1;
  while (hstate[i] != 0) {
    if (hstate[i] == 1 && hkeys[i] == k) { hvals[i] = v; return; }
    if (hstate[i] == 2 && tomb < 0) tomb = (int)i;
    i = (i + 1) & (HSIZE - 1);
  }
  if (tomb >= 0) i = (uint32_t)tomb;
  hkeys[i] = k; hvals[i] = v; hstate[i] = 1;
}
static int hget(uint32_t k, uint32_t* v) {
  uint32_t i = hslot(k);
  while (hstate[i] != 0) {
    if (hstate[i] == 1 && hkeys[i] == k) { *v = hvals[i]; return 1; }
    i = (i + 1) & (HSIZE - 1);
  }
  return 0;
}
static void hdel(uint32_t k) {
  uint32_t i = hslot(k);
  while (hstate[i] != 0) {
    if (hstate[i] == 1 && hkeys[i] == k) { hstate[i] = 2; return; }
    i = (i + 1) & (HSIZE - 1);
  }
}

struct node { uint32_t key; struct node *l, *r; };
static struct node* insert(struct node* t, uint32_t k) {
  if (!t) {
    t = malloc(sizeof *t);
    t->key = k; t->l = t->r = NULL;
    return t;
  }
  if (k < t->key) t->l = insert(t->l, k);
  else if (k > t->key) t->r = insert(t->r, k);
  return t;
}
static uint32_t walk_hash, walk_count, depth_max;
static void walk(const struct node* t, uint32_t depth) {
  if (!t) return;
  if (depth > depth_max) depth_max = depth;
  walk(t->l, depth + 1);
  walk_hash = walk_hash * 31 + t->key;
  walk_count++;
  walk(t->r, depth + 1);
}
static void release(struct node* t) {
  if (!t) return;
  release(t->l);
  release(t->r);
  free(t);
}

int main(void) {
  static uint32_t table[1000];
  for (int i = 0; i < 1000; i++) table[i] = rnd() % 100000;
  qsort(table, 1000, sizeof table[0], cmp_u32);
  uint32_t hits = 0, misses = 0, lbh = 0;
  for (uint32_t k = 0; k < 100000; k += 37) {
    const uint32_t* p = bsearch(&k, table, 1000, sizeof table[0], cmp_u32);
    if (p) hits++; else misses++;
    lbh = lbh * 7 + (uint32_t)lower_bound(table, 1000, k);
  }
  show("bsearch hits", hits);
  show("bsearch misses", misses);
  show("lower_bound hash", lbh);
  show("first found", bsearch(&table[0], table, 1000, 4, cmp_u32) != NULL);
  show("last found", bsearch(&table[999], table, 1000, 4, cmp_u32) != NULL);
  uint32_t big = 0xffffffffu;
  show("absent max", bsearch(&big, table, 1000, 4, cmp_u32) == NULL);

  for (uint32_t k = 1; k <= 700; k++) hput(k * 7919u, k);
  for (uint32_t k = 1; k <= 700; k += 3) hdel(k * 7919u);
  for (uint32_t k = 1; k <= 100; k++) hput(k * 7919u, k + 1000);
  uint32_t found = 0, sumv = 0, v;
  for (uint32_t k = 1; k <= 800; k++)
    if (hget(k * 7919u, &v)) { found++; sumv += v; }
  show("hash found", found);
  show("hash sum", sumv);

  struct node* root = NULL;
  for (int i = 0; i < 2000; i++) root = insert(root, rnd() % 5000);
  walk(root, 0);
  show("bst count", walk_count);
  show("bst hash", walk_hash);
  show("bst depth", depth_max);
  release(root);
  return finish("bsearch_tables");
}
