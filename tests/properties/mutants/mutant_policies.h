// Mutant pivot policies: deliberately broken variants, built only into the
// test-only executables. tests/CMakeLists.txt names this file in
// FUTEXSIM_EXTRA_POLICIES, and model/policies/registry.h registers its
// `extra_policies` after the real policies. Each must be caught by the
// properties (docs/testing.md, "Mutants").
//
// Like every policy file, included from model/policies/registry.h at the
// end of model/core.h.
#pragma once

#include <string_view>

#include "model/policies/stock.h"
#include "model/policies/wait_for_new.h"

namespace futexsim::model {

// Installs the new hash as soon as it is parked, without waiting for the
// current one's count to drain.
struct eager_install_policy : stock_policy {
    static constexpr std::string_view name = "mutant-eager-install";
    static constexpr std::string_view summary = "MUTANT: installs without waiting for the count to drain";

    template <class Env>
    static void pivot_parked(mm_struct<Env>* mm)
    {
        Env& env = *mm->env;
        private_hash<Env>* new_ = mm->futex_phash_new;
        mm->futex_phash_new = nullptr;
        private_hash<Env>* old = env.atomic_read(mm->futex_phash);
        futex_rehash_private(old, new_);  // __futex_pivot_hash() without its futex_ref_is_dead()
        env.atomic_set(new_->state, FR_PERCPU);
        {
            rcu_guard<Env> rcu(env);
            mm->futex_batches = env.get_state_synchronize_rcu();
            env.smp_store_release(mm->futex_phash, new_);
        }
        env.trace({trace_kind::pivot_install, fph_slots(new_), new_->custom ? 1 : 0});
        env.kvfree_rcu(old);
    }
};

// wait-for-new that gates wake and wake_op but lets waits through.
struct ungated_wait_policy : wait_for_new_policy {
    static constexpr std::string_view name = "mutant-ungated-wait";
    static constexpr std::string_view summary = "MUTANT: wait-for-new gating wake but not wait";

    template <class Env>
    static void futex_op_begin(mm_struct<Env>* mm, futex_op op)
    {
        if (op == futex_op::wait)
            return;
        wait_for_new_policy::futex_op_begin(mm, op);
    }
};

// What model/policies/registry.h registers after the real policies.
using extra_policies = policy_list<eager_install_policy, ungated_wait_policy>;

}  // namespace futexsim::model
