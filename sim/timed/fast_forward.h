// Fast-forward (the default of `futexsim run`; --exact turns it off): once a
// run can no longer change, measure its throughput until the estimate is
// tight, then extrapolate the rest.
//
// A run is stationary when no pivot is pending, the private hash is in
// FR_PERCPU (or the process uses the global hash), and the workload has
// created every thread it will and makes no more prctl calls
// (workload_def::stationary_after_main): nothing can request a pivot
// again, so the outcome is settled and the throughput is a stationary
// process. This is sampling as architecture simulators do it (SMARTS,
// Wunderlich et al., ISCA 2003): batch means over 1 ms batches, after a
// warm-up, until the 95% confidence interval of the mean rate is within
// +/- 1% of it; then ops = measured + rate x remaining time.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace futexsim::sim {

struct fast_forward_rule {
    std::int64_t batch_ns = 1'000'000;    // one batch: 1 ms of virtual time
    std::int64_t warmup_ns = 5'000'000;   // discarded after the run turns stationary
    unsigned min_batches = 20;
    double rel_half_width = 0.01;         // the CI's half width, relative to the mean
};

// Fed at every batch boundary with the run's operations so far and whether
// it is stationary; says when the estimate is good enough.
class fast_forward_sampler {
public:
    explicit fast_forward_sampler(fast_forward_rule rule = {}) : rule_(rule) {}

    // At virtual time `t` (a batch boundary), `ops` done so far. Returns
    // true once the run may be extrapolated from `t`.
    bool observe(std::int64_t t, std::uint64_t ops, bool stationary);

    // The estimate, valid once observe() returned true: operations per
    // virtual nanosecond, and its 95% half width.
    double rate_per_ns() const { return mean_; }
    double half_width_per_ns() const { return half_; }
    std::int64_t stationary_since() const { return since_; }

private:
    fast_forward_rule rule_;
    std::int64_t since_ = -1;  // when it turned stationary; -1: not (or no longer)
    std::int64_t last_t_ = 0;
    std::uint64_t last_ops_ = 0;
    std::vector<double> rates_;  // per batch, operations per ns
    double mean_ = 0, half_ = 0;
};

// Student's t quantile for a two-sided 95% interval with `dof` degrees of
// freedom (Cornish-Fisher expansion about the normal quantile; within 0.1%
// of the table from 10 degrees of freedom on).
double t95(unsigned dof);

}  // namespace futexsim::sim
