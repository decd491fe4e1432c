/* Single-precision matrix work: 20x20 matrix multiply (GCC contracts the inner product into
 * fmadd.s), the same product accumulated in reverse order, a Gauss-Jordan inversion with
 * partial pivoting (fdiv.s, fabs, comparisons), A*inv(A) residual, and a power iteration for
 * the dominant eigenvalue (fsqrt.s). Every result is printed as IEEE bit patterns. */
#include <math.h>

#include "testlib.h"

#define N 20
static float A[N][N], B[N][N], C[N][N], Cr[N][N];

static uint32_t hash_mat(float m[N][N]) {
  uint32_t h = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) h = h * 31 + f2u(m[i][j]);
  return h;
}

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (float)((int32_t)(rnd() % 2001) - 1000) / 100.0f;
      B[i][j] = (float)((int32_t)(rnd() % 2001) - 1000) / 300.0f;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < N; k++) s += A[i][k] * B[k][j];
      C[i][j] = s;
      float r = 0.0f;
      for (int k = N - 1; k >= 0; k--) r += A[i][k] * B[k][j];
      Cr[i][j] = r;
    }
  show("C hash", hash_mat(C));
  show("Cr hash", hash_mat(Cr));
  for (int j = 0; j < 4; j++) show("C[0][j]", f2u(C[0][j]));
  /* Gauss-Jordan inversion of A + 20 I (well conditioned) */
  static float M[N][2 * N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      M[i][j] = A[i][j] + (i == j ? 20.0f : 0.0f);
      M[i][N + j] = i == j ? 1.0f : 0.0f;
    }
  for (int c = 0; c < N; c++) {
    int piv = c;
    for (int r = c + 1; r < N; r++)
      if (fabsf(M[r][c]) > fabsf(M[piv][c])) piv = r;
    if (piv != c)
      for (int j = 0; j < 2 * N; j++) {
        float t = M[c][j];
        M[c][j] = M[piv][j];
        M[piv][j] = t;
      }
    float inv = 1.0f / M[c][c];
    for (int j = 0; j < 2 * N; j++) M[c][j] *= inv;
    for (int r = 0; r < N; r++)
      if (r != c) {
        float f = M[r][c];
        for (int j = 0; j < 2 * N; j++) M[r][j] -= f * M[c][j];
      }
  }
  uint32_t h = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) h = h * 31 + f2u(M[i][N + j]);
  show("inverse hash", h);
  float maxres = 0.0f;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < N; k++) s += (A[i][k] + (i == k ? 20.0f : 0.0f)) * M[k][N + j];
      float res = fabsf(s - (i == j ? 1.0f : 0.0f));
      if (res > maxres) maxres = res;
    }
  show("max residual bits", f2u(maxres));
  show("residual small", maxres < 1e-4f);
  /* power iteration on B^T B (symmetric positive semi-definite) */
  float v[N], w[N];
  for (int i = 0; i < N; i++) v[i] = 1.0f;
  float lambda = 0.0f;
  for (int it = 0; it < 50; it++) {
    for (int i = 0; i < N; i++) {
      float s = 0.0f;
      for (int k = 0; k < N; k++) {
        float bk = 0.0f;
        for (int j = 0; j < N; j++) bk += B[k][j] * v[j];
        s += B[k][i] * bk;
      }
      w[i] = s;
    }
    float norm = 0.0f;
    for (int i = 0; i < N; i++) norm += w[i] * w[i];
    norm = sqrtf(norm);
    lambda = norm;
    for (int i = 0; i < N; i++) v[i] = w[i] / norm;
  }
  show("lambda", f2u(lambda));
  show("v[0]", f2u(v[0]));
  show("fflags", get_fflags());
  return finish("matmul_float");
}
