// The share of futex_private_hash_get()s that took the shared atomic
// (FR_ATOMIC) rather than the per-CPU counter, per throughput interval: how
// a stall looks from inside. And, once watch_refs() names the shared count,
// how many references it held at each successful atomic get: how far a
// stall is from draining (the count must reach 0 for the new hash to go
// in). An observer (sim/timed/observer.h), so a run that records them prints the
// same figures as one that does not.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "run/bin_cursor.h"
#include "run/run_result.h"
#include "sim/timed/observer.h"

namespace futexsim::sim {

class atomic_share_bins : public sim_observer {
public:
    // Bins of `interval_ns` from virtual time 0; gets after `end_ns` (the
    // drain after the measured run) are not counted.
    atomic_share_bins(vtime interval_ns, vtime end_ns);

    // The shared count (mm->futex_atomic's value), read as it stands at
    // each successful atomic get, at no simulated cost.
    void watch_refs(const long* count) { refs_ = count; }

    void tracepoint(const model::trace_point& tp, vtime at) override;

    // Per bin, atomic gets / all gets (0 where a bin saw none), `bins` long.
    std::vector<double> shares(std::size_t bins) const;

    // The references the count held just after a successful atomic get
    // (this get's own included), counted only once the bias is gone
    // (__futex_ref_atomic_end() has folded the per-CPU counts in: the count
    // is then the number of holders): how many such gets, the lowest count,
    // and the 0.1%, 1%, 50% and 99% quantiles (none without gets).
    run_result::refs_at_get refs() const;
    // Per bin, the lowest such count; none where a bin saw no such get.
    std::vector<std::optional<long>> refs_min(std::size_t bins) const;

private:
    void note_refs(std::size_t bin);

    vtime interval_ns_, end_ns_;
    std::vector<std::uint64_t> percpu_, atomic_;
    bin_cursor cursor_;
    const long* refs_ = nullptr;
    std::vector<std::uint64_t> refs_hist_;  // by count
    std::vector<std::optional<long>> refs_min_;  // per bin
};

}  // namespace futexsim::sim
