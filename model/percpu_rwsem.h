// The per-CPU reader-writer semaphore of kernel/locking/percpu-rwsem.c and
// include/linux/percpu-rwsem.h (Linux v6.17), reduced to what the
// rwsem-gate policy needs (model/policies/rwsem_gate.h): no lockdep, no
// try-lock API, no rcuwait (the writer's wait is a wait_var_event() on the
// semaphore, woken by wake_up_var()), no waitqueue (readers and writers
// blocked on `block` wait on it and are woken by wake_up_var(&block)). One
// function per kernel function, same names.
//
// Readers: while the rcu_sync (model/rcu_sync.h) is idle (GP_IDLE),
// percpu_down_read() is one increment of this CPU's counter and touches no
// shared line but the read-shared gp_state. Once a writer has entered,
// readers take the slow path: count themselves, then back out and sleep
// while a writer holds the semaphore (`block`).
#pragma once

#include <memory>

#include "model/cleanup.h"
#include "model/mutation.h"
#include "model/rcu_sync.h"

namespace futexsim::model {

// struct percpu_rw_semaphore, plus the environment. `rss` first, as in the
// kernel: the semaphore and its rcu_sync then share an address, so a
// wake_up_var(sem) also makes a task waiting in rcu_sync_enter() re-check
// its condition (a spurious wake-up: it sleeps again). The model has always
// done so; another layout would change simulated results.
template <class Env>
struct percpu_rw_semaphore {
    rcu_sync<Env> rss;
    Env* env = nullptr;
    std::unique_ptr<typename Env::percpu_uint> read_count;  // unsigned int __percpu *
    alignas(64) typename Env::template word<int> block{};   // a writer holds or waits for it
};

// __percpu_init_rwsem() (percpu_init_rwsem())
template <class Env>
void __percpu_init_rwsem(percpu_rw_semaphore<Env>* sem, Env& env)
{
    sem->env = &env;
    sem->read_count = env.alloc_percpu_uint();
    rcu_sync_init(&sem->rss, env);
    env.atomic_set(sem->block, 0);
}

// __percpu_down_read_trylock(): count ourselves, then look at `block`. A
// reader that misses the writer's `block` is seen by the writer's sum.
template <class Env>
bool __percpu_down_read_trylock(percpu_rw_semaphore<Env>* sem)
{
    Env& env = *sem->env;
    env.this_cpu_inc(*sem->read_count);
    if (!mutated(mutation::no_rwsem_mb_a))  // mutation point (model/mutation.h)
        env.smp_mb();                       // A matches D
    const int block = mutated(mutation::plain_rwsem_block_acquire)  // mutation point
                          ? env.atomic_read(sem->block)
                          : env.smp_load_acquire(sem->block);
    if (!block) [[likely]]
        return true;
    env.this_cpu_dec(*sem->read_count);
    env.wake_up_var(sem);  // rcuwait_wake_up(&sem->writer): re-check the sum
    return false;
}

// __percpu_down_write_trylock(): writer-writer exclusion.
template <class Env>
bool __percpu_down_write_trylock(percpu_rw_semaphore<Env>* sem)
{
    Env& env = *sem->env;
    if (env.atomic_read(sem->block))
        return false;
    int expected = 0;
    return env.atomic_try_cmpxchg(sem->block, expected, 1);  // atomic_xchg() == 0
}

// percpu_rwsem_wait(): sleep until the trylock succeeds. The kernel's wake
// function takes the lock for the sleeper; here the sleeper retries it.
template <class Env>
void percpu_rwsem_wait(percpu_rw_semaphore<Env>* sem, bool reader)
{
    sem->env->wait_var_event(&sem->block, [sem, reader] {
        if (reader) {
            preempt_guard<Env> preempt(*sem->env);
            return __percpu_down_read_trylock(sem);
        }
        return __percpu_down_write_trylock(sem);
    });
}

// percpu_down_read()
template <class Env>
void percpu_down_read(percpu_rw_semaphore<Env>* sem)
{
    Env& env = *sem->env;
    {
        // preempt_disable() is an RCU read-side section: rcu_sync_enter()'s
        // grace period waits for a reader that saw GP_IDLE.
        preempt_guard<Env> preempt(env);
        rcu_guard<Env> rcu(env);
        if (rcu_sync_is_idle(&sem->rss)) [[likely]] {
            env.this_cpu_inc(*sem->read_count);
            return;
        }
        if (__percpu_down_read_trylock(sem))  // __percpu_down_read()
            return;
    }
    percpu_rwsem_wait(sem, true);
}

// percpu_up_read()
template <class Env>
void percpu_up_read(percpu_rw_semaphore<Env>* sem)
{
    Env& env = *sem->env;
    preempt_guard<Env> preempt(env);
    rcu_guard<Env> rcu(env);
    if (rcu_sync_is_idle(&sem->rss)) [[likely]] {
        env.this_cpu_dec(*sem->read_count);
        return;
    }
    if (!mutated(mutation::no_rwsem_mb_b))  // mutation point (model/mutation.h)
        env.smp_mb();                       // B matches C: the writer sees our whole section
    env.this_cpu_dec(*sem->read_count);
    env.wake_up_var(sem);  // rcuwait_wake_up(&sem->writer)
}

// readers_active_check(): the per-CPU sum, stable while `block` is set
// (a reader that counts itself now backs out at once).
template <class Env>
bool readers_active_check(percpu_rw_semaphore<Env>* sem)
{
    Env& env = *sem->env;
    unsigned sum = 0;
    const unsigned ncpu = env.num_possible_cpus();
    for (unsigned cpu = 0; cpu < ncpu; cpu++)  // per_cpu_sum()
        sum += env.per_cpu_read(*sem->read_count, cpu);
    if (sum != 0)
        return false;
    if (!mutated(mutation::no_rwsem_mb_c))  // mutation point (model/mutation.h)
        env.smp_mb();                       // C matches B
    return true;
}

// percpu_down_write()
template <class Env>
void percpu_down_write(percpu_rw_semaphore<Env>* sem)
{
    rcu_sync_enter(&sem->rss);  // readers to the slow path
    if (!__percpu_down_write_trylock(sem))
        percpu_rwsem_wait(sem, false);
    // rcuwait_wait_event(&sem->writer, readers_active_check(sem), TASK_UNINTERRUPTIBLE)
    sem->env->wait_var_event(sem, [sem] { return readers_active_check(sem); });
}

// percpu_up_write()
template <class Env>
void percpu_up_write(percpu_rw_semaphore<Env>* sem)
{
    Env& env = *sem->env;
    if (mutated(mutation::plain_rwsem_block_release))  // mutation point (model/mutation.h)
        env.atomic_set(sem->block, 0);
    else
        env.smp_store_release(sem->block, 0);
    env.wake_up_var(&sem->block);  // __wake_up(&sem->waiters, ...)
    rcu_sync_exit(&sem->rss);
}

}  // namespace futexsim::model
