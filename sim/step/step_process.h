// One process on the step environment: the model's process state
// (run/model_process.h) and the thread count clone() maintains. What tests
// and the scripted demo drive.
#pragma once

#include <optional>
#include <string_view>

#include "model/core.h"
#include "run/model_process.h"
#include "sim/step/step_env.h"

namespace futexsim::sim {

// The environment comes first (a base, so that it is built before the
// process state that runs on it and destroyed after it).
struct step_env_holder {
    step_env env;
    explicit step_env_holder(unsigned cpus, unsigned nodes) : env(cpus, nodes) {}
};

struct step_process : step_env_holder, model_process<step_env> {
    explicit step_process(unsigned cpus, unsigned nodes = 1)
        : step_env_holder(cpus, nodes), model_process<step_env>(env)
    {
    }

    // pthread_create(): copy_process() sizes the hash, then the child joins
    // the thread group.
    int clone_thread()
    {
        const int ret = copy_process_futex();
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
        return prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS, slots);
    }
    int get_slots() { return prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0); }
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
};

}  // namespace futexsim::sim
