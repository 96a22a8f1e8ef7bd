// Host measurements for `futexsim probe` and `futexsim calibrate`: cache-line
// ping-pong between two pinned threads, a locked RMW on an owned line, the
// core clock, and the split of a futex system call into entry/exit and the
// futex path. Wall-clock measurements of this machine; nothing here knows
// the model.
#pragma once

#include <string>
#include <vector>

namespace futexsim::probe {

// A sample of per-batch figures: its median, the 10th and 90th percentiles
// and an approximate 95% confidence interval of the median (order
// statistics n/2 -/+ 0.98 sqrt(n), valid for independent batches).
struct summary {
    double median = 0, p10 = 0, p90 = 0, ci_lo = 0, ci_hi = 0;
    unsigned n = 0;
};
summary summarize(std::vector<double> v);

struct pingpong_options {
    unsigned batches = 41;       // the median is over batches
    unsigned round_trips = 500;  // per batch
    double limit_s = 2.0;        // a pair that takes longer is cut short (a busy or throttled CPU)
};
// One-way transfer latency between CPUs a and b: compare-and-swap
// ping-pong on one line between two threads pinned to them, half the round
// trip, per batch. Throws std::runtime_error if a thread cannot be pinned.
// Fewer batches than asked (summary.n) if the time limit came first.
summary pingpong_one_way_ns(unsigned a, unsigned b, const pingpong_options& opt);

// What a load does to a line another core holds Modified (the pattern of
// atomic_long_inc_not_zero(): a plain read, then a locked cmpxchg on the
// value read). CPU a writes the line (lock xadd) and hands over through a
// flag on another line; CPU b then times one of: nothing, the load, the load
// and a cmpxchg, the cmpxchg alone (interleaved hand-off by hand-off), ns
// per hand-off including the clock's own cost, which the rows share. Throws
// std::runtime_error if a thread cannot be pinned.
struct read_then_rmw {
    summary empty, load, load_cmpxchg, cmpxchg;
    // The load's own transfer: load - empty. What the cmpxchg adds after
    // it: load_cmpxchg - load.
    double load_transfer_ns() const { return load.median - empty.median; }
    double cmpxchg_after_load_ns() const { return load_cmpxchg.median - load.median; }
    // Past a locked op on an owned line (`local_rmw_ns`), the cmpxchg after
    // the load adds under half of what the load's own transfer took: the
    // load brought the line writable (one transfer, not two).
    bool migrates(double local_rmw_ns) const
    {
        return cmpxchg_after_load_ns() - local_rmw_ns < load_transfer_ns() / 2;
    }
};
read_then_rmw measure_read_then_rmw(unsigned a, unsigned b, unsigned handoffs_per_row = 5001, double limit_s = 2.0);

// How long the holder of a line keeps it once another core is already
// asking for it (the model's hand-off in two legs: the holder keeps using
// the line until the next request's snoop arrives, docs/simulator.md). CPU
// b increments the line without pause; CPU a, again and again, waits until
// b surely holds the line, increments it (the line arrives), waits a chain
// of dependent register adds that starts from the value it got, and
// increments it again: `kept` is the share of those pairs in which no
// increment of b's came between the two (the second value is the first
// plus one). The delay grows in steps of `step_adds` adds until `kept`
// stays under 1/20. Throws std::runtime_error if a thread cannot be pinned.
struct hold_window {
    std::vector<double> delay_ns;  // each delay, the chain timed alone
    std::vector<double> kept;      // per delay
    unsigned pairs_per_delay = 0;
    // The delay at which `kept` falls through 1/2 (linear between the two
    // delays around it): the median window. -1 if it never fell through.
    double window_ns() const;
};
hold_window measure_hold_window(unsigned a, unsigned b, unsigned pairs_per_delay = 2001, unsigned step_adds = 8,
                                double limit_s = 3.0);

// An uncontended `lock xadd` (a seq_cst fetch_add) on a line the calling
// thread owns, ns each, per batch of 10^5.
summary locked_rmw_ns(unsigned batches = 41);

// The core clock in GHz: a chain of dependent register-register adds (one
// cycle each on x86-64 and arm64; not immediate adds, which recent Intel
// cores fold at rename) timed with the monotonic clock. 0 on other
// architectures.
summary core_ghz(unsigned batches = 201);

}  // namespace futexsim::probe
