// "The parked hash drains" (`--liveness parked-drains`): the bounded
// liveness a gating policy promises, stated as safety so that a bounded
// exhaustive search can check it on finite schedules.
//
// The promise of a gate: once it is closed, the futex calls that begin
// take no reference on the hash being replaced (H, the current hash while
// another is parked), so H's count drains as soon as the calls already in
// flight leave, whatever the load. The property: no futex call that began
// after the gate closed, with the gate closed ever since, takes a
// reference on H (futex_ref_get() succeeding). A call in flight when the
// gate closed may take any number (the race every gate has: it loaded
// futex_phash, or passed its gate, before the pivot), so each thread has at
// most one call that may: the bound is one call per thread, not one
// reference (futex_wake_op() and futex_requeue() take two, a retried
// futex_wait() takes one per pass).
//
// When a gate is closed, per policy (from model/policies/*.h):
// - wait-for-new (and its mutants): while a hash is parked
//   (mm->futex_phash_new set), the condition its futex_op_begin() reads.
//   Not from futex_ref_drop(): until __futex_pivot_hash() parks the new
//   hash, which can be several steps later, the gate reads nothing parked
//   and lets calls through, by design. A gated caller sleeps until
//   futex_pivot_pending(): H dead (its futex_ref_get() then fails and it
//   pivots) or nothing parked, which opens the gate (the installation, or a
//   racing futex_hash_allocate() holding the parked hash under
//   futex_hash_lock for a moment: a clone's auto-scaling, since a custom
//   SET_SLOTS waits for the pivot first): a call that passes while it is
//   open is counted as in flight when it closes again.
// - rwsem-gate: while a hash is parked and the gate's `block` is set. From
//   the park until its writer sets `block` (after rcu_sync_enter()'s grace
//   period) readers take the fast path and are not gated at all; after it,
//   a reader that begins finds `block` and waits for percpu_up_write(),
//   which comes after the installation.
// - stock: no gate; the same condition as wait-for-new, which stock breaks
//   as soon as a thread calls again while a hash is parked (the v6.17 stall).
// wait-for-new does not gate futex_requeue() (docs/policies.md): a requeue
// that begins while a hash is parked breaks the property, and rightly, since
// that is the draft's known gap.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class parked_drains final : public explore_observer {
public:
    explicit parked_drains(const run_context& ctx) : ctx_(ctx), mm_(ctx.mm) {}

    // A reference taken (the references held grew) is checked.
    void on_op(const explore_task& t, const op_event&) override;
    void on_step(const explore_task&, const op_event&) override { observe(ctx_.env.step()); }
    void before_call(const case_op& op) override;
    void after_call(const case_op&, long) override { calls_.erase(ctx_.env.current().id); }

private:
    // Notes the gate closing or opening; called after every step and before
    // each check, the points where another task may run.
    void observe(std::uint64_t step);
    // The words the gate reads: a call's entry reads them, so that the
    // reduction orders the entry against the gate's closing.
    std::vector<const void*> gate_words() const;
    // Task `t` took a reference on the current hash: the violation, or "".
    std::string reference_taken(const explore_task& t);
    bool gate_closed() const;

    struct call {
        std::uint64_t seq;
        std::string op;
    };
    const run_context& ctx_;
    explored_mm& mm_;
    long held_seen_ = 0;     // the references held after the last operation
    std::uint64_t seq_ = 0;  // orders calls' entries against the gate's closings
    bool closed_ = false;
    std::uint64_t closed_seq_ = 0;
    std::uint64_t closed_step_ = 0;
    std::unordered_map<int, call> calls_;  // by task: the futex call it is in
};

}  // namespace futexsim::sim::explore
