/* Held-out ISS speed program (bench/iss-speed --held-out): quicksort and a bottom-up merge sort
 * of 60,000 pseudo-random 32-bit integers, 4 rounds, each checked sorted and summarised by a
 * position-weighted checksum. Not part of the test suite. */
#include <stdint.h>
#include <stdio.h>

#define N 60000
static uint32_t a[N], b[N], tmp[N];

static void quicksort(uint32_t* v, int lo, int hi) {
  while (lo < hi) {
    const uint32_t p = v[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] < p) i++;
      while (v[j] > p) j--;
      if (i <= j) {
        const uint32_t t = v[i];
        v[i++] = v[j];
        v[j--] = t;
      }
    }
    if (j - lo < hi - i) {
      quicksort(v, lo, j);
      lo = i;
    } else {
      quicksort(v, i, hi);
      hi = j;
    }
  }
}

static void mergesort(uint32_t* v, int n) {
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = v[i] <= v[j] ? v[i++] : v[j++];
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    for (int k = 0; k < n; k++) v[k] = tmp[k];
  }
}

int main(void) {
  uint32_t x = 2463534242u;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < N; i++) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      a[i] = b[i] = x;
    }
    quicksort(a, 0, N - 1);
    mergesort(b, N);
    uint32_t sum = 0, ok = 1;
    for (int i = 0; i < N; i++) {
      if (a[i] != b[i] || (i && a[i - 1] > a[i])) ok = 0;
      sum += a[i] * (uint32_t)(i + 1);
    }
    printf("round %d: %s, checksum %08lx\n", round, ok ? "sorted" : "NOT SORTED", (unsigned long)sum);
  }
  return 0;
}
