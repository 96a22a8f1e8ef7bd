// One process's futex state as the model keeps it, and the futex system
// calls on it: the global hash and the mm, set up as futex_init() and
// mm_init()'s futex_mm_init() do and torn down as mmput()'s
// futex_hash_free() does. Every backend that runs the model holds one (the
// simulator's sim_process, the explorer, the threads backend, the step
// environment's step_process), so there is one setup and one teardown.
//
// Declare it after the environment it runs on: the environment must outlive
// the hash it frees (a backend that must first stop its tasks, or wait for
// RCU callbacks that point into the mm, does so in its own destructor, which
// runs before this member's).
#pragma once

#include <cstdint>

#include "model/core.h"
#include "model/fork.h"
#include "model/requeue.h"
#include "model/waitwake.h"

namespace futexsim {

template <class Env>
struct model_process {
    model::futex_data<Env> global;
    model::mm_struct<Env> mm;

    explicit model_process(Env& env)
    {
        model::futex_init(env, global);
        mm.env = &env;
        mm.global = &global;
        model::futex_mm_init(&mm);
    }
    ~model_process() { model::futex_hash_free(&mm); }
    model_process(const model_process&) = delete;
    model_process& operator=(const model_process&) = delete;

    // --- the futex system calls ------------------------------------------
    // `flags` is the model's FLAGS_SHARED or 0 (futex_to_flags() of the op):
    // private unless a caller asks, as glibc's mutexes and condition
    // variables do; a shared call on this (anonymous) memory uses the global
    // hash and no private-hash reference.
    int futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns = -1,
                   unsigned bitset = model::FUTEX_BITSET_MATCH_ANY, unsigned flags = 0)
    {
        return model::futex_wait(&mm, uaddr, flags, val, timeout_ns, bitset);
    }
    int futex_wake(std::uint64_t uaddr, int nr_wake, unsigned bitset = model::FUTEX_BITSET_MATCH_ANY,
                   unsigned flags = 0)
    {
        return model::futex_wake(&mm, uaddr, flags, nr_wake, bitset);
    }
    int futex_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_requeue,
                      unsigned flags = 0)
    {
        return model::futex_requeue(&mm, uaddr1, flags, uaddr2, flags, nr_wake, nr_requeue, nullptr);
    }
    int futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_requeue,
                          std::uint32_t cmpval, unsigned flags = 0)
    {
        return model::futex_requeue(&mm, uaddr1, flags, uaddr2, flags, nr_wake, nr_requeue, &cmpval);
    }
    int futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                      std::uint32_t op, unsigned flags = 0)
    {
        return model::futex_wake_op(&mm, uaddr1, flags, uaddr2, nr_wake, nr_wake2, static_cast<int>(op));
    }
    // The PI calls (model/pi.h, model/requeue.h): environments that provide
    // model::futex_pi_env only (the explorer's, the timed simulator's).
    int futex_lock_pi(std::uint64_t uaddr, unsigned flags = 0) { return model::futex_lock_pi(&mm, uaddr, flags, 0); }
    int futex_trylock_pi(std::uint64_t uaddr, unsigned flags = 0) { return model::futex_lock_pi(&mm, uaddr, flags, 1); }
    int futex_unlock_pi(std::uint64_t uaddr, unsigned flags = 0) { return model::futex_unlock_pi(&mm, uaddr, flags); }
    int futex_wait_requeue_pi(std::uint64_t uaddr, std::uint32_t val, std::uint64_t uaddr2, unsigned flags = 0,
                              const long* abs_timeout = nullptr)
    {
        return model::futex_wait_requeue_pi(&mm, uaddr, flags, val, abs_timeout, model::FUTEX_BITSET_MATCH_ANY, uaddr2);
    }
    // FUTEX_CMP_REQUEUE_PI: wake one (it takes uaddr2) and requeue up to nr_requeue.
    int futex_cmp_requeue_pi(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_requeue, std::uint32_t cmpval,
                             unsigned flags = 0)
    {
        return model::futex_requeue(&mm, uaddr1, flags, uaddr2, flags, 1, nr_requeue, &cmpval, 1);
    }
    int prctl_futex_hash(unsigned long op, unsigned long arg)
    {
        return model::futex_hash_prctl(&mm, op, arg, 0);
    }
    // clone(CLONE_VM | CLONE_THREAD)'s futex step in copy_process(): the
    // hash is sized for one more thread before the child joins the group
    // (the caller counts the thread).
    int copy_process_futex() { return model::copy_process_futex(&mm, CLONE_VM | CLONE_THREAD); }
};

}  // namespace futexsim
