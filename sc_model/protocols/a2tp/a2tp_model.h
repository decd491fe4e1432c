// A2TP's steady-state model of its aggregator window (A2TP §4.4): N synchronised flows of
// non-straggling jobs share M aggregators, collisions start only when all are taken, and each
// flow's ACW follows the same sawtooth around ACW* = M / ((1 - H) N). From it, the collision
// counts' sawtooth (C_max, its amplitude A, C_min) and the least threshold H that keeps C_min at
// or above 0, which is how A2TP picks H for a given number of aggregators and flows.
#pragma once

namespace fs {

struct AggregatorSawtooth {
  double acw_star = 0;  // ACW* = M / ((1 - H) N): the window where aggregator control starts
  double d = 0;         // the decrease factor of a period, from Eq. 10 solved exactly
  double d_approx = 0;  // the same as the paper approximates it: sqrt(2 / ACW*)
  double amplitude = 0;  // A = N (ACW* + 1) d / 2 (Eq. 11, 12 with the exact d)
  double amplitude_approx = 0;  // A ~ sqrt(2 M N / (1 - H)) / 2 (Eq. 12)
  double c_max = 0;  // C_max = M H / (1 - H) + N (Eq. 13)
  double c_min = 0;  // C_max - amplitude_approx (Eq. 14, as the paper gives it)
};

// The model for M aggregators, N flows and threshold H (0 <= H < 1; M, N > 0).
AggregatorSawtooth aggregator_sawtooth(double aggregators, double flows, double threshold);

// The least H in [0, 1) with C_min >= 0 by Eq. 14 (0 if C_min is never negative).
double least_collision_threshold(double aggregators, double flows);

}  // namespace fs
