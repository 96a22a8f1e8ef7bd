// A run's outcome, one rule for every backend that runs the model (the
// simulator, the threads backend), and the pivot statistics it is read from.
//
// "latched": a pivot was still pending at the end and had been for at least
// half the run. "transient": a pivot still pending for less than that, or
// one that completed after more than 10 of the run's mean grace periods, in
// time. "never": every pivot completed within that. Time, not a count of
// grace periods: grace periods only run while callbacks wait for one, so a
// pivot parked on a count that will not drain sees none pass, and counting
// them would call a 600 ms wait "never". A run with no grace period
// measured (mean 0) calls any pivot that took time transient.
#pragma once

#include <cstdint>
#include <string>

#include "run/pivot_stats.h"
#include "run/run_result.h"

namespace futexsim {

// Reads seconds, pivot_pending_at_end, pending_ms_at_end, longest_pivot_ms
// and mean_gp_ms.
std::string run_outcome(const run_result& r);

// The pivot fields of `r` from the backend's fold `p`, at `now_ns` on the
// same clock as `p` (virtual time, or the threads backend's wall clock).
void record_pivots(run_result& r, const pivot_stats& p, std::int64_t now_ns);

}  // namespace futexsim
