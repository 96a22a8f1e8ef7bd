// rwsem-gate: the project's reconstruction of the reporter's prototype, whose
// code is not in the public thread, only its description (docs/policies.md,
// "Where each policy comes from"). Every futex
// operation is a reader of a per-mm gate, a percpu_rw_semaphore
// (model/percpu_rwsem.h, kernel/locking/percpu-rwsem.c, with the rcu_sync of
// model/rcu_sync.h, kernel/rcu/sync.c); a pivot is its writer. The gate is
// this policy's per-mm state (`mm_state`), beside `pivot_writer`.
//
// Who is the writer. The task whose futex_hash_allocate() parks a new hash
// cannot be: clone() is never delayed by auto-scaling, and holds
// futex_hash_lock there. So the first futex operation to finish while a hash
// is parked in futex_phash_new, once it has left its read section and
// dropped its references (its own work done: a waiter is queued, a waker
// has woken), claims the writer's role (`pivot_writer`, a cmpxchg only ever
// tried while a pivot is parked; the losers go on, and operations that start
// after `block` is set wait behind the writer) and:
//   1. percpu_down_write(): rcu_sync_enter() (one synchronous grace period
//      unless a recent rcu_sync_exit() left the gate in GP_EXIT/GP_REPLAY,
//      when it is skipped), set `block`, wait until the readers' per-CPU
//      counts sum to zero;
//   2. with no reader inside, nobody holds a hash reference (every
//      reference is taken inside a read section), so waits for the count to
//      drain (futex_pivot_pending(): the FR_PERCPU -> FR_ATOMIC transition
//      still takes its one or two grace periods, and the fold then leaves
//      zero), and installs the new hash (futex_pivot_hash());
//   3. percpu_up_write(): clear `block`, wake the blocked readers,
//      rcu_sync_exit() (a grace period later the readers' fast path is
//      back), give up the role; then returns to its caller (a waiter goes
//      to sleep, unless it was woken meanwhile).
// Doing the pivot after the operation, not before it, matters for a waiter:
// it is queued while it pivots, so a requeue or wake that comes meanwhile
// finds it, as the futex_requeue selftest expects. This rule was chosen to
// match that reported outcome: the earlier one (the next operation to start
// is the writer) failed the selftest at HZ=250. A pivot is never started
// while the environment unwinds the task's stack (env.unwinding(): the
// simulator tearing its fibers down, model/env.h).
// A wait's read section is futex_wait_setup(): a waiter never sleeps inside
// it, or the writer would wait for a sleeper the blocked wakers cannot wake.
#pragma once

#include <string_view>

#include "model/percpu_rwsem.h"
#include "model/policies/stock.h"

namespace futexsim::model {

struct rwsem_gate_policy;

// The pivot as the gate's writer (see the top of this file).
template <class Env>
void futex_gate_pivot(mm_struct<Env>* mm)
{
    auto& gate = policy_state<rwsem_gate_policy>(mm);
    percpu_down_write(&gate.sem);
    // No reader inside, so no hash reference but the transition's own.
    futex_pivot_pending_wait(mm);
    futex_pivot_hash(mm);
    percpu_up_write(&gate.sem);
    mm->env->atomic_set(gate.pivot_writer, 0);
}

struct rwsem_gate_policy : stock_policy {
    static constexpr std::string_view name = "rwsem-gate";
    static constexpr std::string_view summary =
        "reporter's prototype: operations read a percpu-rwsem-like gate, the pivot writes it";

    // The per-mm gate. Unused (and never allocated) under other policies.
    template <class Env>
    struct mm_state : policy_mm_state {
        percpu_rw_semaphore<Env> sem;
        // Not in percpu-rwsem: which futex operation has taken the pivot
        // writer's role (1) or none (0). Read only while a pivot is parked.
        alignas(64) typename Env::template word<int> pivot_writer{};
    };

    template <class Env>
    static void mm_init(mm_struct<Env>* mm)
    {
        auto& gate = policy_state<rwsem_gate_policy>(mm);
        __percpu_init_rwsem(&gate.sem, *mm->env);
        mm->env->atomic_set(gate.pivot_writer, 0);
    }

    template <class Env>
    static std::string_view word_name(const mm_struct<Env>* mm, const void* addr)
    {
        const auto& gate = policy_state<rwsem_gate_policy>(mm);
        if (addr == gate.sem.read_count.get())
            return "gate.read_count";
        if (addr == &gate.sem.block)
            return "gate.block";
        if (addr == &gate.pivot_writer)
            return "gate.pivot_writer";
        if (addr == &gate.sem.rss.gp_state_pub)
            return "gate.gp_state";
        return {};
    }

    // The gate is closed once the writer has set `block` (before it, from
    // the park through rcu_sync_enter()'s grace period, readers take the
    // fast path), until the installation clears futex_phash_new.
    template <class Env>
    static bool gate_closed(const mm_struct<Env>* mm)
    {
        return mm->futex_phash_new && policy_state<rwsem_gate_policy>(mm).sem.block.v != 0;
    }
    template <class Env>
    static std::vector<const void*> gate_words(const mm_struct<Env>* mm)
    {
        return {&mm->futex_phash_new, &policy_state<rwsem_gate_policy>(mm).sem.block};
    }

    template <class Env>
    static void futex_op_begin(mm_struct<Env>* mm, futex_op /*op*/)
    {
        percpu_down_read(&policy_state<rwsem_gate_policy>(mm).sem);
    }

    // A futex_wait_requeue_pi() waiter never takes the writer's role: it
    // may be handed a hash reference (requeue_pi_wake_futex()'s drop_fph),
    // which the writer's wait for the count would then wait for, and the
    // PI lock, whose wake-up would find it TASK_RUNNING (docs/findings.md,
    // "rwsem-gate and requeue-PI"). rwsem-gate-v1 lets it.
    static bool may_write(futex_op op) { return op != futex_op::wait_requeue_pi; }

    // Leave the read section; then, if a hash is parked and Self allows this
    // operation, the first operation to get here takes the writer's role.
    // (One body for rwsem-gate and rwsem-gate-v1, Self the policy.)
    template <class Env, class Self = rwsem_gate_policy>
    static void futex_op_end(mm_struct<Env>* mm, futex_op op)
    {
        auto& gate = policy_state<rwsem_gate_policy>(mm);
        percpu_up_read(&gate.sem);
        // READ_ONCE(mm->futex_phash_new): nothing parked on the fast path.
        if (Self::may_write(op) && mm->futex_phash_new && !mm->env->unwinding()) [[unlikely]] {
            int expected = 0;
            Env& env = *mm->env;
            if (!env.atomic_read(gate.pivot_writer) && env.atomic_try_cmpxchg(gate.pivot_writer, expected, 1)) {
                // futex_wait_setup() has queued a waiter in
                // TASK_INTERRUPTIBLE; the writer sleeps, so it runs, and
                // sets the state again after (the patch's
                // futex_gate_up_read()). A wake that comes while it pivots
                // finds it TASK_RUNNING and is used up.
                const unsigned state = env.get_current_state();
                env.set_current_state(TASK_RUNNING);  // __set_current_state()
                futex_gate_pivot(mm);
                if (state != TASK_RUNNING)
                    env.set_current_state(state);
            }
        }
    }
};

}  // namespace futexsim::model
