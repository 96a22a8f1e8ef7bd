// The share of futex_private_hash_get()s that took the shared atomic
// (FR_ATOMIC) rather than the per-CPU counter, per throughput interval: how
// a stall looks from inside. An observer (sim/observer.h), so a run that
// records it prints the same figures as one that does not.
#pragma once

#include <cstdint>
#include <vector>

#include "run/bin_cursor.h"
#include "sim/observer.h"

namespace futexsim::sim {

class atomic_share_bins : public sim_observer {
public:
    // Bins of `interval_ns` from virtual time 0; gets after `end_ns` (the
    // drain after the measured run) are not counted.
    atomic_share_bins(vtime interval_ns, vtime end_ns);

    void tracepoint(const model::trace_point& tp, vtime at) override;

    // Per bin, atomic gets / all gets (0 where a bin saw none), `bins` long.
    std::vector<double> shares(std::size_t bins) const;

private:
    vtime interval_ns_, end_ns_;
    std::vector<std::uint64_t> percpu_, atomic_;
    bin_cursor cursor_;
};

// Hands every hook to two observers in turn (--trace and the share bins).
class observer_pair : public sim_observer {
public:
    observer_pair(sim_observer& first, sim_observer& second) : a_(first), b_(second) {}
    void cpu_enter(unsigned cpu, const task& t, vtime at) override;
    void cpu_leave(unsigned cpu, const task& t, vtime at) override;
    void syscall_enter(const task& t, const char* name, vtime at) override;
    void syscall_exit(const task& t, vtime at) override;
    void tracepoint(const model::trace_point& tp, vtime at) override;
    void rcu_callback(bool running, vtime at) override;
    void gp_end(unsigned long completed, vtime at) override;

private:
    sim_observer& a_;
    sim_observer& b_;
};

}  // namespace futexsim::sim
