// One process on the step environment: an mm, the global hash, and the
// thread count clone() maintains. What tests and the scripted demo drive.
#pragma once

#include <optional>
#include <string_view>

#include "model/core.h"
#include "model/fork.h"
#include "model/requeue.h"
#include "model/waitwake.h"
#include "sim/step_env.h"

namespace futexsim::sim {

struct step_process {
    step_env env;
    model::futex_data<step_env> global;
    model::mm_struct<step_env> mm;

    explicit step_process(unsigned cpus, unsigned nodes = 1) : env(cpus, nodes)
    {
        model::futex_init(env, global);
        mm.env = &env;
        mm.global = &global;
        model::futex_mm_init(&mm);
    }
    ~step_process() { model::futex_hash_free(&mm); }
    step_process(const step_process&) = delete;
    step_process& operator=(const step_process&) = delete;

    // pthread_create(): copy_process() sizes the hash, then the child joins
    // the thread group.
    int clone_thread()
    {
        const int ret = model::copy_process_futex(&mm, CLONE_VM | CLONE_THREAD);
        env.set_nr_threads(env.get_nr_threads() + 1);
        return ret;
    }
    // Select a pivot policy by name (model/policies/registry.h): 0, or
    // -EINVAL for a name not registered.
    int set_policy(std::string_view name)
    {
        const std::optional<int> id = model::pivot_policy_id(name);
        return id ? model::futex_set_pivot_policy(&mm, *id) : -model::EINVAL_;
    }
    int set_slots(unsigned long slots)
    {
        return model::futex_hash_prctl(&mm, model::PR_FUTEX_HASH_SET_SLOTS, slots, 0);
    }
    int get_slots() { return model::futex_hash_prctl(&mm, model::PR_FUTEX_HASH_GET_SLOTS, 0, 0); }
    model::private_hash<step_env>* current() { return env.atomic_read(mm.futex_phash); }

    // The sum the per-CPU side holds (only meaningful as a sum: single
    // counters wrap when a reference moves between CPUs).
    unsigned percpu_sum() const
    {
        unsigned sum = 0;
        if (mm.futex_ref)
            for (unsigned v : mm.futex_ref->v)
                sum += v;
        return sum;
    }
    // Every reference counted: the per-CPU sum plus futex_atomic. Outside
    // the biased window of FR_ATOMIC (between __futex_ref_atomic_begin() and
    // the fold), with nobody inside a futex operation, this is the one
    // initial reference.
    long references() const
    {
        return static_cast<long>(percpu_sum()) + env.atomic_read(mm.futex_atomic);
    }

    // --- futex system calls on private futexes (user memory: env.user_memory)
    int futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns = -1,
                   unsigned bitset = model::FUTEX_BITSET_MATCH_ANY)
    {
        return model::futex_wait(&mm, uaddr, val, timeout_ns, bitset);
    }
    int futex_wake(std::uint64_t uaddr, int nr_wake, unsigned bitset = model::FUTEX_BITSET_MATCH_ANY)
    {
        return model::futex_wake(&mm, uaddr, nr_wake, bitset);
    }
    int futex_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_requeue)
    {
        return model::futex_requeue(&mm, uaddr1, uaddr2, nr_wake, nr_requeue, nullptr);
    }
    int futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_requeue,
                          std::uint32_t cmpval)
    {
        return model::futex_requeue(&mm, uaddr1, uaddr2, nr_wake, nr_requeue, &cmpval);
    }
    int futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                      std::uint32_t op)
    {
        return model::futex_wake_op(&mm, uaddr1, uaddr2, nr_wake, nr_wake2, static_cast<int>(op));
    }
};

}  // namespace futexsim::sim
