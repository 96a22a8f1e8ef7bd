// The safety invariants, checked after every step of an explored run, and
// the ghost state they need: what the operations so far say about the
// references held, which hash died, where a fold is.
//
// The ghost follows the operations the model makes through the
// environment, identified by the word they touch and the model function
// that made them (std::source_location, matched against the functions
// themselves: sim/explore/model_call_sites.h), never by changing the model.
// An increment of futex_ref by any other function is a violation, since
// the ghost cannot tell what it stands for. What it keeps:
// - references held: +1 for futex_ref_get()'s per-CPU increment and for a
//   successful cmpxchg on futex_atomic (only inc_not_zero makes one), -1
//   for futex_ref_put()'s per-CPU decrement and atomic decrement;
// - the initial reference: futex_hash_allocate()'s first per-CPU increment;
// - the bias: from __futex_ref_atomic_begin()'s store to futex_atomic until
//   the fold's add lands (the kernel's LONG_MAX, whatever the model stores);
// - a fold in flight: per-CPU counts __futex_ref_atomic_end() zeroed and has
//   not yet added, less the next hash's initial reference it re-armed;
// - dead hashes: each fph (by its state word) whose count reached zero.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>

#include "sim/explore/explored_model.h"

namespace futexsim::sim::explore {

class invariants final : public explore_observer {
public:
    invariants(explore_env& env, explored_mm& mm, model::futex_data<explore_env>& global)
        : env_(env), mm_(mm), global_(global)
    {
    }

    // Follows each operation in the ghost state.
    void on_op(const explore_task& t, const op_event& ev) override;
    // After each step: the first violated invariant stops the run.
    void on_step(const explore_task&, const op_event&) override;
    // The first violated invariant, or "".
    std::string check_step();

    long held() const { return held_; }
    bool biased() const { return biased_; }
    long in_flight() const { return in_flight_; }
    unsigned percpu_sum() const;
    // futex_atomic as the count it stands for (less the bias while biased).
    long atomic_count() const;
    bool is_dead(const void* state_word) const { return dead_.count(state_word) != 0; }
    // "FR_PERCPU" / "FR_ATOMIC" / "dead" for the current fph.
    std::string state_text() const;

private:
    std::string check_refcount() const;
    std::string check_waiters() const;
    void got_reference(const explore_task& t);

    explore_env& env_;
    explored_mm& mm_;
    model::futex_data<explore_env>& global_;
    long held_ = 0;
    bool initial_ = false;
    bool biased_ = false;
    long in_flight_ = 0;
    std::set<const void*> dead_;
    std::unordered_map<int, const void*> last_state_;  // by task: the fph state word it last read
    std::string pending_violation_;
};

}  // namespace futexsim::sim::explore
