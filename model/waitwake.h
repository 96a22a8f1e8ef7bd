// The wake side of kernel/futex/waitwake.c (Linux v6.17) and the helpers of
// kernel/futex/futex.h and core.c it uses.
#pragma once

#include <climits>
#include <cstdint>

#include "model/core.h"

namespace futexsim::model {

inline constexpr int EFAULT_ = 14;
inline constexpr unsigned FUTEX_BITSET_MATCH_ANY = 0xffffffff;

// get_futex_key(), process-private case: (mm, page address, offset).
template <class Env>
int get_futex_key(mm_struct<Env>* mm, std::uint64_t uaddr, futex_key* key)
{
    key->offset = static_cast<std::uint32_t>(uaddr % 4096);
    if (uaddr % sizeof(std::uint32_t))
        return -EINVAL_;
    key->address = uaddr - key->offset;
    key->mm_id = mm->id;
    key->node = FUTEX_NO_NODE;
    return 0;
}

// futex_match()
inline bool futex_match(const futex_key& a, const futex_key& b)
{
    return a.address == b.address && a.offset == b.offset && a.mm_id == b.mm_id;
}

// futex_hb_waiters_pending(): the full barrier pairs with the waiter's
// increment before it checks the futex value.
template <class Env>
bool futex_hb_waiters_pending(Env& env, futex_hash_bucket<Env>* hb)
{
    env.smp_mb();  // pairs with the waiter's barrier in futex_hb_waiters_inc()
    return env.atomic_read(hb->waiters) != 0;
}

// __futex_unqueue()
template <class Env>
void __futex_unqueue(Env& env, futex_q<Env>* q)
{
    futex_hash_bucket<Env>* hb = q->hb;
    hb->chain.remove(q);
    q->hb = nullptr;
    env.atomic_dec(hb->waiters);  // futex_hb_waiters_dec()
}

// futex_wake_mark(): unqueue and let the waiter see it was woken.
template <class Env>
void futex_wake_mark(Env& env, futex_q<Env>* q)
{
    __futex_unqueue(env, q);
    q->lock_ptr = nullptr;  // smp_store_release(&q->lock_ptr, NULL)
    env.wake_up_task(q->task);
}

// futex_wake(): wake up to nr_wake waiters on uaddr. With nobody waiting it
// takes and drops a hash reference and touches no bucket lock.
template <class Env>
int futex_wake(mm_struct<Env>* mm, std::uint64_t uaddr, int nr_wake, unsigned bitset)
{
    Env& env = *mm->env;
    futex_key key;
    if (!bitset)
        return -EINVAL_;
    int ret = get_futex_key(mm, uaddr, &key);
    if (ret)
        return ret;

    futex_hash_bucket<Env>* hb = futex_hash(mm, key);  // CLASS(hb, hb)(&key)
    if (!futex_hb_waiters_pending(env, hb)) {
        futex_hash_put(hb);
        return ret;
    }

    env.spin_lock(hb->lock);
    for (auto it = hb->chain.begin(); it != hb->chain.end();) {
        futex_q<Env>* q = *it++;
        if (futex_match(q->key, key)) {
            if (!(q->bitset & bitset))
                continue;
            futex_wake_mark(env, q);
            if (++ret >= nr_wake)
                break;
        }
    }
    env.spin_unlock(hb->lock);
    futex_hash_put(hb);
    return ret;
}

}  // namespace futexsim::model
