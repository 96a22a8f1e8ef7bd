// rwsem-gate: the reporter's prototype (docs/policies.md). Every futex
// operation is a reader of a per-mm gate (mm->futex_gate) built like a
// percpu_rw_semaphore (kernel/locking/percpu-rwsem.c, with the rcu_sync of
// kernel/rcu/sync.c); a pivot is its writer.
//
// Readers: while the gate's rcu_sync is idle (GP_IDLE), percpu_down_read()
// is one increment of this CPU's counter and touches no shared line but
// the read-shared gp_state. Once a writer has entered, readers take the slow
// path: count themselves, then back out and sleep while a writer holds the
// gate (`block`).
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
// finds it, as the futex_requeue selftest expects. A pivot is never started
// while the stack unwinds (the simulator's teardown).
// A wait's read section is futex_wait_setup(): a waiter never sleeps inside
// it, or the writer would wait for a sleeper the blocked wakers cannot wake.
//
// rss_lock: rcu_sync's gp_state and gp_count change with no environment
// call in between (model/futex.h, struct rcu_sync), which a simulator
// cannot interleave, so the lock itself is not modelled.
#pragma once

#include <exception>
#include <string_view>

#include "model/policies/stock.h"

namespace futexsim::model {

// rcu_sync_is_idle(): READ_ONCE(rsp->gp_state) == GP_IDLE.
template <class Env>
bool rcu_sync_is_idle(mm_struct<Env>* mm)
{
    return mm->env->atomic_read(mm->futex_gate.rss.gp_state_pub) == GP_IDLE;
}

// WRITE_ONCE(rsp->gp_state, state): the plain state, then what readers see.
template <class Env>
void rcu_sync_set_state(mm_struct<Env>* mm, int state)
{
    mm->futex_gate.rss.gp_state = state;
    mm->env->atomic_set(mm->futex_gate.rss.gp_state_pub, state);
}

// rcu_sync_func(): a grace period after rcu_sync_enter() (called directly)
// or rcu_sync_exit() (as an RCU callback).
template <class Env>
void rcu_sync_func(rcu_head* head)
{
    auto* mm = static_cast<mm_struct<Env>*>(head->owner);
    Env& env = *mm->env;
    rcu_sync<Env>& rss = mm->futex_gate.rss;

    WARN_ON_ONCE(env, rss.gp_state == GP_IDLE, "rcu_sync_func: GP_IDLE");
    WARN_ON_ONCE(env, rss.gp_state == GP_PASSED, "rcu_sync_func: GP_PASSED");

    if (rss.gp_count) {
        // At least a grace period after GP_IDLE -> GP_ENTER.
        rcu_sync_set_state(mm, GP_PASSED);
        env.wake_up_var(&rss);
    } else if (rss.gp_state == GP_REPLAY) {
        // Another enter/exit pair came meanwhile: one more grace period.
        // Published before the callback is queued, so that no later store
        // can land after the callback's GP_IDLE.
        rcu_sync_set_state(mm, GP_EXIT);
        env.call_rcu_hurry(&rss.cb_head, &rcu_sync_func<Env>);
    } else {
        // A grace period after the last exit: readers' fast path again.
        rcu_sync_set_state(mm, GP_IDLE);
    }
}

// rcu_sync_enter(): force readers onto the slow path. Alone, it waits a
// grace period; shortly after an rcu_sync_exit() it does not.
template <class Env>
void rcu_sync_enter(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    rcu_sync<Env>& rss = mm->futex_gate.rss;

    const int gp_state = rss.gp_state;
    if (gp_state == GP_IDLE) {
        rss.gp_state = GP_ENTER;
        WARN_ON_ONCE(env, rss.gp_count != 0, "rcu_sync_enter: gp_count");
    }
    rss.gp_count++;
    if (gp_state == GP_IDLE) {
        env.atomic_set(rss.gp_state_pub, GP_ENTER);
        // Readers that saw GP_IDLE are out of their fast path after this.
        env.synchronize_rcu();
        rcu_sync_func<Env>(&rss.cb_head);
        return;
    }
    env.wait_var_event(&rss, [&rss] { return rss.gp_state >= GP_PASSED; });
}

// rcu_sync_exit(): readers may use the fast path again a grace period later.
template <class Env>
void rcu_sync_exit(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    rcu_sync<Env>& rss = mm->futex_gate.rss;

    WARN_ON_ONCE(env, rss.gp_state == GP_IDLE, "rcu_sync_exit: GP_IDLE");
    WARN_ON_ONCE(env, rss.gp_count == 0, "rcu_sync_exit: gp_count");
    if (--rss.gp_count)
        return;
    if (rss.gp_state == GP_PASSED) {
        rcu_sync_set_state(mm, GP_EXIT);
        env.call_rcu_hurry(&rss.cb_head, &rcu_sync_func<Env>);
    } else if (rss.gp_state == GP_EXIT) {
        rcu_sync_set_state(mm, GP_REPLAY);
    }
}

// __percpu_down_read_trylock(): count ourselves, then look at `block`. A
// reader that misses the writer's `block` is seen by the writer's sum.
template <class Env>
bool __percpu_down_read_trylock(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    percpu_gate<Env>& sem = mm->futex_gate;

    env.this_cpu_inc(*sem.read_count);
    env.smp_mb();  // A matches D
    if (!env.smp_load_acquire(sem.block)) [[likely]]
        return true;
    env.this_cpu_dec(*sem.read_count);
    env.wake_up_var(&sem);  // rcuwait_wake_up(&sem->writer): re-check the sum
    return false;
}

// __percpu_down_write_trylock(): writer-writer exclusion.
template <class Env>
bool __percpu_down_write_trylock(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    percpu_gate<Env>& sem = mm->futex_gate;
    if (env.atomic_read(sem.block))
        return false;
    int expected = 0;
    return env.atomic_try_cmpxchg(sem.block, expected, 1);  // atomic_xchg() == 0
}

// percpu_rwsem_wait(): sleep until the trylock succeeds. The kernel's wake
// function takes the lock for the sleeper; here the sleeper retries it.
template <class Env>
void percpu_rwsem_wait(mm_struct<Env>* mm, bool reader)
{
    percpu_gate<Env>& sem = mm->futex_gate;
    mm->env->wait_var_event(&sem.block, [mm, reader] {
        if (reader) {
            preempt_guard<Env> preempt(*mm->env);
            return __percpu_down_read_trylock(mm);
        }
        return __percpu_down_write_trylock(mm);
    });
}

// percpu_down_read()
template <class Env>
void percpu_down_read(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    {
        // preempt_disable() is an RCU read-side section: rcu_sync_enter()'s
        // grace period waits for a reader that saw GP_IDLE.
        preempt_guard<Env> preempt(env);
        rcu_guard<Env> rcu(env);
        if (rcu_sync_is_idle(mm)) [[likely]] {
            env.this_cpu_inc(*mm->futex_gate.read_count);
            return;
        }
        if (__percpu_down_read_trylock(mm))  // __percpu_down_read()
            return;
    }
    percpu_rwsem_wait(mm, true);
}

// percpu_up_read()
template <class Env>
void percpu_up_read(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    preempt_guard<Env> preempt(env);
    rcu_guard<Env> rcu(env);
    if (rcu_sync_is_idle(mm)) [[likely]] {
        env.this_cpu_dec(*mm->futex_gate.read_count);
        return;
    }
    env.smp_mb();  // B matches C: the writer sees our whole section
    env.this_cpu_dec(*mm->futex_gate.read_count);
    env.wake_up_var(&mm->futex_gate);  // rcuwait_wake_up(&sem->writer)
}

// readers_active_check(): the per-CPU sum, stable while `block` is set
// (a reader that counts itself now backs out at once).
template <class Env>
bool readers_active_check(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    unsigned sum = 0;
    const unsigned ncpu = env.num_possible_cpus();
    for (unsigned cpu = 0; cpu < ncpu; cpu++)  // per_cpu_sum()
        sum += env.per_cpu_read(*mm->futex_gate.read_count, cpu);
    if (sum != 0)
        return false;
    env.smp_mb();  // C matches B
    return true;
}

// percpu_down_write()
template <class Env>
void percpu_down_write(mm_struct<Env>* mm)
{
    rcu_sync_enter(mm);  // readers to the slow path
    if (!__percpu_down_write_trylock(mm))
        percpu_rwsem_wait(mm, false);
    // rcuwait_wait_event(&sem->writer, readers_active_check(sem), TASK_UNINTERRUPTIBLE)
    mm->env->wait_var_event(&mm->futex_gate, [mm] { return readers_active_check(mm); });
}

// percpu_up_write()
template <class Env>
void percpu_up_write(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    env.smp_store_release(mm->futex_gate.block, 0);
    env.wake_up_var(&mm->futex_gate.block);  // __wake_up(&sem->waiters, ...)
    rcu_sync_exit(mm);
}

// The pivot as the gate's writer (see the top of this file).
template <class Env>
void futex_gate_pivot(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    percpu_down_write(mm);
    // No reader inside, so no hash reference but the transition's own.
    futex_pivot_pending_wait(mm);
    futex_pivot_hash(mm);
    percpu_up_write(mm);
    env.atomic_set(mm->futex_gate.pivot_writer, 0);
}

struct rwsem_gate_policy : stock_policy {
    static constexpr std::string_view name = "rwsem-gate";
    static constexpr std::string_view summary =
        "reporter's prototype: operations read a percpu-rwsem-like gate, the pivot writes it";

    template <class Env>
    static void mm_init(mm_struct<Env>* mm)
    {
        Env& env = *mm->env;
        percpu_gate<Env>& sem = mm->futex_gate;  // __percpu_init_rwsem(), rcu_sync_init()
        sem.read_count = env.alloc_percpu_uint();
        sem.rss.gp_state = GP_IDLE;
        sem.rss.gp_count = 0;
        sem.rss.cb_head.owner = mm;
        env.atomic_set(sem.rss.gp_state_pub, GP_IDLE);
        env.atomic_set(sem.block, 0);
        env.atomic_set(sem.pivot_writer, 0);
    }

    template <class Env>
    static void futex_op_begin(mm_struct<Env>* mm, futex_op /*op*/)
    {
        percpu_down_read(mm);
    }

    template <class Env>
    static void futex_op_end(mm_struct<Env>* mm, futex_op /*op*/)
    {
        percpu_up_read(mm);
        // READ_ONCE(mm->futex_phash_new): nothing parked on the fast path.
        if (mm->futex_phash_new && std::uncaught_exceptions() == 0) [[unlikely]] {
            int expected = 0;
            Env& env = *mm->env;
            if (!env.atomic_read(mm->futex_gate.pivot_writer) &&
                env.atomic_try_cmpxchg(mm->futex_gate.pivot_writer, expected, 1))
                futex_gate_pivot(mm);
        }
    }
};

}  // namespace futexsim::model
