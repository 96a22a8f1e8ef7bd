// kernel/futex/waitwake.c (Linux v6.17), private futexes, and the helpers
// of kernel/futex/futex.h and core.c the wait and wake paths use.
//
// Where the hash references are: every operation takes one per bucket it
// looks up (futex_hash(), the kernel's CLASS(hb)) and drops it when that
// scope ends, before it sleeps or returns. A task asleep in futex_wait()
// holds none: its futex_q sits in a bucket, and a pivot moves it
// (futex_rehash_private()).
//
// Differences of form:
// - Wakes happen at the point the kernel queues them (futex_wake_mark()
//   calls env.wake_up_task() under the bucket lock) rather than through a
//   wake_q after the unlock.
// - Only 32-bit, non-PI futexes, private or shared on anonymous memory:
//   `flags` carries FLAGS_SHARED only, there are no pi_state/rt_waiter
//   checks (nothing here can queue a PI waiter), and the FLAGS_SHARED
//   `goto retry` paths (which take the key again) are the `retry_private`
//   ones: an anonymous page's key does not change.
// - The timeout is relative (timeout_ns, < 0 for none) and armed by the
//   environment's futex_sleep(); the kernel's hrtimer is absolute.
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <utility>

#include "model/core.h"
#include "model/hrtimer.h"

namespace futexsim::model {

inline constexpr unsigned FUTEX_BITSET_MATCH_ANY = 0xffffffff;
// -ERESTART_RESTARTBLOCK: an interrupted wait with a timeout restarts
// through the restart block.
inline constexpr int ERESTART_RESTARTBLOCK_ = 516;

// get_futex_key(): (mm, page address, offset) for a private futex, and the
// same with FUT_OFF_MMSHARED in the offset for a shared one, since all user
// memory here is anonymous (the kernel's PageAnon case; its
// get_user_pages_fast() and page reference are not charged).
template <class Env>
int get_futex_key(mm_struct<Env>* mm, std::uint64_t uaddr, unsigned int flags, futex_key* key)
{
    key->offset = static_cast<std::uint32_t>(uaddr % 4096);
    if (uaddr % sizeof(std::uint32_t))
        return -EINVAL_;
    key->address = uaddr - key->offset;
    key->mm_id = mm->id;
    key->node = FUTEX_NO_NODE;
    if (flags & FLAGS_SHARED)
        key->offset |= FUT_OFF_MMSHARED;  // ref taken on mm
    return 0;
}

// futex_match()
inline bool futex_match(const futex_key& a, const futex_key& b)
{
    return a.address == b.address && a.offset == b.offset && a.mm_id == b.mm_id;
}

// CLASS(hb, name)(&key) (DEFINE_CLASS(hb, ...) in futex.h): futex_hash() on
// entering the scope, futex_hash_put() on leaving it, however it is left
// (noexcept(false), as model/cleanup.h's guards).
template <class Env>
struct hb_ref {
    futex_hash_bucket<Env>* const hb;
    hb_ref(mm_struct<Env>* mm, const futex_key& key) : hb(futex_hash(mm, key)) {}
    ~hb_ref() noexcept(false)
    {
        if (hb && !put_)
            futex_hash_put(hb);
    }
    // futex_private_hash_put(no_free_ptr(hbr.fph)): drop the reference now,
    // inside the scope (futex_lock_pi(), before it sleeps).
    void put_now()
    {
        put_ = true;
        futex_hash_put(hb);
    }
    hb_ref(const hb_ref&) = delete;
    hb_ref& operator=(const hb_ref&) = delete;

private:
    bool put_ = false;
};

// futex_hb_waiters_inc(): count a waiter before taking the bucket lock. Its
// smp_mb__after_atomic() is barrier (A), paired with the waker's barrier (B)
// in futex_hb_waiters_pending(); on x86 the locked increment is that
// barrier and smp_mb__after_atomic() only a compiler barrier.
//
// Why both (the ordering comment of waitwake.c in 7.2.13): a waker that
// finds no waiter skips the bucket lock, so each side writes, fences, then
// reads what the other wrote.
//
// CPU 0 (futex_wait)                     CPU 1 (futex_wake)
// futex_q_lock()
//   futex_hb_waiters_inc()
//     hb->waiters++;
//     smp_mb();  (A) <-----------.
//   spin_lock(&hb->lock);         |         *uaddr = newval;  (user space)
//                                 |         futex_wake()
// futex_get_value_locked()        |           futex_hb_waiters_pending()
//   uval = *uaddr;                `------->     smp_mb();  (B)
//                                               if (!hb->waiters)
// if (uval == val)                                return 0;  (no lock taken)
//   futex_queue(); schedule();                spin_lock(&hb->lock); wake ...
//
// With waiters and *uaddr both 0 before, (A) and (B) forbid the outcome in
// which CPU 0 reads the old value and CPU 1 reads waiters == 0: the waiter
// either sees newval and returns -EWOULDBLOCK, or the waker sees it counted
// and takes the lock, behind which the waiter queues itself. Drop either
// barrier and, on a machine whose stores wait in a store buffer, the waiter
// may sleep with its wake-up gone. The explorer shows it: under
// `--memory tso` without (B), and under `--memory arm64` without (A) or (B),
// a post (case op V) is lost (docs/findings.md, the barrier mutants).
template <class Env>
void futex_hb_waiters_inc(Env& env, futex_hash_bucket<Env>* hb)
{
    env.atomic_inc(hb->waiters);
    if (!mutated(mutation::no_barrier_a))  // mutation point (model/mutation.h)
        env.smp_mb__after_atomic();        // barrier (A)
}

// futex_hb_waiters_dec()
template <class Env>
void futex_hb_waiters_dec(Env& env, futex_hash_bucket<Env>* hb)
{
    env.atomic_dec(hb->waiters);
}

// futex_hb_waiters_pending(): the full barrier pairs with the waiter's
// increment before it checks the futex value.
template <class Env>
bool futex_hb_waiters_pending(Env& env, futex_hash_bucket<Env>* hb)
{
    if (!mutated(mutation::no_barrier_b))  // mutation point (model/mutation.h)
        env.smp_mb();                      // barrier (B)
    return env.atomic_read(hb->waiters) != 0;
}

// futex_get_value_locked(): read the futex word with page faults disabled.
template <class Env>
int futex_get_value_locked(Env& env, std::uint32_t* dest, std::uint64_t uaddr)
{
    return env.futex_get_value(uaddr, dest);
}

// fault_in_user_writeable(): the environment's user memory has no read-only
// or swapped-out pages, so a word that can be read can be written.
template <class Env>
int fault_in_user_writeable(Env& env, std::uint64_t uaddr)
{
    std::uint32_t val = 0;
    return env.futex_get_value(uaddr, &val) ? -EFAULT_ : 0;
}

// double_lock_hb(): lock both buckets in address order, once if they are one.
template <class Env>
void double_lock_hb(Env& env, futex_hash_bucket<Env>* hb1, futex_hash_bucket<Env>* hb2)
{
    if (std::greater<>{}(hb1, hb2))
        std::swap(hb1, hb2);
    env.spin_lock(hb1->lock);
    if (hb1 != hb2)
        env.spin_lock(hb2->lock);  // spin_lock_nested()
}

// double_unlock_hb()
template <class Env>
void double_unlock_hb(Env& env, futex_hash_bucket<Env>* hb1, futex_hash_bucket<Env>* hb2)
{
    env.spin_unlock(hb1->lock);
    if (hb1 != hb2)
        env.spin_unlock(hb2->lock);
}

// futex_q_lock(): count the waiter, point q at the bucket, take its lock.
// The count goes up before the lock (and so before the futex word is read)
// so that a waker cannot miss a waiter still spinning on the lock.
template <class Env>
void futex_q_lock(Env& env, futex_q<Env>* q, futex_hash_bucket<Env>* hb)
{
    futex_hb_waiters_inc(env, hb);  // implies smp_mb(); (A)
    q->lock_ptr = &hb->lock;
    env.spin_lock(hb->lock);
}

// futex_q_unlock(): undo futex_q_lock() when the waiter is not queued after all.
template <class Env>
void futex_q_unlock(Env& env, futex_hash_bucket<Env>* hb)
{
    futex_hb_waiters_dec(env, hb);
    env.spin_unlock(hb->lock);
}

// __futex_queue(): add q to the bucket's chain. q->prio stands in for
// min(current->normal_prio, MAX_RT_PRIO): equal for every task unless a
// caller sets it, so waiters queue FIFO.
template <class Env>
void __futex_queue(futex_q<Env>* q, futex_hash_bucket<Env>* hb, void* task)
{
    plist_add(q, hb);
    q->task = task;
}

// futex_queue(): queue q and drop the bucket lock taken by futex_q_lock().
template <class Env>
void futex_queue(Env& env, futex_q<Env>* q, futex_hash_bucket<Env>* hb, void* task)
{
    __futex_queue(q, hb, task);
    env.spin_unlock(hb->lock);
}

// __futex_unqueue(): remove q from its bucket; q->lock_ptr is held.
template <class Env>
void __futex_unqueue(Env& env, futex_q<Env>* q)
{
    if (WARN_ON_ONCE(env, !q->lock_ptr || !q->hb, "__futex_unqueue: not queued"))
        return;
    futex_hash_bucket<Env>* hb = q->hb;  // container_of(q->lock_ptr, ...)
    hb->chain.remove(q);                 // plist_del()
    q->hb = nullptr;
    futex_hb_waiters_dec(env, hb);
}

// futex_unqueue(): 1 if q was still queued and this removed it, 0 if a
// waker got there first. q->lock_ptr can move under us (requeue, rehash):
// lock what it points at, and retry if it changed before we got the lock.
template <class Env>
int futex_unqueue(Env& env, futex_q<Env>* q)
{
    rcu_guard<Env> rcu(env);  // lock_ptr's bucket is not freed while we lock it
    for (;;) {
        typename Env::spinlock_t* lock_ptr = q->lock_ptr;  // READ_ONCE()
        if (!lock_ptr)
            return 0;
        env.spin_lock(*lock_ptr);
        if (lock_ptr != q->lock_ptr) {
            env.spin_unlock(*lock_ptr);
            continue;
        }
        __futex_unqueue(env, q);
        env.spin_unlock(*lock_ptr);
        return 1;
    }
}

// futex_wake_mark() with __futex_wake_mark() and wake_q_add_safe(): unqueue,
// let the waiter see it was woken, wake its task. The task is read first
// (the kernel's get_task_struct()): once lock_ptr is NULL the waiter may
// return and its futex_q, on its stack, is gone.
template <class Env>
void futex_wake_mark(Env& env, futex_q<Env>* q)
{
    void* task = q->task;
    __futex_unqueue(env, q);
    q->lock_ptr = nullptr;  // smp_store_release(&q->lock_ptr, NULL)
    env.wake_up_task(task);
}

// futex_wake(): wake up to nr_wake waiters on uaddr. With nobody waiting it
// takes and drops a hash reference and touches no bucket lock.
template <class Env>
int futex_wake(mm_struct<Env>* mm, std::uint64_t uaddr, unsigned int flags, int nr_wake, unsigned bitset)
{
    Env& env = *mm->env;
    futex_key key;
    if (!bitset)
        return -EINVAL_;
    int ret = get_futex_key(mm, uaddr, flags, &key);
    if (ret)
        return ret;

    policy_op_guard<Env> policy(mm, futex_op::wake);  // policy hook: before the hash reference
    hb_ref<Env> ref(mm, key);                          // CLASS(hb, hb)(&key)
    futex_hash_bucket<Env>* hb = ref.hb;
    if (!futex_hb_waiters_pending(env, hb))
        return ret;

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
    return ret;
}

// sign_extend32(): bit `index` of value is the sign bit.
inline int sign_extend32(std::uint32_t value, int index)
{
    const int shift = 31 - index;
    return static_cast<std::int32_t>(value << shift) >> shift;
}

// futex_atomic_op_inuser(): apply the encoded op to *uaddr, then compare the
// old value: 1 or 0, or a negative errno (the op faulted or is unknown).
template <class Env>
int futex_atomic_op_inuser(Env& env, std::uint32_t encoded_op, std::uint64_t uaddr)
{
    const unsigned op = (encoded_op & 0x70000000) >> 28;
    const unsigned cmp = (encoded_op & 0x0f000000) >> 24;
    int oparg = sign_extend32((encoded_op & 0x00fff000) >> 12, 11);
    const int cmparg = sign_extend32(encoded_op & 0x00000fff, 11);

    if (encoded_op & (FUTEX_OP_OPARG_SHIFT << 28)) {
        // The kernel logs "tries to shift op by N; fix this program" and masks.
        if (oparg < 0 || oparg > 31)
            oparg &= 31;
        oparg = static_cast<int>(1u << oparg);
    }

    int oldval = 0;
    const int ret = env.arch_futex_atomic_op_inuser(static_cast<int>(op), oparg, &oldval, uaddr);
    if (ret)
        return ret;

    switch (cmp) {
    case FUTEX_OP_CMP_EQ:
        return oldval == cmparg;
    case FUTEX_OP_CMP_NE:
        return oldval != cmparg;
    case FUTEX_OP_CMP_LT:
        return oldval < cmparg;
    case FUTEX_OP_CMP_GE:
        return oldval >= cmparg;
    case FUTEX_OP_CMP_LE:
        return oldval <= cmparg;
    case FUTEX_OP_CMP_GT:
        return oldval > cmparg;
    default:
        return -ENOSYS_;
    }
}

// futex_wake_op(): FUTEX_WAKE_OP. With both buckets locked, apply `op` to
// *uaddr2, wake up to nr_wake waiters on uaddr1 and, if the comparison on
// the old value of *uaddr2 holds, up to nr_wake2 on uaddr2.
template <class Env>
int futex_wake_op(mm_struct<Env>* mm, std::uint64_t uaddr1, unsigned int flags, std::uint64_t uaddr2,
                  int nr_wake, int nr_wake2, int op)
{
    Env& env = *mm->env;
    futex_key key1;
    futex_key key2;
    int ret = get_futex_key(mm, uaddr1, flags, &key1);
    if (ret)
        return ret;
    ret = get_futex_key(mm, uaddr2, flags, &key2);
    if (ret)
        return ret;

    policy_op_guard<Env> policy(mm, futex_op::wake_op);  // policy hook: before the hash references
    for (;;) {  // retry_private
        hb_ref<Env> ref1(mm, key1);
        hb_ref<Env> ref2(mm, key2);
        futex_hash_bucket<Env>* hb1 = ref1.hb;
        futex_hash_bucket<Env>* hb2 = ref2.hb;

        double_lock_hb(env, hb1, hb2);
        int op_ret = futex_atomic_op_inuser(env, static_cast<std::uint32_t>(op), uaddr2);
        if (op_ret < 0) {
            double_unlock_hb(env, hb1, hb2);
            if (op_ret != -EFAULT_ && op_ret != -EAGAIN_)
                return op_ret;
            if (op_ret == -EFAULT_) {
                ret = fault_in_user_writeable(env, uaddr2);
                if (ret)
                    return ret;
            }
            continue;  // cond_resched(); goto retry_private: both references dropped first
        }

        for (auto it = hb1->chain.begin(); it != hb1->chain.end();) {
            futex_q<Env>* q = *it++;
            if (futex_match(q->key, key1)) {
                futex_wake_mark(env, q);
                if (++ret >= nr_wake)
                    break;
            }
        }

        if (op_ret > 0) {
            op_ret = 0;
            for (auto it = hb2->chain.begin(); it != hb2->chain.end();) {
                futex_q<Env>* q = *it++;
                if (futex_match(q->key, key2)) {
                    futex_wake_mark(env, q);
                    if (++op_ret >= nr_wake2)
                        break;
                }
            }
            ret += op_ret;
        }

        double_unlock_hb(env, hb1, hb2);
        return ret;
    }
}

// futex_do_wait(): sleep until woken, timed out or signalled, unless a
// waker has already unqueued q.
template <class Env>
sleep_end futex_do_wait(Env& env, futex_q<Env>* q, long timeout_ns)
{
    if (!q->hb) {  // plist_node_empty(&q->list): no schedule()
        env.set_current_state(TASK_RUNNING);
        return sleep_end::wakeup;
    }
    return env.futex_sleep(q, timeout_ns);  // schedule(); __set_current_state(TASK_RUNNING)
}

// futex_do_wait() as FUTEX_WAIT_REQUEUE_PI calls it, with the kernel's
// hrtimer_sleeper: arm the timer, then sleep unless a waker has already
// unqueued q or the timer has already fired; a wake or the timer ends the
// sleep (the caller tells which from timeout->task).
template <class Env>
void futex_do_wait(Env& env, futex_q<Env>* q, hrtimer_sleeper* timeout)
{
    if (timeout)
        env.hrtimer_sleeper_start_expires(timeout);
    if (q->hb) {  // !plist_node_empty(&q->list)
        if (!timeout || timeout->task)
            env.futex_sleep(q, -1);  // schedule()
    }
    env.set_current_state(TASK_RUNNING);
}

// futex_wait_setup(): look the bucket up (a hash reference for this scope
// only), count the waiter, lock, read the futex word; queue q if it still
// holds val, else -EWOULDBLOCK. Returns with no lock and no reference held.
//
// With mm->futex_precheck (the mismatch-precheck patch, not in v6.17) the
// word is read first, with no hash reference and no bucket lock, and a
// mismatch returns -EWOULDBLOCK at once. A fault falls through to the
// locked path, which handles it as v6.17 does.
template <class Env>
int futex_wait_setup(mm_struct<Env>* mm, std::uint64_t uaddr, std::uint32_t val, unsigned int flags,
                     futex_q<Env>* q, const futex_key* key2, void* task, futex_op caller = futex_op::wait)
{
    Env& env = *mm->env;
    std::uint32_t uval = 0;
    int ret = get_futex_key(mm, uaddr, flags, &q->key);
    if (ret)
        return ret;

    policy_op_guard<Env> policy(mm, caller);  // policy hook: before the hash reference
    if (mm->futex_precheck) {
        // The precheck: an unlocked read, so a mismatch costs no reference
        // and no bucket lock. A match proves nothing yet: the locked read
        // below decides, ordered against wakers by the waiters count.
        if (!env.futex_get_value(uaddr, &uval) && uval != val)
            return -EWOULDBLOCK_;
    }

    for (;;) {  // retry_private
        hb_ref<Env> ref(mm, q->key);
        futex_hash_bucket<Env>* hb = ref.hb;

        futex_q_lock(env, q, hb);
        ret = futex_get_value_locked(env, &uval, uaddr);
        if (ret) {
            futex_q_unlock(env, hb);
            ret = env.futex_get_value(uaddr, &uval);  // get_user(), faults allowed
            if (ret)
                return ret;
            continue;
        }
        if (uval != val) {
            futex_q_unlock(env, hb);
            return -EWOULDBLOCK_;
        }
        if (key2 && futex_match(q->key, *key2)) {
            futex_q_unlock(env, hb);
            return -EINVAL_;
        }
        // The state is set before another task can wake us: futex_queue()'s
        // unlock orders it (the kernel's comment). A wake from here on makes
        // the task TASK_RUNNING, and futex_sleep() then returns at once.
        if (task == env.current_task())
            env.set_current_state(TASK_INTERRUPTIBLE);
        futex_queue(env, q, hb, task);
        return ret;
    }
}

// __futex_wait(): set up, sleep, and find out why we woke.
template <class Env>
int __futex_wait(mm_struct<Env>* mm, std::uint64_t uaddr, unsigned int flags, std::uint32_t val,
                 long timeout_ns, unsigned bitset)
{
    Env& env = *mm->env;
    futex_q<Env> q;  // futex_q_init
    if (!bitset)
        return -EINVAL_;
    q.bitset = bitset;

    for (;;) {  // retry
        const int ret = futex_wait_setup(mm, uaddr, val, flags, &q, static_cast<const futex_key*>(nullptr),
                                         env.current_task());
        if (ret)
            return ret;

        const sleep_end end = futex_do_wait(env, &q, timeout_ns);

        // Woken (and unqueued by the waker): success, whatever else happened.
        if (!futex_unqueue(env, &q))
            return 0;
        if (end == sleep_end::timeout)
            return -ETIMEDOUT_;
        if (end == sleep_end::signal)
            return -ERESTARTSYS_;
        // A spurious wakeup: wait again.
    }
}

// futex_wait(): FUTEX_WAIT / FUTEX_WAIT_BITSET. timeout_ns < 0: no timeout.
template <class Env>
int futex_wait(mm_struct<Env>* mm, std::uint64_t uaddr, unsigned int flags, std::uint32_t val,
               long timeout_ns, unsigned bitset)
{
    const int ret = __futex_wait(mm, uaddr, flags, val, timeout_ns, bitset);
    // With a timeout, an interrupted wait restarts through the restart block.
    if (timeout_ns >= 0 && ret == -ERESTARTSYS_)
        return -ERESTART_RESTARTBLOCK_;
    return ret;
}

}  // namespace futexsim::model
