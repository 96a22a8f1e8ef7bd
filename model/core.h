// The private futex hash of kernel/futex/core.c (Linux v6.17,
// CONFIG_FUTEX_PRIVATE_HASH), one function per kernel function, same names.
// Where a later kernel changed a function, both bodies are here, chosen by
// mm->futex_kernel (model/kernel_version.h).
//
// Differences of form, not of behaviour:
// - `current->mm` is an explicit `mm` argument; the environment is mm->env.
// - Shared keys are mm-based (anonymous memory) only: futex_hash() sends
//   them to the global hash and takes no private-hash reference, as the
//   kernel does; inode-based keys are not modelled.
// - mmget()/mmput_async() are left out: the model's mm outlives its RCU
//   callbacks by construction.
#pragma once

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>

#include "model/atomic.h"
#include "model/bug.h"
#include "model/cleanup.h"
#include "model/futex.h"
#include "model/jhash.h"
#include "model/mutation.h"
#include "model/policies/policy.h"

namespace futexsim::model {

template <class Env>
inline unsigned fph_slots(const private_hash<Env>* fph)
{
    return fph && fph->hash_mask ? fph->hash_mask + 1 : 0;
}

template <class Env>
bool futex_ref_get(private_hash<Env>* fph);
template <class Env>
bool futex_ref_put(private_hash<Env>* fph);
template <class Env>
bool futex_ref_is_dead(private_hash<Env>* fph);
template <class Env>
futex_hash_bucket<Env>* __futex_hash(mm_struct<Env>* mm, const futex_key& key,
                                     private_hash<Env>* fph);

// futex_private_hash_get()
template <class Env>
bool futex_private_hash_get(private_hash<Env>* fph)
{
    return futex_ref_get(fph);
}

// futex_private_hash_put()
template <class Env>
void futex_private_hash_put(private_hash<Env>* fph)
{
    if (futex_ref_put(fph)) {
        fph->mm->env->wake_up_var(fph->mm);
        policy_ref_dead(fph->mm);  // policy hook: the count drained (last put)
    }
}

// futex_hash_get(): an additional reference on an already referenced hash.
template <class Env>
void futex_hash_get(futex_hash_bucket<Env>* hb)
{
    private_hash<Env>* fph = hb->priv;
    if (!fph)
        return;
    WARN_ON_ONCE(*fph->mm->env, !futex_private_hash_get(fph), "futex_hash_get on a dead fph");
}

// futex_hash_put()
template <class Env>
void futex_hash_put(futex_hash_bucket<Env>* hb)
{
    private_hash<Env>* fph = hb->priv;
    if (!fph)
        return;
    futex_private_hash_put(fph);
}

// __futex_hash_private(): NULL means "use the global hash", as for every
// shared key.
template <class Env>
futex_hash_bucket<Env>* __futex_hash_private(mm_struct<Env>* mm, const futex_key& key,
                                             private_hash<Env>* fph)
{
    if (!futex_key_is_private(key))
        return nullptr;

    if (!fph)
        fph = mm->env->atomic_read(mm->futex_phash);  // rcu_dereference()
    if (!fph || !fph->hash_mask)
        return nullptr;

    const std::uint32_t words[2] = {static_cast<std::uint32_t>(key.address),
                                    static_cast<std::uint32_t>(key.address >> 32)};
    const std::uint32_t hash = jhash2(words, 2, key.offset);
    return &fph->queues[hash & fph->hash_mask];
}

// futex_rehash_private(): move every queued waiter into its bucket of `new_`.
template <class Env>
void futex_rehash_private(private_hash<Env>* old, private_hash<Env>* new_)
{
    Env& env = *old->mm->env;
    const unsigned slots = old->hash_mask + 1;

    for (unsigned i = 0; i < slots; i++) {
        futex_hash_bucket<Env>* hb_old = &old->queues[i];

        env.spin_lock(hb_old->lock);
        while (!hb_old->chain.empty()) {
            futex_q<Env>* q = hb_old->chain.front();
            hb_old->chain.pop_front();
            env.atomic_dec(hb_old->waiters);  // futex_hb_waiters_dec()

            WARN_ON_ONCE(env, q->lock_ptr != &hb_old->lock, "rehash: waiter on a foreign lock");

            futex_hash_bucket<Env>* hb_new = __futex_hash(old->mm, q->key, new_);
            env.atomic_inc(hb_new->waiters);  // futex_hb_waiters_inc()
            // The new pointer isn't published yet, but a moved waiter can be
            // unqueued by a timeout, so the new bucket is locked too.
            env.spin_lock(hb_new->lock);
            plist_add(q, hb_new);
            q->lock_ptr = &hb_new->lock;
            env.spin_unlock(hb_new->lock);
        }
        env.spin_unlock(hb_old->lock);
    }
}

// plist_add(): priority order, FIFO among equal priorities.
template <class Env>
void plist_add(futex_q<Env>* q, futex_hash_bucket<Env>* hb)
{
    auto pos = std::find_if(hb->chain.begin(), hb->chain.end(),
                            [q](const futex_q<Env>* other) { return other->prio > q->prio; });
    hb->chain.insert(pos, q);
    q->hb = hb;
}

// __futex_pivot_hash(): install `new_` if the current fph is dead, else park it.
template <class Env>
bool __futex_pivot_hash(mm_struct<Env>* mm, private_hash<Env>* new_)
{
    Env& env = *mm->env;
    WARN_ON_ONCE(env, mm->futex_phash_new != nullptr, "__futex_pivot_hash: phash_new set");

    private_hash<Env>* fph = env.atomic_read(mm->futex_phash);
    if (fph) {
        if (!futex_ref_is_dead(fph)) {
            mm->futex_phash_new = new_;
            env.trace({trace_kind::phash_new_park, fph_slots(new_), 0});
            return false;
        }
        futex_rehash_private(fph, new_);
    }
    env.atomic_set(new_->state, FR_PERCPU);
    if (mm->futex_kernel >= kernel_version::v7_2) {
        // 7.2 (core.c:219-224 of 7.2.13): publish, then take the cookie, so
        // that it names a grace period that started after the publication
        // (futex_ref_drop() polls it).
        if (mutated(mutation::plain_phash_publish))  // mutation point (model/mutation.h)
            env.atomic_set(mm->futex_phash, new_);
        else
            env.smp_store_release(mm->futex_phash, new_);  // rcu_assign_pointer()
        mm->futex_batches = env.get_state_synchronize_rcu();
    } else {
        rcu_guard<Env> rcu(env);
        mm->futex_batches = env.get_state_synchronize_rcu();
        if (mutated(mutation::plain_phash_publish))  // mutation point (model/mutation.h)
            env.atomic_set(mm->futex_phash, new_);
        else
            env.smp_store_release(mm->futex_phash, new_);  // rcu_assign_pointer()
    }
    env.trace({trace_kind::pivot_install, fph_slots(new_), new_->custom ? 1 : 0});
    policy_pivot_installed(mm, new_);  // policy hook: the pivot completed
    if (fph)
        env.kvfree_rcu(fph);
    return true;
}

// futex_pivot_hash(): the slow path of a failed reference, under futex_hash_lock.
template <class Env>
void futex_pivot_hash(mm_struct<Env>* mm)
{
    mutex_guard<Env> lock(*mm->env, mm->futex_hash_lock);
    private_hash<Env>* fph = mm->futex_phash_new;
    if (fph) {
        mm->futex_phash_new = nullptr;
        __futex_pivot_hash(mm, fph);
    }
}

// futex_private_hash(): a referenced current fph, pivoting first if it is dead.
template <class Env>
private_hash<Env>* futex_private_hash(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    for (;;) {
        {
            rcu_guard<Env> rcu(env);
            private_hash<Env>* fph = env.atomic_read(mm->futex_phash);
            if (!fph)
                return nullptr;
            if (futex_private_hash_get(fph))
                return fph;
        }
        futex_pivot_hash(mm);
    }
}

// futex_hash(): the bucket for `key`, holding a reference on its hash if it
// is a private one (a global bucket's priv is NULL: no reference, no pivot).
template <class Env>
futex_hash_bucket<Env>* futex_hash(mm_struct<Env>* mm, const futex_key& key)
{
    Env& env = *mm->env;
    for (;;) {
        {
            rcu_guard<Env> rcu(env);
            futex_hash_bucket<Env>* hb = __futex_hash(mm, key, static_cast<private_hash<Env>*>(nullptr));
            private_hash<Env>* fph = hb->priv;
            if (!fph || futex_private_hash_get(fph))
                return hb;
        }
        futex_pivot_hash(mm);
    }
}

// __futex_hash(): private bucket if there is a private hash, else global.
template <class Env>
futex_hash_bucket<Env>* __futex_hash(mm_struct<Env>* mm, const futex_key& key,
                                     private_hash<Env>* fph)
{
    int node = key.node;
    if (node == FUTEX_NO_NODE) {
        if (futex_hash_bucket<Env>* hb = __futex_hash_private(mm, key, fph))
            return hb;
    }

    // The whole key up to `offset`: the mm (here its id) and the address.
    const std::uint32_t words[4] = {
        static_cast<std::uint32_t>(key.mm_id), static_cast<std::uint32_t>(key.mm_id >> 32),
        static_cast<std::uint32_t>(key.address), static_cast<std::uint32_t>(key.address >> 32)};
    const std::uint32_t hash = jhash2(words, 4, key.offset);
    futex_data<Env>& g = *mm->global;
    if (node == FUTEX_NO_NODE)
        node = static_cast<int>((hash >> g.hashshift) % g.nr_node_ids);
    return &g.queues[static_cast<unsigned>(node)][hash & g.hashmask];
}

// futex_hash_bucket_init()
template <class Env>
void futex_hash_bucket_init(futex_hash_bucket<Env>* fhb, private_hash<Env>* fph)
{
    fhb->priv = fph;
    fhb->waiters = {};
    fhb->chain.clear();
}

template <class Env>
void futex_ref_rcu(rcu_head* head);
template <class Env>
void __futex_ref_atomic_end(private_hash<Env>* fph);

// __futex_ref_atomic_begin(): bias the atomic so it cannot read zero, flip
// to FR_ATOMIC, and wait one grace period for every CPU to see the flip.
template <class Env>
void __futex_ref_atomic_begin(private_hash<Env>* fph)
{
    mm_struct<Env>* mm = fph->mm;
    Env& env = *mm->env;

    // The counter we switch to must have fully drained in the last cycle,
    // or futex_ref_is_dead() could never have reported success.
    WARN_ON_ONCE(env, env.atomic_read(mm->futex_atomic) != 0, "atomic_begin: futex_atomic != 0");

    env.atomic_set(mm->futex_atomic, mutated(mutation::forget_bias) ? 0L : futex_ref_bias);
    if (mutated(mutation::plain_atomic_state))  // mutation point (model/mutation.h)
        env.atomic_set(fph->state, FR_ATOMIC);
    else
        env.smp_store_release(fph->state, FR_ATOMIC);
    env.trace({trace_kind::atomic_begin, fph_slots(fph), futex_ref_bias});

    if (mutated(mutation::no_fold_grace_period)) {  // mutation point (model/mutation.h)
        __futex_ref_atomic_end(fph);
        return;
    }
    env.call_rcu_hurry(&mm->futex_rcu, &futex_ref_rcu<Env>);
}

// __futex_ref_atomic_end(): every CPU now uses the atomic, so the per-CPU
// counters are stable: fold their sum in, minus the bias and the initial
// reference, and re-arm the per-CPU side for the next cycle.
template <class Env>
void __futex_ref_atomic_end(private_hash<Env>* fph)
{
    mm_struct<Env>* mm = fph->mm;
    Env& env = *mm->env;

    WARN_ON_ONCE(env, env.atomic_read(fph->state) != FR_ATOMIC, "atomic_end: state != FR_ATOMIC");

    unsigned int count = 0;
    const unsigned ncpu = env.num_possible_cpus();
    for (unsigned cpu = 0; cpu < ncpu; cpu++) {  // for_each_possible_cpu()
        count += env.per_cpu_read(*mm->futex_ref, cpu);
        env.per_cpu_write(*mm->futex_ref, cpu, 0u);
    }

    env.this_cpu_inc(*mm->futex_ref);  // 0 -> 1: the next fph's initial reference

    // The moment this add lands, futex_ref_is_dead() can become true.
    const long bias = mutated(mutation::forget_bias) ? 0L : futex_ref_bias;  // mutation point
    const long delta = wrapping_add(static_cast<long>(count) - bias, -1);
    const long ret = env.atomic_add_return(mm->futex_atomic, delta);
    env.trace({trace_kind::atomic_end, fph_slots(fph), ret});
    if (!ret) {
        env.trace({trace_kind::ref_dead, fph_slots(fph), 0});
        env.wake_up_var(mm);
        policy_ref_dead(mm);  // policy hook: the count drained (at the fold)
    }

    WARN_ON_ONCE(env, ret < 0, "atomic_end: negative count");
}

// futex_ref_rcu(): the RCU callback that drives the FR_PERCPU -> FR_ATOMIC
// transition one grace period at a time.
template <class Env>
void futex_ref_rcu(rcu_head* head)
{
    auto* mm = static_cast<mm_struct<Env>*>(head->owner);
    Env& env = *mm->env;
    private_hash<Env>* fph = env.atomic_read(mm->futex_phash);  // rcu_dereference_raw()

    if (env.atomic_read(fph->state) == FR_PERCPU) {
        // After this extra grace period nobody relies on a previously
        // observed fph's atomic being dead, so the migration can begin.
        __futex_ref_atomic_begin(fph);
        return;
    }
    __futex_ref_atomic_end(fph);
}

// futex_ref_drop(): drop the initial reference and start the transition.
//
// Why the transition may never end (the stall). Once __futex_ref_atomic_end()
// has folded the per-CPU counts in, mm->futex_atomic (7.2.13:
// mm->futex.phash.atomic) is the number of tasks holding a reference on
// this fph, and the parked hash goes in only once it is 0: a
// futex_ref_get() that finds 0 pivots (futex_private_hash() and
// futex_hash() -> futex_pivot_hash(), core.c:262-265 and 278-281 of 7.2.13),
// and the last futex_ref_put() wakes a prctl waiting in
// futex_hash_allocate() (core.c:153-154, 1913-1928). Two tasks whose
// references overlap keep it from 0 for as long as they run:
//
// CPU 0                                 CPU 1
// futex_hash()
//   futex_ref_get()   atomic 0 -> 1
//                                       futex_hash()
//                                         futex_ref_get()   atomic 1 -> 2
// futex_hash_put()
//   futex_ref_put()   atomic 2 -> 1
// futex_hash()
//   futex_ref_get()   atomic 1 -> 2
//                                       futex_hash_put()
//                                         futex_ref_put()   atomic 2 -> 1
//                                       futex_hash()
//                                         futex_ref_get()   atomic 1 -> 2
//   ...                                   ...
//
// Each get lands while the other task still holds its reference, so
// futex_ref_is_dead() never holds and the bigger hash waits in
// mm->futex_phash_new while every get and put is a locked RMW on the one
// line of futex_atomic. Nothing here bounds it: whether the holders ever
// all leave at once depends on how many there are and how long the line
// takes to travel, which is what the simulator measures.
template <class Env>
void futex_ref_drop(private_hash<Env>* fph)
{
    mm_struct<Env>* mm = fph->mm;
    Env& env = *mm->env;

    WARN_ON_ONCE(env, env.atomic_read(mm->futex_phash) != fph, "ref_drop: not the current fph");
    env.trace({trace_kind::ref_drop, fph_slots(fph), 0});

    // A full grace period must separate publishing an fph and replacing it:
    // else a reader still holding the previous (dead, FR_ATOMIC) fph could
    // succeed inc_not_zero on the freshly biased atomic.
    if (env.poll_state_synchronize_rcu(mm->futex_batches)) {
        __futex_ref_atomic_begin(fph);
        return;
    }
    env.call_rcu_hurry(&mm->futex_rcu, &futex_ref_rcu<Env>);
}

// futex_ref_get(): FR_PERCPU, a local increment; FR_ATOMIC, inc_not_zero on
// the shared count (why that count may never reach 0: futex_ref_drop()).
template <class Env>
bool futex_ref_get(private_hash<Env>* fph)
{
    mm_struct<Env>* mm = fph->mm;
    Env& env = *mm->env;
    preempt_guard<Env> preempt(env);

    if (env.atomic_read(fph->state) == FR_PERCPU) {  // READ_ONCE()
        env.this_cpu_inc(*mm->futex_ref);
        env.trace({trace_kind::ref_get_percpu, 0, 1});
        return true;
    }
    const bool ok = atomic_long_inc_not_zero(env, mm->futex_atomic);
    env.trace({trace_kind::ref_get_atomic, 0, ok ? 1 : 0});
    return ok;
}

// futex_ref_put(): true when this put dropped the last reference.
template <class Env>
bool futex_ref_put(private_hash<Env>* fph)
{
    mm_struct<Env>* mm = fph->mm;
    Env& env = *mm->env;
    preempt_guard<Env> preempt(env);

    if (env.atomic_read(fph->state) == FR_PERCPU) {
        env.this_cpu_dec(*mm->futex_ref);
        return false;
    }
    const bool dead = env.atomic_dec_and_test(mm->futex_atomic);
    if (dead)
        env.trace({trace_kind::ref_dead, fph_slots(fph), 0});
    return dead;
}

// futex_ref_is_dead(): "dead" is FR_ATOMIC with a zero count.
template <class Env>
bool futex_ref_is_dead(private_hash<Env>* fph)
{
    mm_struct<Env>* mm = fph->mm;
    Env& env = *mm->env;
    rcu_guard<Env> rcu(env);

    const int state = mutated(mutation::plain_dead_check)  // mutation point (model/mutation.h)
                          ? env.atomic_read(fph->state)
                          : env.smp_load_acquire(fph->state);
    if (state == FR_PERCPU)
        return false;
    return env.atomic_read(mm->futex_atomic) == 0;
}

// futex_mm_init()
template <class Env>
int futex_mm_init(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    env.atomic_set(mm->futex_phash, static_cast<private_hash<Env>*>(nullptr));
    mm->futex_phash_new = nullptr;
    mm->futex_ref.reset();
    env.atomic_set(mm->futex_atomic, 0L);
    mm->futex_batches = env.get_state_synchronize_rcu();
    mm->futex_rcu.owner = mm;
    return 0;
}

// futex_hash_free(): at exit of the last user of the mm.
template <class Env>
void futex_hash_free(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    mm->futex_ref.reset();  // free_percpu()
    if (mm->futex_phash_new)
        env.kvfree(mm->futex_phash_new);
    mm->futex_phash_new = nullptr;
    private_hash<Env>* fph = env.atomic_read(mm->futex_phash);
    if (fph)
        env.kvfree(fph);
    env.atomic_set(mm->futex_phash, static_cast<private_hash<Env>*>(nullptr));
}

// futex_pivot_pending(): true once a parked pivot can proceed (or none is parked).
//
// The lost wake-up of v6.17 (fixed by 8e7ff730dd96; docs/findings.md). Its
// two reads run under RCU alone, and a whole pivot fits between them:
//
// CPU 0 (prctl SET_SLOTS)                CPU 1
// futex_hash_allocate()
//   futex_ref_drop(cur);  (-> FR_ATOMIC)
//   __futex_pivot_hash(): cur alive,
//     futex_phash_new = new;  (parked)
//   futex_pivot_pending_wait()  sleeps
//                                        futex_hash_put()
//                                          futex_ref_put(): 1 -> 0
//                                          wake_up_var(mm);
//   futex_pivot_pending()  (woken)
//     futex_phash_new != NULL
//                                        futex_hash()
//                                          futex_ref_get() fails (0)
//                                          futex_pivot_hash()
//                                            futex_phash_new = NULL;
//                                            futex_phash = new;  (FR_PERCPU)
//     fph = futex_phash;  (new, alive)
//     futex_ref_is_dead(fph): false
//   sleeps again, for good: the pivot
//   that installed `new` wakes nobody
//
// v7.2 reads both under futex_hash_lock, which every pivot holds, so that
// no pivot lands between them.
template <class Env>
bool futex_pivot_pending(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    if (mm->futex_kernel >= kernel_version::v7_2) {
        // 8e7ff730dd96: read both under futex_hash_lock, which every pivot
        // holds, so that no pivot lands between the two reads (under RCU
        // alone a waiter could see the parked hash, then the installed one,
        // not dead, and sleep for good: docs/findings.md).
        mutex_guard<Env> lock(env, mm->futex_hash_lock);
        if (!mm->futex_phash_new)
            return true;
        private_hash<Env>* fph = env.atomic_read(mm->futex_phash);  // rcu_dereference_raw()
        return futex_ref_is_dead(fph);
    }
    rcu_guard<Env> rcu(env);
    if (!mm->futex_phash_new)
        return true;
    private_hash<Env>* fph = env.atomic_read(mm->futex_phash);
    return futex_ref_is_dead(fph);
}

// Sleep until futex_pivot_pending(mm). Not a kernel function: the wait that
// futex_hash_allocate() open-codes, in the form each kernel version has,
// shared with the policies that wait for the same condition.
template <class Env>
void futex_pivot_pending_wait(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    if (mm->futex_kernel >= kernel_version::v7_2_1) {
        // d8aa5dd97944: add_wait_queue() with woken_wake_bit_function(),
        // smp_mb(), while (!futex_pivot_pending(mm) && wait_woken(...));
        // remove_wait_queue(). The condition runs in TASK_RUNNING, so the
        // mutex 8e7ff730dd96 takes in it no longer trips might_sleep().
        env.wait_var_woken(mm, [mm] { return futex_pivot_pending(mm); });
        return;
    }
    // wait_var_event(mm, futex_pivot_pending(mm)): the condition runs in
    // TASK_UNINTERRUPTIBLE.
    env.wait_var_event(mm, [mm] { return futex_pivot_pending(mm); });
}

// futex_hash_less(): custom beats default, the global hash beats any size,
// bigger beats smaller.
template <class Env>
bool futex_hash_less(const private_hash<Env>* a, const private_hash<Env>* b)
{
    if (!a->custom && b->custom)
        return true;
    if (a->custom && !b->custom)
        return false;
    if (!b->hash_mask)
        return true;
    if (!a->hash_mask)
        return false;
    return a->hash_mask < b->hash_mask;
}

// kvzalloc(struct_size(fph, queues, slots)): kvmalloc refuses sizes over
// INT_MAX, which is why a request for 1 << 29 slots fails with ENOMEM.
template <class Env>
private_hash<Env>* futex_private_hash_alloc(unsigned hash_slots)
{
    const std::uint64_t size = sizeof(private_hash<Env>) -
                               sizeof(std::vector<futex_hash_bucket<Env>>) +
                               std::uint64_t{futex_hash_bucket_size} * hash_slots;
    if (size > static_cast<std::uint64_t>(INT_MAX))
        return nullptr;
    return new private_hash<Env>(hash_slots);
}

// futex_hash_allocate(): prepare a new fph and install or park it.
template <class Env>
int futex_hash_allocate(mm_struct<Env>* mm, unsigned int hash_slots, unsigned int flags)
{
    Env& env = *mm->env;
    const bool custom = flags & FH_CUSTOM;

    if (hash_slots && (hash_slots == 1 || !std::has_single_bit(hash_slots)))
        return -EINVAL_;

    // Once the global hash is selected there is no way back.
    {
        rcu_guard<Env> rcu(env);
        private_hash<Env>* cur = env.atomic_read(mm->futex_phash);
        if (cur && !cur->hash_mask)
            return custom ? -EBUSY_ : 0;
    }

    if (!mm->futex_ref) {
        // Always allocated by the first thread, so no locking is needed.
        mm->futex_ref = env.alloc_percpu_uint();
        env.this_cpu_inc(*mm->futex_ref);  // 0 -> 1
    }

    private_hash<Env>* fph = futex_private_hash_alloc<Env>(hash_slots);
    if (!fph)
        return -ENOMEM_;
    fph->hash_mask = hash_slots ? hash_slots - 1 : 0;
    fph->custom = custom;
    fph->mm = mm;
    fph->rcu.owner = fph;
    for (auto& hb : fph->queues)
        futex_hash_bucket_init(&hb, fph);
    env.trace({trace_kind::hash_allocate, hash_slots, custom ? 1 : 0});

    for (;;) {
        // Only prctl() waits and retries; clone() is never delayed.
        if (custom)
            futex_pivot_pending_wait(mm);

        mutex_guard<Env> lock(env, mm->futex_hash_lock);
        private_hash<Env>* cur = env.atomic_read(mm->futex_phash);
        private_hash<Env>* new_ = mm->futex_phash_new;
        mm->futex_phash_new = nullptr;

        if (fph) {
            if (cur && !cur->hash_mask) {
                // Two threads asked for the global hash; the first switched.
                env.kvfree(fph);
                mm->futex_phash_new = new_;
                return -EBUSY_;
            }
            // An existing hash with no replacement yet: drop its initial
            // reference, starting its transition to FR_ATOMIC.
            if (cur && !new_)
                futex_ref_drop(cur);

            if (new_) {
                // Two updates raced; throw out the lesser one.
                if (futex_hash_less(new_, fph)) {
                    env.kvfree(new_);
                    new_ = fph;
                } else {
                    env.kvfree(fph);
                }
            } else {
                new_ = fph;
            }
            fph = nullptr;
        }

        // On failure this parks new_ in futex_phash_new, and the next
        // futex_private_hash_get() that fails will try again.
        if (new_ && !__futex_pivot_hash(mm, new_)) {
            policy_pivot_parked(mm);  // policy hook: a pivot is requested, new_ parked
            if (custom)
                continue;
        }
        return 0;
    }
}

// futex_hash_allocate_default(): the auto-scaling request made by clone().
template <class Env>
int futex_hash_allocate_default(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    unsigned threads = 0;
    unsigned current_buckets = 0;
    {
        rcu_guard<Env> rcu(env);
        threads = std::min<unsigned>(env.get_nr_threads(), env.num_online_cpus());
        private_hash<Env>* fph = env.atomic_read(mm->futex_phash);
        if (fph) {
            if (fph->custom)
                return 0;
            current_buckets = fph->hash_mask + 1;
        }
    }

    // 16 <= threads * 4 <= global hash size
    unsigned buckets = std::bit_ceil(4 * threads);
    buckets = std::clamp<unsigned>(buckets, 16, static_cast<unsigned>(mm->global->hashmask + 1));
    if (current_buckets >= buckets)
        return 0;
    return futex_hash_allocate(mm, buckets, 0);
}

// futex_hash_get_slots(): PR_FUTEX_HASH_GET_SLOTS
template <class Env>
int futex_hash_get_slots(mm_struct<Env>* mm)
{
    Env& env = *mm->env;
    rcu_guard<Env> rcu(env);
    private_hash<Env>* fph = env.atomic_read(mm->futex_phash);
    if (fph && fph->hash_mask)
        return static_cast<int>(fph->hash_mask + 1);
    return 0;
}

// futex_hash_prctl(): prctl(PR_FUTEX_HASH, arg2, arg3, arg4)
template <class Env>
int futex_hash_prctl(mm_struct<Env>* mm, unsigned long arg2, unsigned long arg3,
                     unsigned long arg4)
{
    switch (arg2) {
    case PR_FUTEX_HASH_SET_SLOTS:
        if (arg4)
            return -EINVAL_;
        // Truncated to unsigned int, as the kernel's prototype does.
        return futex_hash_allocate(mm, static_cast<unsigned>(arg3), FH_CUSTOM);
    case PR_FUTEX_HASH_GET_SLOTS:
        return futex_hash_get_slots(mm);
    default:
        return -EINVAL_;
    }
}

// futex_init(): size the global hash, 256 slots per possible CPU per node.
template <class Env>
void futex_init(Env& env, futex_data<Env>& data)
{
    const unsigned nodes = std::max(1u, env.num_possible_nodes());
    unsigned long hashsize = 256UL * env.num_possible_cpus() / nodes;
    hashsize = std::bit_ceil(std::max(4UL, hashsize));
    data.hashshift = static_cast<unsigned>(std::countr_zero(hashsize));
    data.hashmask = hashsize - 1;
    data.nr_node_ids = nodes;
    data.queues.clear();
    data.queues.reserve(nodes);
    for (unsigned n = 0; n < nodes; n++)
        data.queues.emplace_back(hashsize);
}

}  // namespace futexsim::model

// The pivot policies' hooks, after every function they may call.
#include "model/policies/registry.h"
