// RCU grace periods as Tree RCU runs them on the timed simulator, at the
// level that decides how long a pivot waits: a grace period starts when
// callbacks need one, ends once every CPU has reported a quiescent state (a
// tick in user mode or, with preemptible RCU, outside any read-side
// section; a context switch; idle, found by the force-quiescent-state
// scan), and callbacks then run in softirq context on the CPU that queued
// them, at its next tick.
//
// The grace-period sequence and the callback lists are the kernel
// runtime's (sim/kernel/rcu_gp.h), the same the explorer runs; this is the
// clock that drives them in virtual time. It is an event source of the
// engine (sim/timed/event_source.h): it hears of context switches, ticks and
// preemption points, and posts its grace-period kthread's work.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "sim/kernel/rcu_gp.h"
#include "sim/timed/engine.h"

namespace futexsim::sim {

class rcu_sim final : public event_source {
public:
    explicit rcu_sim(engine& e);

    // Cookies count completed grace periods, as rcu_seq_snap() does.
    unsigned long get_state() const { return gp_.get_state(); }
    bool poll_state(unsigned long cookie) const { return gp_.poll_state(cookie); }
    // call_rcu_hurry(): `cb` runs on `cpu` after a full grace period.
    void call_rcu(unsigned cpu, std::function<void()> cb);

    unsigned long completed() const { return gp_.completed(); }
    const char* name() const override { return "RCU"; }
    // What the stall warning reads (sim/timed/progress_watch.h): whether a grace
    // period is under way, since when, and which CPUs it still waits for.
    bool gp_active() const { return gp_.gp_active(); }
    vtime gp_started_at() const { return gp_start_; }
    bool cpu_holds_gp(unsigned cpu) const { return gp_.gp_active() && need_qs_[cpu]; }
    // Nothing queued, running or waiting to run.
    bool idle() const override;
    const std::vector<vtime>& gp_durations() const { return durations_; }

    // event_source: the scheduler's hooks, and the GP kthread's work.
    void context_switch(unsigned cpu, vtime at) override { note_qs(cpu, at); }
    void tick_quiescent(unsigned cpu, vtime at) override { note_qs(cpu, at); }
    void tick(std::int64_t k) override;
    void preemption_point(unsigned cpu, vtime at) override;
    void on_event(std::uint8_t what, std::uint32_t arg) override;

private:
    enum event_kind : std::uint8_t { gp_start, gp_end };
    void note_qs(unsigned cpu, vtime at);
    void start_gp();
    void end_gp();
    void run_ready_callbacks(unsigned cpu);
    void set_urgent(bool on);

    engine& eng_;
    std::uint8_t source_;
    kernel::rcu_gp gp_;
    bool gp_start_scheduled_ = false;
    bool gp_end_scheduled_ = false;
    vtime gp_start_ = 0;
    std::int64_t gp_start_tick_ = 0;
    unsigned remaining_ = 0;
    std::vector<bool> need_qs_;
    std::vector<bool> urgent_;
    bool any_urgent_ = false;  // some CPU is asked to report at its next preemption point
    std::vector<std::deque<std::function<void()>>> ready_;  // per CPU, run at its tick
    std::vector<task*> softirq_;                               // per CPU, lazily spawned
    std::vector<vtime> durations_;
};

}  // namespace futexsim::sim
