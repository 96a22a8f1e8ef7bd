// kernel/futex/requeue.c (Linux v6.17): FUTEX_REQUEUE and FUTEX_CMP_REQUEUE
// on process-private futexes and on shared ones on anonymous memory.
//
// Left out: every PI path. FUTEX_WAIT_REQUEUE_PI / FUTEX_CMP_REQUEUE_PI
// (futex_wait_requeue_pi(), futex_proxy_trylock_atomic(),
// requeue_pi_wake_futex(), the futex_requeue_pi_*() requeue_state machine
// and handle_early_requeue_pi_wakeup()) need pi_state and rt_mutex, which
// the model does not have. Note that in v6.17 those are where requeue takes
// an extra hash reference (requeue_pi_wake_futex()'s futex_hash_get() with
// q->drop_hb_ref, dropped by the woken waiter); the plain requeue below
// takes none for the waiters it moves.
//
// double_lock_hb() and double_unlock_hb() (futex.h) live in
// model/waitwake.h, because futex_wake_op() uses them too.
#pragma once

#include <cstdint>

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

// futex_requeue(), requeue_pi == 0: wake up to nr_wake waiters on uaddr1
// and move up to nr_requeue more to uaddr2. With cmpval (FUTEX_CMP_REQUEUE),
// first check under both bucket locks that *uaddr1 still holds *cmpval,
// else -EAGAIN. Returns the number woken plus the number moved.
template <class Env>
int futex_requeue(mm_struct<Env>* mm, std::uint64_t uaddr1, unsigned int flags1, std::uint64_t uaddr2,
                  unsigned int flags2, int nr_wake, int nr_requeue, const std::uint32_t* cmpval)
{
    Env& env = *mm->env;
    futex_key key1;
    futex_key key2;
    int task_count = 0;

    if (nr_wake < 0 || nr_requeue < 0)
        return -EINVAL_;

    int ret = get_futex_key(mm, uaddr1, flags1, &key1);
    if (ret)
        return ret;
    ret = get_futex_key(mm, uaddr2, flags2, &key2);
    if (ret)
        return ret;

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

        if (!ret) {
            for (auto it = hb1->chain.begin(); it != hb1->chain.end();) {
                futex_q<Env>* q = *it++;
                if (task_count - nr_wake >= nr_requeue)
                    break;
                if (!futex_match(q->key, key1))
                    continue;
                // Plain futexes just wake or requeue and are done.
                if (++task_count <= nr_wake)
                    futex_wake_mark(env, q);
                else
                    requeue_futex(env, q, hb1, hb2, key2);
            }
        }

        // out_unlock:
        futex_hb_waiters_dec(env, hb2);
        double_unlock_hb(env, hb1, hb2);
        break;  // the references go here: hb2's, then hb1's
    }
    return ret ? ret : task_count;
}

}  // namespace futexsim::model
