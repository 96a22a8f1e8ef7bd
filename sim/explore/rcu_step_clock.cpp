// RCU's clock in the explorer: grace periods measured in steps (each at
// least gp_steps steps per live thread, and until every reader of its start
// has left its section), or ending as scheduling choices under
// config::timing_choices; timeouts; the rcu task that runs callbacks.
#include "sim/explore/explore_env.h"

#include <algorithm>

#include <fmt/format.h>

namespace futexsim::sim::explore {

bool explore_env::rcu_work_pending() const
{
    if (gp_.callbacks_waiting() || gp_.frees_waiting())
        return true;
    for (const auto& t : tasks_)
        if (t->rcu_cookie > gp_.completed())
            return true;
    return false;
}

void explore_env::start_gp()
{
    gp_.start_gp();
    gp_started_ = step_;
    // gp_steps steps for each thread, so that a grace period gives every
    // thread about as much progress whether there are 2 or 16 of them.
    std::uint64_t live = 0;
    for (const auto& t : tasks_)
        live += !t->kernel && t->state != task_state::exited;
    gp_length_ = cfg_.gp_steps * std::max<std::uint64_t>(1, live);
    gp_readers_.clear();
    for (const auto& t : tasks_)
        if (t->state != task_state::exited && t->in_section())
            gp_readers_.emplace_back(t->id, t->section_gen);
}

void explore_env::end_gp()
{
    // Every CPU passed a full barrier between the grace period's start and
    // its end (docs/testing.md: draining at the end is stronger than that).
    for (unsigned cpu = 0; cpu < cfg_.cpus; cpu++)
        drain_cpu(cpu);
    if (mem_.model() == memory_model::arm64) {
        views_.all_full();
        record_access(&views_, false);
    }
    kernel::rcu_gp::ended done = gp_.end_gp();
    for (auto& cb : done.callbacks)
        due_.push_back(std::move(cb));
    if (!due_.empty())
        wake(*tasks_[static_cast<std::size_t>(rcu_task_)]);
    for (auto& free : done.frees)  // kvfree_rcu(): no callback task here
        free();
    for (auto& t : tasks_)
        if (t->rcu_cookie && t->rcu_cookie <= gp_.completed())
            wake(*t);
}

// The readers a grace period waits for that have left their section since.
void explore_env::drop_gp_readers_that_left()
{
    std::erase_if(gp_readers_, [this](const auto& r) {
        const explore_task& t = *tasks_[static_cast<std::size_t>(r.first)];
        return t.section_gen != r.second || !t.in_section();
    });
}

// Grace periods and timers at the current step: timeouts that are due wake
// their sleepers, a grace period whose readers have left and whose length
// has passed ends, and a new one starts whenever none is in progress.
void explore_env::advance_time()
{
    if (cfg_.timing_choices) {
        // Nothing is due by the step count: grace-period ends and timeouts
        // are candidates (candidates(), run()). A new grace period starts
        // as soon as the last one ended, as on a live system.
        if (gp_.gp_active())
            drop_gp_readers_that_left();
        else
            start_gp();
        return;
    }
    for (auto& t : tasks_)
        if (t->state == task_state::blocked && t->wake_at >= 0 &&
            static_cast<std::int64_t>(step_) >= t->wake_at) {
            t->timed_out = true;
            fire_hrtimer(*t, false);
            wake(*t);
        }
    if (gp_.gp_active()) {
        drop_gp_readers_that_left();
        // The callbacks of the last grace period run before the next one
        // ends (the kernel invokes them promptly; here the rcu task is one
        // candidate among many, and a slow pick must not look like a stall).
        if (gp_readers_.empty() && due_.empty() && step_ >= gp_started_ + gp_length_)
            end_gp();
    }
    // Grace periods keep coming while anything runs, as on a live system
    // (other CPUs, other processes): a stalled pivot is measured against them.
    if (!gp_.gp_active())
        start_gp();
}

// Nothing can run. With timing as choices, a grace period that everyone
// waits for ends as a step of its own (not a choice); with timing by steps
// the clock jumps to the next timeout or grace-period end. False when
// nothing will ever be due: everyone is blocked for good, or done.
bool explore_env::let_time_pass()
{
    if (cfg_.timing_choices) {
        if (!gp_can_end() || !rcu_work_pending())
            return false;
        end_gp_step(true);
        return true;
    }
    std::int64_t next = -1;
    for (const auto& t : tasks_)
        if (t->state == task_state::blocked && t->wake_at >= 0 && (next < 0 || t->wake_at < next))
            next = t->wake_at;
    if (gp_.gp_active() && gp_readers_.empty() && rcu_work_pending()) {
        const auto gp_end = static_cast<std::int64_t>(gp_started_ + gp_length_);
        if (next < 0 || gp_end < next)
            next = gp_end;
    }
    if (next < 0)
        return false;
    step_ = std::max<std::uint64_t>(step_ + 1, static_cast<std::uint64_t>(next));
    advance_time();
    return true;
}

void explore_env::rcu_task_body()
{
    explore_task& self = current();
    for (;;) {
        while (due_.empty())
            block("idle", this);
        const kernel::rcu_gp::ready_callback cb = std::move(due_.front());
        due_.erase(due_.begin());
        // Move to the callback's CPU first, as a step of its own: the
        // softirq then starts only when no task there is in a section.
        self.cpu = cb.cpu;
        user_step("softirq on cpu" + std::to_string(cb.cpu));
        ++self.preempt_count;  // softirq: not preemptible
        note("rcu callback");
        cb.fn();
        --self.preempt_count;
        leave_section(self);
    }
}

// Under a weak memory model the store buffers drain first, as steps of
// their own (the grace period's barriers would drain them).
bool explore_env::gp_can_end() const
{
    return gp_.gp_active() && gp_readers_.empty() && due_.empty() && (!weak_ || mem_.all_empty());
}

// A grace period ends as a step of its own (timing as choices). It writes
// RCU's state, wakes whom it wakes, and the next grace period, which starts
// at once, reads who is inside a read-side section on every CPU; frees
// (kvfree_rcu) make it commute with nothing.
void explore_env::end_gp_step(bool forced)
{
    ++step_;
    begin_footprint(-1);
    if (cfg_.record_footprints) {
        footprints_.back().global = gp_.frees_waiting();
        record_access(&gp_, true);
        for (unsigned cpu = 0; cpu < cfg_.cpus; cpu++) {
            record_access(&cfg_, false, cpu);
            if (weak_)  // it may end only once every store buffer is empty
                record_access(&mem_, false, cpu);
        }
    }
    if (!forced)
        ++gp_ends_chosen_;
    explore_task& rcu = *tasks_[static_cast<std::size_t>(rcu_task_)];
    end_gp();
    rcu.notes.clear();
    const op_event ev{op_kind::user,
                      nullptr,
                      0,
                      0,
                      rcu.cpu,
                      "",
                      fmt::format("grace period {} ends{}", gp_.completed(),
                                  forced ? " (nothing else can run)" : "")};
    for (explore_observer* o : observers_)
        o->on_step(rcu, ev);
    advance_time();
}

// Both read the grace-period sequence: a step that touches it.
unsigned long explore_env::get_state_synchronize_rcu() const
{
    record_gp_read();
    return gp_.get_state();
}

bool explore_env::poll_state_synchronize_rcu(unsigned long cookie) const
{
    record_gp_read();
    return gp_.poll_state(cookie);
}

}  // namespace futexsim::sim::explore
