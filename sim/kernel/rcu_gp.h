// RCU's grace-period sequence and callback lists, the part of Tree RCU
// (kernel/rcu/tree.c) every fiber environment shares: the cookies of
// get_state_synchronize_rcu() / poll_state_synchronize_rcu() (rcu_seq_snap(),
// rcu_seq_done()), call_rcu()'s callbacks waiting for the grace period that
// makes them safe, and kvfree_rcu()'s deferred frees.
//
// When a grace period starts and ends is the clock's: the timed simulator's
// quiescent states at ticks, context switches and idle (sim/timed/rcu.h), the
// explorer's step count and read-side sections (sim/explore/explore_env.h),
// or the caller of the step environment (sim/step/step_env.h). Each calls
// start_gp() and end_gp() and runs what end_gp() hands back in its own way.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

namespace futexsim::sim::kernel {

class rcu_gp {
public:
    // A callback whose grace period has ended, to run on `cpu`.
    struct ready_callback {
        unsigned cpu;
        std::function<void()> fn;
    };
    struct ended {
        std::vector<ready_callback> callbacks;  // in the order they were queued
        std::vector<std::function<void()>> frees;
    };

    // get_state_synchronize_rcu(): the number of grace periods that must
    // have completed; one in progress does not count (rcu_seq_snap()).
    unsigned long get_state() const { return completed_ + (active_ ? 2 : 1); }
    // poll_state_synchronize_rcu()
    bool poll_state(unsigned long cookie) const { return completed_ >= cookie; }
    unsigned long completed() const { return completed_; }
    bool gp_active() const { return active_; }

    // call_rcu(): `fn` runs on `cpu` once a full grace period from now has
    // ended.
    void call_rcu(unsigned cpu, std::function<void()> fn)
    {
        callbacks_.push_back({cpu, get_state(), std::move(fn)});
    }
    // kvfree_rcu() for an environment that frees as the grace period ends
    // (no callback task runs it).
    void defer_free(std::function<void()> free) { frees_.push_back({get_state(), std::move(free)}); }

    std::size_t callbacks_waiting() const { return callbacks_.size(); }
    bool frees_waiting() const { return !frees_.empty(); }
    // Teardown: every free still waiting, whatever its grace period.
    std::vector<std::function<void()>> take_frees()
    {
        std::vector<std::function<void()>> out;
        for (auto& f : frees_)
            out.push_back(std::move(f.free));
        frees_.clear();
        return out;
    }

    // rcu_gp_init(): a grace period starts.
    void start_gp() { active_ = true; }
    // rcu_gp_cleanup(): it ends; what has waited long enough is handed
    // back, callbacks queued later keep waiting.
    ended end_gp()
    {
        active_ = false;
        ++completed_;
        ended out;
        std::deque<waiting> later;
        for (auto& cb : callbacks_) {
            if (cb.after <= completed_)
                out.callbacks.push_back({cb.cpu, std::move(cb.fn)});
            else
                later.push_back(std::move(cb));
        }
        callbacks_ = std::move(later);
        std::deque<waiting_free> keep;
        for (auto& f : frees_) {
            if (f.after <= completed_)
                out.frees.push_back(std::move(f.free));
            else
                keep.push_back(std::move(f));
        }
        frees_ = std::move(keep);
        return out;
    }

private:
    struct waiting {
        unsigned cpu;
        unsigned long after;  // runs once completed_ >= after
        std::function<void()> fn;
    };
    struct waiting_free {
        unsigned long after;
        std::function<void()> free;
    };
    unsigned long completed_ = 0;
    bool active_ = false;
    std::deque<waiting> callbacks_;
    std::deque<waiting_free> frees_;
};

}  // namespace futexsim::sim::kernel
