// RCU grace periods as Tree RCU runs them, at the level that decides how long
// a pivot waits: a grace period starts when callbacks need one, ends once
// every CPU has reported a quiescent state (a tick in user mode or, with
// preemptible RCU, outside any read-side section; a context switch; idle,
// found by the force-quiescent-state scan), and callbacks then run in softirq
// context on the CPU that queued them, at its next tick.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "sim/engine.h"

namespace futexsim::sim {

class rcu_sim {
public:
    explicit rcu_sim(engine& e);

    // Cookies count completed grace periods, as rcu_seq_snap() does.
    unsigned long get_state() const { return completed_ + (gp_active_ ? 2 : 1); }
    bool poll_state(unsigned long cookie) const { return completed_ >= cookie; }
    // call_rcu_hurry(): `cb` runs on `cpu` after a full grace period.
    void call_rcu(unsigned cpu, std::function<void()> cb);

    // Engine hooks.
    void note_qs(unsigned cpu, vtime at);
    void on_tick(std::int64_t k);
    bool urgent_qs(unsigned cpu) const { return gp_active_ && urgent_[cpu] && need_qs_[cpu]; }
    bool any_urgent() const { return any_urgent_; }

    unsigned long completed() const { return completed_; }
    // Nothing queued, running or waiting to run.
    bool idle() const;
    const std::vector<vtime>& gp_durations() const { return durations_; }

private:
    struct pending_cb {
        unsigned cpu;
        unsigned long after;  // runs once `completed_ >= after`
        std::function<void()> fn;
    };
    void start_gp();
    void end_gp();
    void run_ready_callbacks(unsigned cpu);

    engine& eng_;
    unsigned long completed_ = 0;
    bool gp_active_ = false;
    bool gp_start_scheduled_ = false;
    bool gp_end_scheduled_ = false;
    vtime gp_start_ = 0;
    std::int64_t gp_start_tick_ = 0;
    unsigned remaining_ = 0;
    std::vector<bool> need_qs_;
    std::vector<bool> urgent_;
    bool any_urgent_ = false;
    std::deque<pending_cb> callbacks_;
    std::vector<std::deque<std::function<void()>>> ready_;  // per CPU, run at its tick
    std::vector<task*> softirq_;                               // per CPU, lazily spawned
    std::vector<vtime> durations_;
};

}  // namespace futexsim::sim
