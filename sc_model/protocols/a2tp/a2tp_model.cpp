// A2TP's §4.4 sawtooth model and the threshold it gives (see a2tp_model.h).
#include "protocols/a2tp/a2tp_model.h"

#include <algorithm>
#include <cmath>

namespace fs {

namespace {

// d with d^2 (1 - d / 4) = (2 ACW* + 1) / (ACW* + 1)^2 (Eq. 10 before its approximation). The
// left side grows with d on [0, 2] from 0 to 2 and the right side is at most 1, so bisection on
// [0, 2] finds the one root.
double exact_decrease(double acw_star) {
  const double rhs = (2 * acw_star + 1) / ((acw_star + 1) * (acw_star + 1));
  double lo = 0, hi = 2;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = (lo + hi) / 2;
    (mid * mid * (1 - mid / 4) < rhs ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

AggregatorSawtooth aggregator_sawtooth(double M, double N, double H) {
  AggregatorSawtooth s;
  s.acw_star = M / ((1 - H) * N);
  s.d = exact_decrease(s.acw_star);
  s.d_approx = std::sqrt(2 / s.acw_star);
  s.amplitude = N * (s.acw_star + 1) * s.d / 2;
  s.amplitude_approx = std::sqrt(2 * M * N / (1 - H)) / 2;
  s.c_max = M * H / (1 - H) + N;
  s.c_min = s.c_max - s.amplitude_approx;
  return s;
}

double least_collision_threshold(double M, double N) {
  // With u = 1 / (1 - H) (so M H / (1 - H) = M (u - 1)) and s = sqrt(u) >= 1, Eq. 14 reads
  // M s^2 - sqrt(M N / 2) s + (N - M) >= 0: a parabola in s, so C_min >= 0 from its larger root on.
  const double b = std::sqrt(M * N / 2), disc = b * b - 4 * M * (N - M);
  if (disc < 0) return 0;
  const double s = std::max(1.0, (b + std::sqrt(disc)) / (2 * M));
  return 1 - 1 / (s * s);
}

}  // namespace fs
