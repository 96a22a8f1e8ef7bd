#include "run/outcome.h"

namespace futexsim {

std::string run_outcome(const run_result& r)
{
    if (r.pivot_pending_at_end)
        return r.pending_ms_at_end >= r.seconds * 1e3 / 2 ? "latched" : "transient";
    return r.longest_pivot_ms > 10 * r.mean_gp_ms ? "transient" : "never";
}

void record_pivots(run_result& r, const pivot_stats& p, std::int64_t now_ns)
{
    r.ref_get_percpu = p.ref_get_percpu;
    r.ref_get_atomic = p.ref_get_atomic;
    r.pivots_requested = p.pivots_requested;
    r.pivots_completed = p.pivots_completed;
    r.pivot_pending_at_end = p.pending;
    r.pending_ms_at_end = p.pending ? static_cast<double>(now_ns - p.pending_since) / 1e6 : 0;
    r.longest_pivot_ms = static_cast<double>(p.longest_pending) / 1e6;
    r.longest_pivot_gps = p.longest_pending_gps;
}

}  // namespace futexsim
