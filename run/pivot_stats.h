// What the model's tracepoints add up to over a run, folded the same way by
// every backend that runs the model (the simulator, the explorer, the
// threads backend): one struct, one fold, one definition of "pending".
//
// A pivot is pending from futex_ref_drop() of the current hash (the
// replacement has been asked for and the current hash starts its way to
// dead) to the installation of its replacement (docs/simulator.md,
// "Outcomes"). Time is the backend's own clock: virtual nanoseconds on the
// simulator, wall-clock nanoseconds on the threads backend, steps on the
// explorer; grace periods are counted by the backend's RCU.
#pragma once

#include <algorithm>
#include <cstdint>

#include "model/futex.h"

namespace futexsim {

struct pivot_stats {
    std::uint64_t ref_get_percpu = 0;
    std::uint64_t ref_get_atomic = 0;
    std::uint64_t pivots_requested = 0;  // futex_hash_allocate() calls
    std::uint64_t pivots_completed = 0;  // installations
    bool pending = false;                // a replacement asked for and not installed
    std::int64_t pending_since = 0;      // the clock at that futex_ref_drop()
    unsigned long pending_gp_start = 0;  // grace periods completed then
    unsigned long longest_pending_gps = 0;
    std::int64_t longest_pending = 0;  // in the clock's units

    // The two counts every futex operation bumps: a backend that counts
    // them per thread (the threads backend) keeps them out of fold().
    static bool is_ref_get(model::trace_kind k)
    {
        return k == model::trace_kind::ref_get_percpu || k == model::trace_kind::ref_get_atomic;
    }

    // One tracepoint at `now`, with `gps` grace periods completed so far.
    void fold(const model::trace_point& tp, std::int64_t now, unsigned long gps)
    {
        using model::trace_kind;
        switch (tp.kind) {
        case trace_kind::ref_get_percpu:
            ++ref_get_percpu;
            break;
        case trace_kind::ref_get_atomic:
            ++ref_get_atomic;
            break;
        case trace_kind::hash_allocate:
            ++pivots_requested;
            break;
        case trace_kind::ref_drop:
            if (!pending) {
                pending = true;
                pending_since = now;
                pending_gp_start = gps;
            }
            break;
        case trace_kind::pivot_install:
            ++pivots_completed;
            if (pending) {
                pending = false;
                longest_pending_gps = std::max(longest_pending_gps, gps - pending_gp_start);
                longest_pending = std::max(longest_pending, now - pending_since);
            }
            break;
        default:
            break;
        }
    }
};

}  // namespace futexsim
