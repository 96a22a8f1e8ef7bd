#include "sim/timed/rcu.h"

#include <fmt/format.h>

namespace futexsim::sim {

namespace {
// The GP kthread's wake-up and rcu_gp_init()/rcu_gp_cleanup() work.
constexpr vtime gp_kthread_latency_ns = 20'000;
}  // namespace

rcu_sim::rcu_sim(engine& e)
    : eng_(e), source_(e.add_source(this)), need_qs_(e.mach().num_cpus()),
      urgent_(e.mach().num_cpus()), ready_(e.mach().num_cpus()),
      softirq_(e.mach().num_cpus(), nullptr)
{
}

void rcu_sim::on_event(std::uint8_t what, std::uint32_t /*arg*/)
{
    if (what == gp_start)
        start_gp();
    else
        end_gp();
}

// The engine asks for preemption points only while some CPU is urgent.
void rcu_sim::set_urgent(bool on)
{
    any_urgent_ = on;
    eng_.want_preemption_points(on);
}

void rcu_sim::call_rcu(unsigned cpu, std::function<void()> cb)
{
    gp_.call_rcu(cpu, std::move(cb));
    // call_rcu_hurry(): no lazy batching, the GP kthread is woken now.
    if (!gp_.gp_active() && !gp_start_scheduled_) {
        gp_start_scheduled_ = true;
        eng_.post(source_, eng_.now() + gp_kthread_latency_ns, gp_start, 0);
    }
}

bool rcu_sim::idle() const
{
    if (gp_.gp_active() || gp_start_scheduled_ || gp_end_scheduled_ || gp_.callbacks_waiting())
        return false;
    for (const auto& q : ready_)
        if (!q.empty())
            return false;
    return true;
}

void rcu_sim::start_gp()
{
    gp_start_scheduled_ = false;
    if (gp_.gp_active())
        return;
    gp_.start_gp();
    gp_start_ = eng_.now();
    gp_start_tick_ = gp_start_ / eng_.tick_ns();
    remaining_ = static_cast<unsigned>(need_qs_.size());
    std::fill(need_qs_.begin(), need_qs_.end(), true);
    std::fill(urgent_.begin(), urgent_.end(), false);
    set_urgent(false);
}

void rcu_sim::note_qs(unsigned cpu, vtime at)
{
    if (!gp_.gp_active() || at < gp_start_ || !need_qs_[cpu])
        return;
    need_qs_[cpu] = false;
    if (--remaining_ == 0 && !gp_end_scheduled_) {
        gp_end_scheduled_ = true;
        eng_.post(source_, std::max(at, eng_.now()) + gp_kthread_latency_ns, gp_end, 0);
    }
}

// rcu_qs() at a preemption point of a CPU asked to report urgently.
void rcu_sim::preemption_point(unsigned cpu, vtime at)
{
    if (any_urgent_ && gp_.gp_active() && urgent_[cpu] && need_qs_[cpu])
        note_qs(cpu, at);
}

void rcu_sim::end_gp()
{
    gp_end_scheduled_ = false;
    set_urgent(false);
    kernel::rcu_gp::ended done = gp_.end_gp();
    const unsigned long completed = gp_.completed();
    durations_.push_back(eng_.now() - gp_start_);
    eng_.mix_trace(0x6770000000000000ull ^ completed);
    eng_.observers().notify([&](sim_observer& o) { o.gp_end(completed, eng_.now()); });
    // Callbacks due now move to their CPU's ready list; the next tick there
    // raises RCU_SOFTIRQ and runs them.
    for (auto& cb : done.callbacks)
        ready_[cb.cpu].push_back(std::move(cb.fn));
    if (gp_.callbacks_waiting())
        start_gp();
}

void rcu_sim::tick(std::int64_t k)
{
    if (gp_.gp_active()) {
        const std::int64_t age = k - gp_start_tick_;
        const unsigned fqs = eng_.mach().rcu_fqs_jiffies;
        if (age > 0 && age % fqs == 0) {
            // Force-quiescent-state scan: idle CPUs are found quiescent; after
            // jiffies_to_sched_qs (HZ/10) the laggards are asked to report at
            // their next preemption point.
            const bool urgent = age >= static_cast<std::int64_t>(eng_.mach().hz / 10);
            for (unsigned cpu = 0; cpu < need_qs_.size(); cpu++) {
                if (!need_qs_[cpu])
                    continue;
                if (eng_.cpu_idle(cpu))
                    note_qs(cpu, eng_.now());
                else if (urgent) {
                    urgent_[cpu] = true;
                    set_urgent(true);
                }
            }
        }
    }
    for (unsigned cpu = 0; cpu < ready_.size(); cpu++)
        if (!ready_[cpu].empty())
            run_ready_callbacks(cpu);
}

// RCU_SOFTIRQ on `cpu`: a per-CPU kernel task runs the ready callbacks ahead
// of whatever runs there.
void rcu_sim::run_ready_callbacks(unsigned cpu)
{
    auto drain = [this, cpu] {
        for (;;) {
            while (!ready_[cpu].empty()) {
                auto fn = std::move(ready_[cpu].front());
                ready_[cpu].pop_front();
                eng_.set_mode(task_mode::kernel);
                eng_.observers().notify([&](sim_observer& o) { o.rcu_callback(true, eng_.now()); });
                fn();
                eng_.observers().notify([&](sim_observer& o) { o.rcu_callback(false, eng_.now()); });
            }
            eng_.block();
        }
    };
    if (!softirq_[cpu])
        softirq_[cpu] = &eng_.spawn(fmt::format("rcu_softirq/{}", cpu), {cpu}, drain, eng_.now(), true);
    else if (softirq_[cpu]->state == task_state::blocked)
        eng_.wake(*softirq_[cpu], eng_.now());
}

}  // namespace futexsim::sim
