#include "sim/atomic_share.h"

#include "model/futex.h"

namespace futexsim::sim {

atomic_share_bins::atomic_share_bins(vtime interval_ns, vtime end_ns) : interval_ns_(interval_ns), end_ns_(end_ns) {}

void atomic_share_bins::tracepoint(const model::trace_point& tp, vtime at)
{
    const bool atomic = tp.kind == model::trace_kind::ref_get_atomic;
    if ((!atomic && tp.kind != model::trace_kind::ref_get_percpu) || at >= end_ns_ || at < 0)
        return;
    const std::size_t bin = cursor_.find(at, interval_ns_);
    if (bin >= percpu_.size()) {
        percpu_.resize(bin + 1);
        atomic_.resize(bin + 1);
    }
    ++(atomic ? atomic_ : percpu_)[bin];
}

std::vector<double> atomic_share_bins::shares(std::size_t bins) const
{
    std::vector<double> out(bins, 0.0);
    for (std::size_t i = 0; i < bins && i < percpu_.size(); i++) {
        const auto total = percpu_[i] + atomic_[i];
        if (total)
            out[i] = static_cast<double>(atomic_[i]) / static_cast<double>(total);
    }
    return out;
}

void observer_pair::cpu_enter(unsigned cpu, const task& t, vtime at)
{
    a_.cpu_enter(cpu, t, at);
    b_.cpu_enter(cpu, t, at);
}

void observer_pair::cpu_leave(unsigned cpu, const task& t, vtime at)
{
    a_.cpu_leave(cpu, t, at);
    b_.cpu_leave(cpu, t, at);
}

void observer_pair::syscall_enter(const task& t, const char* name, vtime at)
{
    a_.syscall_enter(t, name, at);
    b_.syscall_enter(t, name, at);
}

void observer_pair::syscall_exit(const task& t, vtime at)
{
    a_.syscall_exit(t, at);
    b_.syscall_exit(t, at);
}

void observer_pair::tracepoint(const model::trace_point& tp, vtime at)
{
    a_.tracepoint(tp, at);
    b_.tracepoint(tp, at);
}

void observer_pair::rcu_callback(bool running, vtime at)
{
    a_.rcu_callback(running, at);
    b_.rcu_callback(running, at);
}

void observer_pair::gp_end(unsigned long completed, vtime at)
{
    a_.gp_end(completed, at);
    b_.gp_end(completed, at);
}

}  // namespace futexsim::sim
