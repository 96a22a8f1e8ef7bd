#include "sim/timed/fast_forward.h"

#include <cmath>

namespace futexsim::sim {

double t95(unsigned dof)
{
    const double z = 1.959963984540054;
    const double v = static_cast<double>(dof);
    const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
    return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
           (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

bool fast_forward_sampler::observe(std::int64_t t, std::uint64_t ops, bool stationary)
{
    const std::int64_t dt = t - last_t_;
    const std::uint64_t dops = ops - last_ops_;
    last_t_ = t;
    last_ops_ = ops;
    if (!stationary) {  // not yet, or no longer: start over
        since_ = -1;
        rates_.clear();
        return false;
    }
    if (since_ < 0) {
        since_ = t;
        return false;
    }
    // The batch that ended at t began inside the warm-up: not counted.
    if (t - dt < since_ + rule_.warmup_ns || dt <= 0)
        return false;
    rates_.push_back(static_cast<double>(dops) / static_cast<double>(dt));
    const std::size_t n = rates_.size();
    if (n < rule_.min_batches)
        return false;
    double sum = 0;
    for (double r : rates_)
        sum += r;
    const double mean = sum / static_cast<double>(n);
    double ss = 0;
    for (double r : rates_)
        ss += (r - mean) * (r - mean);
    const double sd = std::sqrt(ss / static_cast<double>(n - 1));
    const double half = t95(static_cast<unsigned>(n - 1)) * sd / std::sqrt(static_cast<double>(n));
    if (!(mean > 0) || half > rule_.rel_half_width * mean)
        return false;
    mean_ = mean;
    half_ = half;
    return true;
}

}  // namespace futexsim::sim
