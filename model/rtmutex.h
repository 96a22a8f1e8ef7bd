// What the PI futex code uses of the rt_mutex (kernel/locking/rtmutex.c,
// rtmutex_api.c and rtmutex_common.h, Linux 7.2.13), one function per
// kernel function, same names: the lock a futex_pi_state carries, taken by
// proxy for a waiter (requeue-PI, futex_lock_pi()) and handed to the next
// waiter by futex_unlock_pi().
//
// Left out, and why it does not matter to the futex paths modelled:
// - Priority: every task here has one priority (the futex_requeue_pi
//   selftest's threads do), so the waiter tree is a FIFO, the top waiter is
//   the first to block, rt_mutex_steal() never steals (a lock steal needs
//   a higher priority on a mutex build), and rt_mutex_adjust_prio(), the
//   owner's pi_waiters tree and the chain walk
//   (rt_mutex_adjust_prio_chain()) change nothing: the chain walk's only
//   effect here would be deadlock detection across locks.
// - task->pi_lock and task->pi_blocked_on: read only by the chain walk and
//   by exit; not modelled.
// - Spinning on the owner (rtmutex_spin_on_owner()): a waiter sleeps.
// - The owner word's cmpxchg fast paths: the futex code never uses them.
#pragma once

#include <list>

#include "model/bug.h"
#include "model/env.h"
#include "model/errno.h"
#include "model/hrtimer.h"

namespace futexsim::model {

inline constexpr int EDEADLK_ = 35;  // as the kernel returns it (negated)

template <class Env>
struct rt_mutex_base;

// struct rt_mutex_waiter: `task` blocks on `lock`, woken in `wake_state`.
template <class Env>
struct rt_mutex_waiter {
    void* task = nullptr;
    rt_mutex_base<Env>* lock = nullptr;
    unsigned wake_state = TASK_NORMAL;
};

// struct rt_mutex_base. The owner word is a task pointer with the
// RT_MUTEX_HAS_WAITERS bit beside it; both, and the waiters, are changed
// under wait_lock only.
template <class Env>
struct rt_mutex_base {
    typename Env::spinlock_t wait_lock{};
    void* owner = nullptr;
    bool has_waiters_bit = false;                  // RT_MUTEX_HAS_WAITERS
    std::list<rt_mutex_waiter<Env>*> waiters;      // rb_root_cached, FIFO at one priority
};

// struct rt_wake_q_head: the task mark_wakeup_next_waiter() hands the lock to.
struct rt_wake_q_head {
    void* task = nullptr;
    unsigned state = TASK_NORMAL;
};

// rt_mutex_owner()
template <class Env>
void* rt_mutex_owner(rt_mutex_base<Env>* lock)
{
    return lock->owner;
}

// rt_mutex_has_waiters()
template <class Env>
bool rt_mutex_has_waiters(rt_mutex_base<Env>* lock)
{
    return !lock->waiters.empty();
}

// rt_mutex_top_waiter(): NULL when nobody waits.
template <class Env>
rt_mutex_waiter<Env>* rt_mutex_top_waiter(rt_mutex_base<Env>* lock)
{
    return lock->waiters.empty() ? nullptr : lock->waiters.front();
}

// rt_mutex_enqueue(): FIFO among equal priorities.
template <class Env>
void rt_mutex_enqueue(rt_mutex_base<Env>* lock, rt_mutex_waiter<Env>* waiter)
{
    lock->waiters.push_back(waiter);
}

// rt_mutex_dequeue()
template <class Env>
void rt_mutex_dequeue(rt_mutex_base<Env>* lock, rt_mutex_waiter<Env>* waiter)
{
    lock->waiters.remove(waiter);
}

// rt_mutex_set_owner(): the owner, with the waiters bit as the waiters say.
template <class Env>
void rt_mutex_set_owner(rt_mutex_base<Env>* lock, void* owner)
{
    lock->owner = owner;
    lock->has_waiters_bit = rt_mutex_has_waiters(lock);
}

// rt_mutex_clear_owner()
template <class Env>
void rt_mutex_clear_owner(rt_mutex_base<Env>* lock)
{
    lock->owner = nullptr;
    lock->has_waiters_bit = rt_mutex_has_waiters(lock);
}

// mark_rt_mutex_waiters(): force the slow path on the owner's unlock.
template <class Env>
void mark_rt_mutex_waiters(rt_mutex_base<Env>* lock)
{
    lock->has_waiters_bit = true;
}

// fixup_rt_mutex_waiters(): clear a waiters bit that try_to_take_rt_mutex()
// left set with nobody waiting.
template <class Env>
void fixup_rt_mutex_waiters(rt_mutex_base<Env>* lock, bool /*acquire_lock*/)
{
    if (!rt_mutex_has_waiters(lock))
        lock->has_waiters_bit = false;
}

// try_to_take_rt_mutex(): with wait_lock held, make `task` the owner if the
// lock is free and `waiter` is the top waiter (or, without a waiter, nobody
// waits). 1 if it took it.
template <class Env>
int try_to_take_rt_mutex(rt_mutex_base<Env>* lock, void* task, rt_mutex_waiter<Env>* waiter)
{
    mark_rt_mutex_waiters(lock);
    if (rt_mutex_owner(lock))
        return 0;
    if (waiter) {
        if (waiter != rt_mutex_top_waiter(lock))
            return 0;  // rt_mutex_steal(): never at one priority
        rt_mutex_dequeue(lock, waiter);
    } else if (rt_mutex_has_waiters(lock)) {
        return 0;
    }
    rt_mutex_set_owner(lock, task);  // takeit:
    return 1;
}

// task_blocks_on_rt_mutex(): enqueue `waiter` for `task`; -EDEADLK if
// `task` owns the lock. No chain walk (see the top of this file).
template <class Env>
int task_blocks_on_rt_mutex(rt_mutex_base<Env>* lock, rt_mutex_waiter<Env>* waiter, void* task)
{
    if (rt_mutex_owner(lock) == task)
        return -EDEADLK_;
    waiter->task = task;
    waiter->lock = lock;
    rt_mutex_enqueue(lock, waiter);
    return 0;
}

// remove_waiter(): take `waiter` off the lock (a timeout, a signal, a
// failed proxy start).
template <class Env>
void remove_waiter(rt_mutex_base<Env>* lock, rt_mutex_waiter<Env>* waiter)
{
    if (!waiter->task)  // never enqueued
        return;
    rt_mutex_dequeue(lock, waiter);
}

// mark_wakeup_next_waiter(): the lock is released with the waiters bit set
// (owner NULL), and the top waiter is queued to be woken; it takes the lock
// itself when it runs (try_to_take_rt_mutex() in rt_mutex_slowlock_block()).
template <class Env>
void mark_wakeup_next_waiter(rt_wake_q_head* wqh, rt_mutex_base<Env>* lock)
{
    rt_mutex_waiter<Env>* waiter = rt_mutex_top_waiter(lock);
    lock->owner = nullptr;
    lock->has_waiters_bit = true;  // (void *) RT_MUTEX_HAS_WAITERS
    wqh->task = waiter->task;      // rt_mutex_wake_q_add()
    wqh->state = waiter->wake_state;
}

// rt_mutex_postunlock() with rt_mutex_wake_up_q(): wake the task
// mark_wakeup_next_waiter() chose, after wait_lock is dropped.
template <class Env>
void rt_mutex_postunlock(Env& env, rt_wake_q_head* wqh)
{
    if (wqh->task)
        env.wake_up_state(wqh->task, wqh->state);
}

// __rt_mutex_slowtrylock()
template <class Env>
int __rt_mutex_slowtrylock(Env& env, rt_mutex_base<Env>* lock)
{
    const int ret = try_to_take_rt_mutex(lock, env.current_task(), static_cast<rt_mutex_waiter<Env>*>(nullptr));
    fixup_rt_mutex_waiters(lock, true);
    return ret;
}

// rt_mutex_slowtrylock()
template <class Env>
int rt_mutex_slowtrylock(Env& env, rt_mutex_base<Env>* lock)
{
    // rt_mutex_owner() read without the lock: a quick no.
    if (rt_mutex_owner(lock))
        return 0;
    env.spin_lock(lock->wait_lock);
    const int ret = __rt_mutex_slowtrylock(env, lock);
    env.spin_unlock(lock->wait_lock);
    return ret;
}

// rt_mutex_futex_trylock()
template <class Env>
int rt_mutex_futex_trylock(Env& env, rt_mutex_base<Env>* lock)
{
    return rt_mutex_slowtrylock(env, lock);
}

// __rt_mutex_futex_trylock(): wait_lock held.
template <class Env>
int __rt_mutex_futex_trylock(Env& env, rt_mutex_base<Env>* lock)
{
    return __rt_mutex_slowtrylock(env, lock);
}

// __rt_mutex_futex_unlock(): wait_lock held. True when a waiter is to be
// woken (rt_mutex_postunlock()).
template <class Env>
bool __rt_mutex_futex_unlock(rt_mutex_base<Env>* lock, rt_wake_q_head* wqh)
{
    if (!rt_mutex_has_waiters(lock)) {
        lock->owner = nullptr;
        return false;
    }
    mark_wakeup_next_waiter(wqh, lock);
    return true;
}

// rt_mutex_futex_unlock()
template <class Env>
void rt_mutex_futex_unlock(Env& env, rt_mutex_base<Env>* lock)
{
    rt_wake_q_head wqh;
    env.spin_lock(lock->wait_lock);
    const bool postunlock = __rt_mutex_futex_unlock(lock, &wqh);
    env.spin_unlock(lock->wait_lock);
    if (postunlock)
        rt_mutex_postunlock(env, &wqh);
}

// rt_mutex_init_proxy_locked(): a new lock, owned by `proxy_owner`.
template <class Env>
void rt_mutex_init_proxy_locked(rt_mutex_base<Env>* lock, void* proxy_owner)
{
    lock->waiters.clear();  // __rt_mutex_base_init()
    rt_mutex_set_owner(lock, proxy_owner);
}

// rt_mutex_proxy_unlock(): the last pi_state reference is gone.
template <class Env>
void rt_mutex_proxy_unlock(rt_mutex_base<Env>* lock)
{
    rt_mutex_clear_owner(lock);
}

// __rt_mutex_start_proxy_lock(): wait_lock held. 1 if `task` took the lock
// at once, 0 if its waiter is enqueued, <0 an error.
template <class Env>
int __rt_mutex_start_proxy_lock(rt_mutex_base<Env>* lock, rt_mutex_waiter<Env>* waiter, void* task)
{
    if (try_to_take_rt_mutex(lock, task, static_cast<rt_mutex_waiter<Env>*>(nullptr)))
        return 1;
    int ret = task_blocks_on_rt_mutex(lock, waiter, task);
    if (ret && !rt_mutex_owner(lock))
        ret = 0;  // the owner released it meanwhile: the waiter will take it
    return ret;
}

// rt_mutex_start_proxy_lock(): the same, taking wait_lock.
template <class Env>
int rt_mutex_start_proxy_lock(Env& env, rt_mutex_base<Env>* lock, rt_mutex_waiter<Env>* waiter, void* task)
{
    env.spin_lock(lock->wait_lock);
    const int ret = __rt_mutex_start_proxy_lock(lock, waiter, task);
    if (ret < 0)
        remove_waiter(lock, waiter);
    env.spin_unlock(lock->wait_lock);
    return ret;
}

// rt_mutex_slowlock_block(): wait_lock held, the state set; take the lock
// or sleep until woken and try again, until `timeout` (if any) has fired:
// -ETIMEDOUT. No signals here (the model's PI sleeps take none), and no
// spinning on a running owner (rtmutex_spin_on_owner(): it sleeps at once,
// which changes when it takes the lock, never whether).
template <class Env>
int rt_mutex_slowlock_block(Env& env, rt_mutex_base<Env>* lock, unsigned state, hrtimer_sleeper* timeout,
                            rt_mutex_waiter<Env>* waiter)
{
    int ret = 0;
    for (;;) {
        if (try_to_take_rt_mutex(lock, env.current_task(), waiter))
            break;
        if (timeout && !timeout->task) {
            ret = -ETIMEDOUT_;
            break;
        }
        env.spin_unlock(lock->wait_lock);
        env.schedule();  // rt_mutex_schedule()
        env.spin_lock(lock->wait_lock);
        env.set_current_state(state);
    }
    env.set_current_state(TASK_RUNNING);
    return ret;
}

// rt_mutex_wait_proxy_lock(): sleep until the proxy-enqueued waiter owns
// the lock, or `to` (if any) fires.
template <class Env>
int rt_mutex_wait_proxy_lock(Env& env, rt_mutex_base<Env>* lock, hrtimer_sleeper* to, rt_mutex_waiter<Env>* waiter)
{
    env.spin_lock(lock->wait_lock);
    env.set_current_state(TASK_INTERRUPTIBLE);
    const int ret = rt_mutex_slowlock_block(env, lock, TASK_INTERRUPTIBLE, to, waiter);
    fixup_rt_mutex_waiters(lock, true);
    env.spin_unlock(lock->wait_lock);
    return ret;
}

// rt_mutex_cleanup_proxy_lock(): after a failed wait, take the lock if it
// came meanwhile, else remove the waiter. True if the waiter was removed.
template <class Env>
bool rt_mutex_cleanup_proxy_lock(Env& env, rt_mutex_base<Env>* lock, rt_mutex_waiter<Env>* waiter)
{
    bool cleanup = false;
    env.spin_lock(lock->wait_lock);
    try_to_take_rt_mutex(lock, env.current_task(), waiter);
    if (rt_mutex_owner(lock) != env.current_task()) {
        remove_waiter(lock, waiter);
        cleanup = true;
    }
    fixup_rt_mutex_waiters(lock, false);
    env.spin_unlock(lock->wait_lock);
    return cleanup;
}

}  // namespace futexsim::model
