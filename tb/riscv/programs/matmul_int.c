/* Integer matrix multiply: 24x24 int32 (wrap-around products), 16x16 uint8 -> uint32
 * accumulation, a blocked/transposed variant cross-checked against the naive one, and
 * matrix powers of a 4x4 int64 Fibonacci-like matrix (64-bit multiply via mul/mulhu). */
#include "testlib.h"

#define N 24
static int32_t A[N][N], B[N][N], C[N][N], D[N][N], BT[N][N];

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (int32_t)(rnd() % 2001) - 1000;
      B[i][j] = (int32_t)rnd(); /* large: products wrap */
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      uint32_t s = 0;
      for (int k = 0; k < N; k++) s += (uint32_t)A[i][k] * (uint32_t)B[k][j];
      C[i][j] = (int32_t)s;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) BT[j][i] = B[i][j];
  for (int ii = 0; ii < N; ii += 8)
    for (int jj = 0; jj < N; jj += 8)
      for (int i = ii; i < ii + 8; i++)
        for (int j = jj; j < jj + 8; j++) {
          uint32_t s = 0;
          for (int k = 0; k < N; k++) s += (uint32_t)A[i][k] * (uint32_t)BT[j][k];
          D[i][j] = (int32_t)s;
        }
  uint32_t diff = 0, h = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      diff += C[i][j] != D[i][j];
      h = h * 31 + (uint32_t)C[i][j];
    }
  show("int32 matmul hash", h);
  show("blocked mismatches", diff);
  for (int i = 0; i < 4; i++) {
    printf("C[%d][0..3] =", i);
    for (int j = 0; j < 4; j++) printf(" %ld", (long)C[i][j]);
    printf("\n");
  }
  /* uint8 matrices */
  static uint8_t P[16][16], Q[16][16];
  static uint32_t R[16][16];
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      P[i][j] = (uint8_t)(i * 16 + j);
      Q[i][j] = (uint8_t)(255 - i * j);
    }
  h = 0;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      uint32_t s = 0;
      for (int k = 0; k < 16; k++) s += (uint32_t)P[i][k] * Q[k][j];
      R[i][j] = s;
      h ^= s + (h << 6) + (h >> 2);
    }
  show("uint8 matmul hash", h);
  show("R[15][15]", R[15][15]);
  /* 4x4 uint64 power */
  uint64_t M[4][4] = {{1, 1, 0, 0}, {1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 1}}, X[4][4], T[4][4];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) X[i][j] = i == j;
  for (int p = 0; p < 60; p++) {
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        uint64_t s = 0;
        for (int k = 0; k < 4; k++) s += X[i][k] * M[k][j];
        T[i][j] = s;
      }
    memcpy(X, T, sizeof X);
  }
  for (int i = 0; i < 4; i++) {
    printf("M^60 row %d:", i);
    for (int j = 0; j < 4; j++) {
      printf(" %llu", (unsigned long long)X[i][j]);
      mix((uint32_t)X[i][j]); mix((uint32_t)(X[i][j] >> 32));
    }
    printf("\n");
  }
  return finish("matmul_int");
}
