// kernel/futex/requeue.c (Linux v6.17; the requeue-PI parts as Linux
// 7.2.13 has them): FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_CMP_REQUEUE_PI
// and FUTEX_WAIT_REQUEUE_PI on process-private futexes and on shared ones
// on anonymous memory.
//
// Where the hash references are: futex_requeue() holds one per bucket over
// its run; a plain requeue takes none for the waiters it moves (a queued
// waiter holds none). requeue_pi_wake_futex(), which hands a waiter the PI
// lock it was requeued to, takes one on the waiter's behalf
// (`q->drop_fph = futex_private_hash(mm)`), which the waiter drops at the
// end of futex_wait_requeue_pi(); a requeued waiter that sleeps on the
// rt_mutex holds none.
//
// The PI parts need an environment with task states and PI
// (model/pi.h's futex_pi_env); on any other, FUTEX_CMP_REQUEUE_PI returns
// -ENOSYS_ (the kernel's !CONFIG_FUTEX_PI). futex_wait_requeue_pi() takes
// a timeout (an hrtimer_sleeper, model/hrtimer.h, armed in futex_do_wait()
// and checked in handle_early_requeue_pi_wakeup() and on the rt_mutex);
// signals are left out (the model's PI sleeps take none).
//
// double_lock_hb() and double_unlock_hb() (futex.h) live in
// model/waitwake.h, because futex_wake_op() uses them too.
#pragma once

#include <cstdint>

#include "model/pi.h"
#include "model/waitwake.h"

namespace futexsim::model {

// requeue_futex(): move q from hb1 to hb2 and make it a waiter on key2.
// Both buckets are locked.
template <class Env>
void requeue_futex(Env& env, futex_q<Env>* q, futex_hash_bucket<Env>* hb1,
                   futex_hash_bucket<Env>* hb2, const futex_key& key2)
{
    // Two keys hashing to one bucket: nothing to move.
    if (hb1 != hb2) {
        hb1->chain.remove(q);  // plist_del()
        futex_hb_waiters_dec(env, hb1);
        futex_hb_waiters_inc(env, hb2);
        plist_add(q, hb2);
        q->lock_ptr = &hb2->lock;
        // No futex_hash_put(hb1) + futex_hash_get(hb2): the caller's
        // reference on hb1's hash keeps it from being replaced, so hb2
        // belongs to the same hash, and a queued waiter holds no reference.
    }
    q->key = key2;
}

// The requeue-PI hand-shake between futex_requeue() and the waiter in
// futex_wait_requeue_pi() (q->requeue_state).
inline constexpr int Q_REQUEUE_PI_NONE = 0;
inline constexpr int Q_REQUEUE_PI_IGNORE = 1;
inline constexpr int Q_REQUEUE_PI_IN_PROGRESS = 2;
inline constexpr int Q_REQUEUE_PI_WAIT = 3;
inline constexpr int Q_REQUEUE_PI_DONE = 4;
inline constexpr int Q_REQUEUE_PI_LOCKED = 5;

// smp_load_acquire(&q->requeue_state), as each of the three below reads it
// first (a plain load in the mutant plain-requeue-state, model/mutation.h).
template <class Env>
int requeue_state_acquire(Env& env, futex_q<Env>* q)
{
    if (mutated(mutation::plain_requeue_state))  // mutation point
        return env.atomic_read(q->requeue_state);
    return env.smp_load_acquire(q->requeue_state);
}

// futex_requeue_pi_prepare(): false if the waiter already woke (IGNORE).
template <class Env>
bool futex_requeue_pi_prepare(Env& env, futex_q<Env>* q, futex_pi_state<Env>* pi_state)
{
    int old = requeue_state_acquire(env, q);
    for (;;) {
        if (old == Q_REQUEUE_PI_IGNORE)
            return false;
        // Either NONE or IN_PROGRESS/WAIT from a failed proxy lock attempt
        // of an earlier requeue: go on.
        if (old != Q_REQUEUE_PI_NONE)
            break;
        if (env.atomic_try_cmpxchg(q->requeue_state, old, Q_REQUEUE_PI_IN_PROGRESS))
            break;
    }
    q->pi_state = pi_state;
    return true;
}

// futex_requeue_pi_complete(): locked 1 (LOCKED), 0 (DONE, requeued), <0
// (back to NONE, or IGNORE if the waiter is waiting for the outcome).
template <class Env>
void futex_requeue_pi_complete(Env& env, futex_q<Env>* q, int locked)
{
    int old = requeue_state_acquire(env, q);
    for (;;) {
        if (old == Q_REQUEUE_PI_IGNORE)
            return;
        int new_ = 0;
        if (locked >= 0) {
            WARN_ON_ONCE(env, old != Q_REQUEUE_PI_IN_PROGRESS && old != Q_REQUEUE_PI_WAIT,
                         "futex_requeue_pi_complete: not in progress");
            new_ = Q_REQUEUE_PI_DONE + locked;
        } else if (old == Q_REQUEUE_PI_IN_PROGRESS) {
            new_ = Q_REQUEUE_PI_NONE;
        } else {
            WARN_ON_ONCE(env, old != Q_REQUEUE_PI_WAIT, "futex_requeue_pi_complete: not waiting");
            new_ = Q_REQUEUE_PI_IGNORE;
        }
        if (env.atomic_try_cmpxchg(q->requeue_state, old, new_))
            return;
    }
}

// futex_requeue_pi_wakeup_sync(): the waiter woke; wait out a requeue in
// progress (a spin on !PREEMPT_RT) and return where it stands.
template <class Env>
int futex_requeue_pi_wakeup_sync(Env& env, futex_q<Env>* q)
{
    int old = requeue_state_acquire(env, q);
    for (;;) {
        if (old >= Q_REQUEUE_PI_DONE)
            return old;
        const int new_ = old == Q_REQUEUE_PI_NONE ? Q_REQUEUE_PI_IGNORE : Q_REQUEUE_PI_WAIT;
        if (env.atomic_try_cmpxchg(q->requeue_state, old, new_))
            break;
    }
    if (old == Q_REQUEUE_PI_IN_PROGRESS)  // atomic_cond_read_relaxed(VAL != WAIT)
        while (env.atomic_read(q->requeue_state) == Q_REQUEUE_PI_WAIT)
            ;
    return env.atomic_read(q->requeue_state);
}

// requeue_pi_wake_futex(): the waiter took the PI lock atomically: unqueue
// it, give it a hash reference for its lock_ptr, tell it, wake it.
template <class Env>
void requeue_pi_wake_futex(mm_struct<Env>* mm, futex_q<Env>* q, const futex_key& key, futex_hash_bucket<Env>* hb)
{
    Env& env = *mm->env;
    q->key = key;
    __futex_unqueue(env, q);
    WARN_ON_ONCE(env, !q->rt_waiter, "requeue_pi_wake_futex: no rt_waiter");
    q->rt_waiter = nullptr;
    if (futex_key_is_private(key))
        q->drop_fph = futex_private_hash(mm);
    q->lock_ptr = &hb->lock;
    void* task = q->task;  // READ_ONCE()
    futex_requeue_pi_complete(env, q, 1);
    env.wake_up_state(task, TASK_NORMAL);
}

// futex_proxy_trylock_atomic(): try to take the PI futex for the top waiter
// on key1. 1 taken (and the waiter woken), 0 not, <0 error.
template <class Env>
int futex_proxy_trylock_atomic(mm_struct<Env>* mm, std::uint64_t pifutex, futex_hash_bucket<Env>* hb1,
                               futex_hash_bucket<Env>* hb2, const futex_key& key1, const futex_key& key2,
                               futex_pi_state<Env>** ps, int set_waiters)
{
    Env& env = *mm->env;
    std::uint32_t curval = 0;
    if (futex_get_value_locked(env, &curval, pifutex))
        return -EFAULT_;
    futex_q<Env>* top_waiter = futex_top_waiter(hb1, key1);
    if (!top_waiter)
        return 0;
    if (!top_waiter->rt_waiter || top_waiter->pi_state)
        return -EINVAL_;
    if (!futex_match(*top_waiter->requeue_pi_key, key2))
        return -EINVAL_;
    if (!futex_requeue_pi_prepare(env, top_waiter, static_cast<futex_pi_state<Env>*>(nullptr))) {
        hb1->chain.remove(top_waiter);  // plist_del(): the node is empty after
        top_waiter->hb = nullptr;
        futex_hb_waiters_dec(env, hb1);
        return -EAGAIN_;
    }
    const int ret = futex_lock_pi_atomic(env, pifutex, hb2, key2, ps, top_waiter->task, set_waiters);
    if (ret == 1)
        requeue_pi_wake_futex(mm, top_waiter, key2, hb2);
    else if (ret < 0)
        futex_requeue_pi_complete(env, top_waiter, ret);
    return ret;
}

// futex_requeue(): wake up to nr_wake waiters on uaddr1 and move up to
// nr_requeue more to uaddr2. With cmpval (FUTEX_CMP_REQUEUE), first check
// under both bucket locks that *uaddr1 still holds *cmpval, else -EAGAIN.
// With requeue_pi (FUTEX_CMP_REQUEUE_PI: nr_wake 1, uaddr2 a PI futex),
// the top waiter first tries to take uaddr2 atomically (and is woken
// holding it), the others are requeued onto its rt_mutex. Returns the
// number woken plus the number moved.
template <class Env>
int futex_requeue(mm_struct<Env>* mm, std::uint64_t uaddr1, unsigned int flags1, std::uint64_t uaddr2,
                  unsigned int flags2, int nr_wake, int nr_requeue, const std::uint32_t* cmpval,
                  int requeue_pi = 0)
{
    Env& env = *mm->env;
    futex_key key1;
    futex_key key2;
    int task_count = 0;
    futex_pi_state<Env>* pi_state = nullptr;

    if (nr_wake < 0 || nr_requeue < 0)
        return -EINVAL_;
    if (requeue_pi) {
        if constexpr (!futex_pi_env<Env>)
            return -ENOSYS_;  // !IS_ENABLED(CONFIG_FUTEX_PI)
        if (uaddr1 == uaddr2 || nr_wake != 1)
            return -EINVAL_;
    }

    int ret = get_futex_key(mm, uaddr1, flags1, &key1);
    if (ret)
        return ret;
    ret = get_futex_key(mm, uaddr2, flags2, &key2);
    if (ret)
        return ret;
    if (requeue_pi && futex_match(key1, key2))
        return -EINVAL_;

    policy_op_guard<Env> policy(mm, futex_op::requeue);  // policy hook: before the hash references
    for (;;) {  // retry_private
        hb_ref<Env> ref1(mm, key1);
        hb_ref<Env> ref2(mm, key2);
        futex_hash_bucket<Env>* hb1 = ref1.hb;
        futex_hash_bucket<Env>* hb2 = ref2.hb;

        // Waiters may be on their way into hb2: count them before locking.
        futex_hb_waiters_inc(env, hb2);
        double_lock_hb(env, hb1, hb2);

        if (cmpval) {
            std::uint32_t curval = 0;
            ret = futex_get_value_locked(env, &curval, uaddr1);
            if (ret) {
                futex_hb_waiters_dec(env, hb2);
                double_unlock_hb(env, hb1, hb2);
                ret = env.futex_get_value(uaddr1, &curval);  // get_user()
                if (ret)
                    return ret;
                continue;  // both references dropped, then taken again
            }
            if (curval != *cmpval)
                ret = -EAGAIN_;  // goto out_unlock
        }

        bool out_unlock = ret != 0;
        if constexpr (futex_pi_env<Env>) {
            if (!out_unlock && requeue_pi) {
                ret = futex_proxy_trylock_atomic(mm, uaddr2, hb1, hb2, key1, key2, &pi_state, nr_requeue);
                if (ret == 1) {
                    task_count++;  // the top waiter took the lock; the others are requeued to it
                    ret = 0;
                } else if (ret == -EAGAIN_) {
                    // The word changed under us (or the top waiter left):
                    // drop everything and retry (cond_resched()).
                    futex_hb_waiters_dec(env, hb2);
                    double_unlock_hb(env, hb1, hb2);
                    continue;
                } else if (ret) {
                    out_unlock = true;
                }
            }
        }

        if (!out_unlock) {
            for (auto it = hb1->chain.begin(); it != hb1->chain.end();) {
                futex_q<Env>* q = *it++;
                if (task_count - nr_wake >= nr_requeue)
                    break;
                if (!futex_match(q->key, key1))
                    continue;
                // Waiters of the wrong kind for this op: user space mixed them.
                if ((requeue_pi && !q->rt_waiter) || (!requeue_pi && q->rt_waiter) || q->pi_state) {
                    ret = -EINVAL_;
                    break;
                }
                // Plain futexes just wake or requeue and are done.
                if (!requeue_pi) {
                    if (++task_count <= nr_wake)
                        futex_wake_mark(env, q);
                    else
                        requeue_futex(env, q, hb1, hb2, key2);
                    continue;
                }
                if constexpr (futex_pi_env<Env>) {
                    if (!futex_match(*q->requeue_pi_key, key2)) {
                        ret = -EINVAL_;
                        break;
                    }
                    // Requeue nr_requeue waiters and possibly one more onto
                    // the pi_state the trylock made or found.
                    get_pi_state(env, pi_state);
                    if (!futex_requeue_pi_prepare(env, q, pi_state)) {
                        put_pi_state(env, pi_state);  // the waiter woke already
                        continue;
                    }
                    const int r = rt_mutex_start_proxy_lock(env, &pi_state->pi_mutex, q->rt_waiter, q->task);
                    if (r == 1) {
                        // The lock was released meanwhile: the waiter has it.
                        requeue_pi_wake_futex(mm, q, key2, hb2);
                        task_count++;
                    } else if (!r) {
                        requeue_futex(env, q, hb1, hb2, key2);  // to sleep on the rt_mutex
                        futex_requeue_pi_complete(env, q, 0);
                        task_count++;
                    } else {
                        q->pi_state = nullptr;  // rt_mutex_start_proxy_lock() failed (a deadlock)
                        put_pi_state(env, pi_state);
                        futex_requeue_pi_complete(env, q, r);
                        ret = r;
                        break;
                    }
                }
            }
            if constexpr (futex_pi_env<Env>) {
                // The reference the trylock took (futex_lock_pi_atomic()) or
                // found (attach_to_pi_state()).
                put_pi_state(env, pi_state);
            }
        }

        // out_unlock:
        futex_hb_waiters_dec(env, hb2);
        double_unlock_hb(env, hb1, hb2);
        break;  // the references go here: hb2's, then hb1's
    }
    return ret ? ret : task_count;
}

// handle_early_requeue_pi_wakeup(): the waiter woke before it was requeued
// (a timeout, a signal, a plain wake): take q off hb.
template <class Env>
int handle_early_requeue_pi_wakeup(Env& env, futex_hash_bucket<Env>* hb, futex_q<Env>* q,
                                   hrtimer_sleeper* timeout)
{
    WARN_ON_ONCE(env, &hb->lock != q->lock_ptr, "handle_early_requeue_pi_wakeup: q on another bucket");
    if (q->hb) {  // !plist_node_empty(&q->list)
        hb->chain.remove(q);
        q->hb = nullptr;
        futex_hb_waiters_dec(env, hb);
    }
    // Handle spurious wakeups gracefully (no signals here).
    int ret = -EWOULDBLOCK_;
    if (timeout && !timeout->task)
        ret = -ETIMEDOUT_;
    return ret;
}

// futex_wait_requeue_pi(): FUTEX_WAIT_REQUEUE_PI: wait on uaddr (a plain
// futex) to be requeued by FUTEX_CMP_REQUEUE_PI to uaddr2 (a PI futex) and
// return holding it, or -ETIMEDOUT once `abs_time` (on the environment's
// clock; none if nullptr) has passed. 0 with the lock held, else an error.
template <class Env>
    requires futex_pi_env<Env>
int futex_wait_requeue_pi(mm_struct<Env>* mm, std::uint64_t uaddr, unsigned int flags, std::uint32_t val,
                          const long* abs_time, unsigned bitset, std::uint64_t uaddr2)
{
    Env& env = *mm->env;
    hrtimer_sleeper timeout;
    rt_mutex_waiter<Env> rt_waiter;  // rt_mutex_init_waiter()
    futex_key key2;
    futex_q<Env> q;  // futex_q_init
    if (uaddr == uaddr2 || !bitset)
        return -EINVAL_;
    hrtimer_sleeper* to = futex_setup_timer(abs_time, &timeout);
    hrtimer_cancel_on_return<Env> out{env, to};
    int ret = get_futex_key(mm, uaddr2, flags, &key2);
    if (ret)
        return ret;
    q.bitset = bitset;
    q.rt_waiter = &rt_waiter;
    q.requeue_pi_key = &key2;

    // Queue and wait for wakeup, timeout or signal.
    ret = futex_wait_setup(mm, uaddr, val, flags, &q, &key2, env.current_task(), futex_op::wait_requeue_pi);
    if (ret)
        return ret;
    // Queue the futex_q, drop the hb lock, wait for wakeup.
    futex_do_wait(env, &q, to);

    switch (futex_requeue_pi_wakeup_sync(env, &q)) {
    case Q_REQUEUE_PI_IGNORE: {
        hb_ref<Env> hbr(mm, q.key);  // CLASS(hbr, hbr)(&q.key)
        env.spin_lock(hbr.hb->lock);
        ret = handle_early_requeue_pi_wakeup(env, hbr.hb, &q, to);
        env.spin_unlock(hbr.hb->lock);
        break;
    }
    case Q_REQUEUE_PI_LOCKED:
        // requeue_pi_wake_futex() gave us the lock (and a hash reference).
        if (q.pi_state && q.pi_state->owner != env.current_task()) {
            futex_q_lockptr_lock(env, &q);
            ret = fixup_pi_owner(env, uaddr2, &q, true);
            put_pi_state(env, q.pi_state);  // the reference requeue took for us
            env.spin_unlock(*q.lock_ptr);
            ret = ret < 0 ? ret : 0;
        }
        break;
    case Q_REQUEUE_PI_DONE: {
        // Requeued onto the rt_mutex: wait to own it.
        rt_mutex_base<Env>* pi_mutex = &q.pi_state->pi_mutex;
        ret = rt_mutex_wait_proxy_lock(env, pi_mutex, to, &rt_waiter);
        if (ret && !rt_mutex_cleanup_proxy_lock(env, pi_mutex, &rt_waiter))
            ret = 0;
        futex_q_lockptr_lock(env, &q);
        const int res = fixup_pi_owner(env, uaddr2, &q, !ret);
        if (res)
            ret = res < 0 ? res : 0;
        futex_unqueue_pi(env, &q);
        env.spin_unlock(*q.lock_ptr);
        break;
    }
    default:
        WARN_ON_ONCE(env, true, "futex_wait_requeue_pi: bad requeue_state");  // BUG()
    }
    if (q.drop_fph)
        futex_private_hash_put(q.drop_fph);
    return ret;
}

}  // namespace futexsim::model
