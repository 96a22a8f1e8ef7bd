// One process on the step environment: an mm, the global hash, and the
// thread count clone() maintains. What tests and the scripted demo drive.
#pragma once

#include "model/core.h"
#include "model/fork.h"
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
};

}  // namespace futexsim::sim
