// The statistics `futexsim report` prints: a Wilson score interval for a
// probability estimated from k of n runs, medians and spreads.
#pragma once

#include <cstddef>
#include <vector>

namespace futexsim::cli {

struct interval {
    double lo = 0, hi = 0;
};

// The 95% Wilson score interval for k successes in n trials (n > 0). Unlike
// the normal approximation it stays inside [0, 1] and is honest at k = 0 or
// k = n, which is where stall probabilities live.
interval wilson_interval(std::size_t k, std::size_t n, double z = 1.959963984540054);

// The median of `v` (the mean of the middle two for an even count).
double median(std::vector<double> v);

}  // namespace futexsim::cli
