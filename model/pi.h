// kernel/futex/pi.c (Linux 7.2.13): PI futexes, FUTEX_LOCK_PI,
// FUTEX_TRYLOCK_PI and FUTEX_UNLOCK_PI, on process-private futexes and on
// shared ones on anonymous memory; plus the helpers of core.c only the PI
// paths use (futex_top_waiter(), futex_q_lockptr_lock(),
// futex_unqueue_pi()). The rt_mutex below is model/rtmutex.h.
//
// The futex word holds the owner's TID | FUTEX_WAITERS (| FUTEX_OWNER_DIED).
// Where the hash references are (docs/kernel-map.md, "PI futexes"):
// futex_lock_pi() takes one for its bucket (CLASS(hbr)) and drops it once
// it is queued, still holding the bucket lock, before it sleeps on the
// rt_mutex; __futex_unlock_pi() holds one over its whole run and, for a
// waiter it finds leaving, takes an extra one on the waiter's behalf
// (`drop_fph`), which the waiter drops on its way out.
//
// Left out (docs/kernel-map.md): exiting owners and robust lists (no task
// exits while it owns a PI futex here, so FUTEX_OWNER_DIED is never set,
// attach_to_pi_owner() never sees a task in FUTEX_STATE_EXITING and
// wait_for_owner_exiting() has nothing to wait for), each task's
// pi_state_list and pi_lock, the pi_state cache (a pi_state is allocated
// when needed), signals on the PI sleeps, futex_lock_pi()'s timeout (only
// FUTEX_WAIT_REQUEUE_PI takes one here, as in the selftest that runs it),
// and faults (user memory here never faults).
#pragma once

#include <concepts>
#include <cstdint>

#include "model/core.h"
#include "model/hrtimer.h"
#include "model/waitwake.h"

namespace futexsim::model {

// include/uapi/linux/futex.h
inline constexpr std::uint32_t FUTEX_WAITERS = 0x80000000;
inline constexpr std::uint32_t FUTEX_OWNER_DIED = 0x40000000;
inline constexpr std::uint32_t FUTEX_TID_MASK = 0x3fffffff;

// What the PI paths need of the environment on top of futex_wait_env:
// - futex_cmpxchg_value_locked(&curval, uaddr, uval, newval): 0 or -EFAULT_;
// - wake_up_state(task, state): try_to_wake_up(), true if it woke the task;
// - schedule(): sleep in the state the caller set, unless a wake has made
//   the task TASK_RUNNING since (the rt_mutex's sleep);
// - task_pid_vnr(task) and find_get_task_by_vpid(pid): the TID in the word;
// - kzalloc<T>(): the allocation kvfree() frees (a pi_state);
// - hrtimer_sleeper_start_expires(sl) / hrtimer_cancel(sl): arm a sleeper
//   for the current task at sl->expires on the environment's clock, or
//   disarm it (model/hrtimer.h).
template <class E>
concept futex_pi_env = futex_wait_env<E> &&
    requires(E& env, std::uint32_t* cur, std::uint64_t uaddr, std::uint32_t v, void* task, int pid,
             hrtimer_sleeper* sl) {
        { env.futex_cmpxchg_value_locked(cur, uaddr, v, v) } -> std::same_as<int>;
        { env.wake_up_state(task, TASK_NORMAL) } -> std::same_as<bool>;
        env.schedule();
        { env.task_pid_vnr(task) } -> std::convertible_to<int>;
        { env.find_get_task_by_vpid(pid) } -> std::convertible_to<void*>;
        env.hrtimer_sleeper_start_expires(sl);
        env.hrtimer_cancel(sl);
    };

// futex_setup_timer() (core.c): the sleeper for an absolute timeout on the
// environment's clock (the kernel's CLOCK_MONOTONIC abs_time), or nullptr
// without one.
inline hrtimer_sleeper* futex_setup_timer(const long* time, hrtimer_sleeper* timeout)
{
    if (!time)
        return nullptr;
    timeout->expires = *time;  // hrtimer_set_expires_range_ns(), range 0
    timeout->task = nullptr;
    return timeout;
}

// futex_top_waiter() (core.c): the first waiter on `key` in hb.
template <class Env>
futex_q<Env>* futex_top_waiter(futex_hash_bucket<Env>* hb, const futex_key& key)
{
    for (futex_q<Env>* q : hb->chain)
        if (futex_match(q->key, key))
            return q;
    return nullptr;
}

// futex_q_lockptr_lock() (core.c): lock q's bucket, which a requeue or a
// pivot's rehash may move under us.
template <class Env>
void futex_q_lockptr_lock(Env& env, futex_q<Env>* q)
{
    rcu_guard<Env> rcu(env);
    for (;;) {
        typename Env::spinlock_t* lock_ptr = q->lock_ptr;  // READ_ONCE()
        env.spin_lock(*lock_ptr);
        if (lock_ptr == q->lock_ptr)
            return;
        env.spin_unlock(*lock_ptr);
    }
}

// alloc_pi_state() with refill_pi_state_cache(): a pi_state with one
// reference (the kernel takes it from the task's one-entry cache).
template <class Env>
futex_pi_state<Env>* alloc_pi_state(Env& env)
{
    auto* pi_state = env.template kzalloc<futex_pi_state<Env>>();
    env.atomic_set(pi_state->refcount, 1L);
    return pi_state;
}

// pi_state_update_owner(): wait_lock held. (The owners' pi_state_lists are
// not modelled.)
template <class Env>
void pi_state_update_owner(futex_pi_state<Env>* pi_state, void* new_owner)
{
    pi_state->owner = new_owner;
}

// get_pi_state()
template <class Env>
void get_pi_state(Env& env, futex_pi_state<Env>* pi_state)
{
    WARN_ON_ONCE(env, env.atomic_add_return(pi_state->refcount, 1L) <= 1, "get_pi_state: refcount was zero");
}

// put_pi_state(): the last reference frees it, releasing the rt_mutex of
// an owner that still holds it.
template <class Env>
void put_pi_state(Env& env, futex_pi_state<Env>* pi_state)
{
    if (!pi_state)
        return;
    if (!env.atomic_dec_and_test(pi_state->refcount))
        return;
    if (pi_state->owner) {
        env.spin_lock(pi_state->pi_mutex.wait_lock);
        pi_state_update_owner(pi_state, nullptr);
        rt_mutex_proxy_unlock(&pi_state->pi_mutex);
        env.spin_unlock(pi_state->pi_mutex.wait_lock);
    }
    env.kvfree(pi_state);
}

// futex_unqueue_pi() (core.c): q's bucket lock held. An unlocker may have
// unqueued it already (a leaving waiter), hence the check.
template <class Env>
void futex_unqueue_pi(Env& env, futex_q<Env>* q)
{
    if (q->hb)  // !plist_node_empty(&q->list)
        __futex_unqueue(env, q);
    WARN_ON_ONCE(env, !q->pi_state, "futex_unqueue_pi: no pi_state");  // BUG_ON
    put_pi_state(env, q->pi_state);
    q->pi_state = nullptr;
}

// attach_to_pi_state(): a waiter exists; check its pi_state against the
// word (under wait_lock) and take a reference on it.
template <class Env>
int attach_to_pi_state(Env& env, std::uint64_t uaddr, std::uint32_t uval, futex_pi_state<Env>* pi_state,
                       futex_pi_state<Env>** ps)
{
    const int pid = static_cast<int>(uval & FUTEX_TID_MASK);
    if (!pi_state)  // user space mixed PI and non-PI [3]
        return -EINVAL_;
    env.spin_lock(pi_state->pi_mutex.wait_lock);
    // The checks in the kernel's order; 0 is out_attach.
    auto check = [&]() -> int {
        std::uint32_t uval2 = 0;
        if (futex_get_value_locked(env, &uval2, uaddr))
            return -EFAULT_;
        if (uval != uval2)
            return -EAGAIN_;
        if (uval & FUTEX_OWNER_DIED) {
            if (!pi_state->owner)
                return pid ? -EINVAL_ : 0;  // [5], [4]
            if (!pid)
                return 0;  // [6]
        } else if (!pi_state->owner) {
            return -EINVAL_;  // [7]
        }
        if (pid != env.task_pid_vnr(pi_state->owner))
            return -EINVAL_;  // [9/10]
        return 0;
    };
    const int ret = check();
    if (!ret) {
        get_pi_state(env, pi_state);
        *ps = pi_state;
    }
    env.spin_unlock(pi_state->pi_mutex.wait_lock);
    return ret;
}

// handle_exit_race(): the owner TID names no task. No task exits here, so
// only a bogus TID gets here: -ESRCH unless the word changed.
template <class Env>
int handle_exit_race(Env& env, std::uint64_t uaddr, std::uint32_t uval)
{
    std::uint32_t uval2 = 0;
    if (futex_get_value_locked(env, &uval2, uaddr))
        return -EFAULT_;
    if (uval2 != uval)
        return -EAGAIN_;
    return -ESRCH_;
}

// __attach_to_pi_owner(): the first waiter makes the pi_state, its rt_mutex
// owned by `p`.
template <class Env>
void __attach_to_pi_owner(Env& env, void* p, const futex_key& key, futex_pi_state<Env>** ps)
{
    futex_pi_state<Env>* pi_state = alloc_pi_state(env);
    rt_mutex_init_proxy_locked(&pi_state->pi_mutex, p);
    pi_state->key = key;
    pi_state->owner = p;
    *ps = pi_state;
}

// attach_to_pi_owner(): the first waiter, with the owner's TID in the word.
template <class Env>
int attach_to_pi_owner(Env& env, std::uint64_t uaddr, std::uint32_t uval, const futex_key& key,
                       futex_pi_state<Env>** ps)
{
    const int pid = static_cast<int>(uval & FUTEX_TID_MASK);
    if (!pid)
        return -EAGAIN_;
    void* p = env.find_get_task_by_vpid(pid);
    if (!p)
        return handle_exit_race(env, uaddr, uval);
    __attach_to_pi_owner(env, p, key, ps);
    return 0;
}

// lock_pi_update_atomic(): cmpxchg the word; -EAGAIN_ if it changed.
template <class Env>
int lock_pi_update_atomic(Env& env, std::uint64_t uaddr, std::uint32_t uval, std::uint32_t newval)
{
    std::uint32_t curval = 0;
    const int err = env.futex_cmpxchg_value_locked(&curval, uaddr, uval, newval);
    if (err)
        return err;
    return curval != uval ? -EAGAIN_ : 0;
}

// futex_lock_pi_atomic(): hb locked. 1: `task` took the lock; 0: attached
// to a pi_state, ready to wait; <0: an error.
template <class Env>
int futex_lock_pi_atomic(Env& env, std::uint64_t uaddr, futex_hash_bucket<Env>* hb, const futex_key& key,
                         futex_pi_state<Env>** ps, void* task, int set_waiters)
{
    const std::uint32_t vpid = static_cast<std::uint32_t>(env.task_pid_vnr(task));
    std::uint32_t uval = 0;
    if (futex_get_value_locked(env, &uval, uaddr))
        return -EFAULT_;
    if ((uval & FUTEX_TID_MASK) == vpid)
        return -EDEADLK_;

    if (futex_q<Env>* top_waiter = futex_top_waiter(hb, key))
        return attach_to_pi_state(env, uaddr, uval, top_waiter->pi_state, ps);

    if (!(uval & FUTEX_TID_MASK)) {
        std::uint32_t newval = (uval & FUTEX_OWNER_DIED) | vpid;
        if (set_waiters)
            newval |= FUTEX_WAITERS;
        const int ret = lock_pi_update_atomic(env, uaddr, uval, newval);
        if (ret)
            return ret;
        if (set_waiters)
            __attach_to_pi_owner(env, task, key, ps);
        return 1;
    }

    const std::uint32_t newval = uval | FUTEX_WAITERS;
    const int ret = lock_pi_update_atomic(env, uaddr, uval, newval);
    if (ret)
        return ret;
    return attach_to_pi_owner(env, uaddr, newval, key, ps);
}

// wake_futex_pi(): wait_lock held (and dropped here): hand the lock to the
// top rt_mutex waiter, TID | FUTEX_WAITERS in the word.
template <class Env>
int wake_futex_pi(Env& env, std::uint64_t uaddr, std::uint32_t uval, futex_pi_state<Env>* pi_state,
                  rt_mutex_waiter<Env>* top_waiter)
{
    void* new_owner = top_waiter->task;
    const std::uint32_t newval = FUTEX_WAITERS | static_cast<std::uint32_t>(env.task_pid_vnr(new_owner));
    std::uint32_t curval = 0;
    bool postunlock = false;
    rt_wake_q_head wqh;
    int ret = env.futex_cmpxchg_value_locked(&curval, uaddr, uval, newval);
    if (!ret && curval != uval)
        ret = (FUTEX_TID_MASK & curval) == uval ? -EAGAIN_ : -EINVAL_;
    if (!ret) {
        pi_state_update_owner(pi_state, new_owner);
        postunlock = __rt_mutex_futex_unlock(&pi_state->pi_mutex, &wqh);
    }
    env.spin_unlock(pi_state->pi_mutex.wait_lock);
    if (postunlock)
        rt_mutex_postunlock(env, &wqh);
    return ret;
}

// __fixup_pi_state_owner(): q's bucket lock and wait_lock held. Make the
// word and pi_state->owner name the rt_mutex's owner: current when
// `argowner` is current (we took it), the thief otherwise. No faults here,
// so the retry path is only -EAGAIN_ (a waiter not yet the owner).
template <class Env>
int __fixup_pi_state_owner(Env& env, std::uint64_t uaddr, futex_q<Env>* q, void* argowner)
{
    futex_pi_state<Env>* pi_state = q->pi_state;
    void* const oldowner = pi_state->owner;
    void* const current = env.current_task();
    for (;;) {  // retry:
        void* newowner = nullptr;
        if (!argowner) {
            if (oldowner != current)
                return 0;
            if (__rt_mutex_futex_trylock(env, &pi_state->pi_mutex))
                return 1;
            newowner = rt_mutex_owner(&pi_state->pi_mutex);
            if (!newowner) {
                // handle_err: -EAGAIN: drop both locks, let the waiter run.
                env.spin_unlock(pi_state->pi_mutex.wait_lock);
                env.spin_unlock(*q->lock_ptr);
                futex_q_lockptr_lock(env, q);
                env.spin_lock(pi_state->pi_mutex.wait_lock);
                if (pi_state->owner != oldowner)
                    return argowner == current;
                continue;
            }
        } else {
            WARN_ON_ONCE(env, argowner != current, "__fixup_pi_state_owner: argowner is not current");
            if (oldowner == current)
                return 1;
            newowner = argowner;
        }

        std::uint32_t newtid = static_cast<std::uint32_t>(env.task_pid_vnr(newowner)) | FUTEX_WAITERS;
        if (!pi_state->owner)
            newtid |= FUTEX_OWNER_DIED;
        std::uint32_t uval = 0;
        if (futex_get_value_locked(env, &uval, uaddr))
            return -EFAULT_;
        for (;;) {
            const std::uint32_t newval = (uval & FUTEX_OWNER_DIED) | newtid;
            std::uint32_t curval = 0;
            if (env.futex_cmpxchg_value_locked(&curval, uaddr, uval, newval))
                return -EFAULT_;
            if (curval == uval)
                break;
            uval = curval;
        }
        pi_state_update_owner(pi_state, newowner);
        return argowner == current;
    }
}

// fixup_pi_state_owner(): q's bucket lock held.
template <class Env>
int fixup_pi_state_owner(Env& env, std::uint64_t uaddr, futex_q<Env>* q, void* argowner)
{
    futex_pi_state<Env>* pi_state = q->pi_state;
    env.spin_lock(pi_state->pi_mutex.wait_lock);
    const int ret = __fixup_pi_state_owner(env, uaddr, q, argowner);
    env.spin_unlock(pi_state->pi_mutex.wait_lock);
    return ret;
}

// fixup_pi_owner(): after trying for the rt_mutex (`locked`), make the
// pi_state and the word agree with who owns it. 1 lock taken, 0 not, <0 error.
template <class Env>
int fixup_pi_owner(Env& env, std::uint64_t uaddr, futex_q<Env>* q, int locked)
{
    void* const current = env.current_task();
    if (locked) {
        if (q->pi_state->owner != current)
            return fixup_pi_state_owner(env, uaddr, q, current);
        return 1;
    }
    if (q->pi_state->owner == current)
        return fixup_pi_state_owner(env, uaddr, q, nullptr);
    if (WARN_ON_ONCE(env, rt_mutex_owner(&q->pi_state->pi_mutex) == current,
                     "fixup_pi_owner: owner of the rt_mutex without the lock"))
        return fixup_pi_state_owner(env, uaddr, q, current);
    return 0;
}

// futex_lock_pi(): FUTEX_LOCK_PI (trylock 0) and FUTEX_TRYLOCK_PI (1),
// without a timeout. 0 with the lock held, else an error.
template <class Env>
int futex_lock_pi(mm_struct<Env>* mm, std::uint64_t uaddr, unsigned int flags, int trylock)
{
    Env& env = *mm->env;
    futex_q<Env> q;  // futex_q_init
    rt_mutex_waiter<Env> rt_waiter;
    int ret = get_futex_key(mm, uaddr, flags, &q.key);
    if (ret)
        return ret;

    for (;;) {  // retry / retry_private
        hb_ref<Env> hbr(mm, q.key);  // CLASS(hbr, hbr)(&q.key)
        futex_hash_bucket<Env>* hb = hbr.hb;
        futex_q_lock(env, &q, hb);

        ret = futex_lock_pi_atomic(env, uaddr, hb, q.key, &q.pi_state, env.current_task(), 0);
        if (ret) {
            if (ret == -EAGAIN_) {  // the word changed: retry (cond_resched())
                futex_q_unlock(env, hb);
                continue;
            }
            if (ret == 1)  // we got the lock
                ret = 0;
            futex_q_unlock(env, hb);  // out_unlock_put_key:
            return ret;
        }

        WARN_ON_ONCE(env, !q.pi_state, "futex_lock_pi: no pi_state");
        __futex_queue(&q, hb, env.current_task());

        int res = 0;
        if (trylock) {
            ret = rt_mutex_futex_trylock(env, &q.pi_state->pi_mutex) ? 0 : -EWOULDBLOCK_;
        } else {
            // futex_private_hash_put(no_free_ptr(hbr.fph)): the reference
            // goes while hb->lock is still held.
            hbr.put_now();
            env.spin_lock(q.pi_state->pi_mutex.wait_lock);
            env.spin_unlock(*q.lock_ptr);
            ret = __rt_mutex_start_proxy_lock(&q.pi_state->pi_mutex, &rt_waiter, env.current_task());
            env.spin_unlock(q.pi_state->pi_mutex.wait_lock);  // raw_spin_unlock_irq_wake()
            if (ret) {
                if (ret == 1)
                    ret = 0;
            } else {
                ret = rt_mutex_wait_proxy_lock(env, &q.pi_state->pi_mutex, nullptr, &rt_waiter);
            }
            // cleanup:
            if (ret && !rt_mutex_cleanup_proxy_lock(env, &q.pi_state->pi_mutex, &rt_waiter))
                ret = 0;
            futex_q_lockptr_lock(env, &q);
        }
        // no_block:
        res = fixup_pi_owner(env, uaddr, &q, !ret);
        if (res)
            ret = res < 0 ? res : 0;
        futex_unqueue_pi(env, &q);
        env.spin_unlock(*q.lock_ptr);
        if (q.drop_fph)  // the additional reference from futex_unlock_pi()
            futex_private_hash_put(q.drop_fph);
        return ret;
    }
}

// __futex_unlock_pi(): FUTEX_UNLOCK_PI, the word's TID being ours: hand the
// lock to the top waiter, or clear the word when nobody waits.
template <class Env>
int __futex_unlock_pi(mm_struct<Env>* mm, std::uint64_t uaddr, unsigned int flags)
{
    Env& env = *mm->env;
    const std::uint32_t vpid = static_cast<std::uint32_t>(env.task_pid_vnr(env.current_task()));
    for (;;) {  // retry: (pi_retry)
        std::uint32_t uval = 0;
        if (env.futex_get_value(uaddr, &uval))  // get_user()
            return -EFAULT_;
        if ((uval & FUTEX_TID_MASK) != vpid)
            return -EPERM_;
        futex_key key;
        int ret = get_futex_key(mm, uaddr, flags, &key);
        if (ret)
            return ret;

        hb_ref<Env> hbr(mm, key);  // CLASS(hbr, hbr)(&key)
        futex_hash_bucket<Env>* hb = hbr.hb;
        env.spin_lock(hb->lock);
        bool pi_retry = false;
        for (;;) {  // retry_hb:
            futex_q<Env>* top_waiter = futex_top_waiter(hb, key);
            if (!top_waiter)
                break;
            futex_pi_state<Env>* pi_state = top_waiter->pi_state;
            if (!pi_state || pi_state->owner != env.current_task()) {
                env.spin_unlock(hb->lock);  // out_unlock:
                return -EINVAL_;
            }
            env.spin_lock(pi_state->pi_mutex.wait_lock);
            rt_mutex_waiter<Env>* rt_waiter = rt_mutex_top_waiter(&pi_state->pi_mutex);
            if (!rt_waiter) {
                // A waiter on its way out: a reference for it, so that its
                // lock_ptr stays valid, and off the list.
                if (futex_key_is_private(key))
                    top_waiter->drop_fph = futex_private_hash(mm);
                __futex_unqueue(env, top_waiter);
                env.spin_unlock(pi_state->pi_mutex.wait_lock);
                continue;
            }
            get_pi_state(env, pi_state);
            env.spin_unlock(hb->lock);
            ret = wake_futex_pi(env, uaddr, uval, pi_state, rt_waiter);  // drops wait_lock
            put_pi_state(env, pi_state);
            if (ret != -EAGAIN_)
                return ret;
            pi_retry = true;  // goto pi_retry: hbr's reference goes first
            break;
        }
        if (pi_retry)
            continue;

        // No kernel state: clear the word (waiters still on hb->lock will see 0).
        std::uint32_t curval = 0;
        ret = env.futex_cmpxchg_value_locked(&curval, uaddr, uval, 0);
        env.spin_unlock(hb->lock);
        if (ret)
            return ret;
        return curval == uval ? 0 : -EAGAIN_;
    }
}

// futex_unlock_pi() (no FLAGS_ROBUST_UNLOCK here).
template <class Env>
int futex_unlock_pi(mm_struct<Env>* mm, std::uint64_t uaddr, unsigned int flags)
{
    return __futex_unlock_pi(mm, uaddr, flags);
}

}  // namespace futexsim::model
