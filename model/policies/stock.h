// stock: Linux v6.17 as released. Every hook does nothing; the other
// policies derive from this one and hide only the hooks they change.
//
// Like every file in model/policies/, this is included from
// model/policies/registry.h at the end of model/core.h: include model/core.h,
// not this file.
#pragma once

#include <string_view>
#include <vector>

#include "model/policies/policy.h"

namespace futexsim::model {

struct stock_policy {
    static constexpr std::string_view name = "stock";
    static constexpr std::string_view summary = "Linux v6.17: no change";

    // mm->futex_policy was just set to this policy: set up its per-mm state
    // (a policy that keeps some declares `template <class Env> struct
    // mm_state`, found allocated in mm->futex_policy_state; see rwsem_gate.h).
    template <class Env>
    static void mm_init(mm_struct<Env>* /*mm*/)
    {
    }
    // The name a trace gives the word at `addr` if it is one of this
    // policy's per-mm words (its mm_state), "" if not.
    template <class Env>
    static std::string_view word_name(const mm_struct<Env>* /*mm*/, const void* /*addr*/)
    {
        return {};
    }
    // Not a hook: where this policy's gate is closed, which the explorer's
    // "parked hash drains" property checks (sim/explore/parked_drains.h):
    // no futex call that begins while it is closed may take a reference on
    // the hash being replaced. Stock has no gate; closed while a hash is
    // parked, so stock breaks the property as v6.17 stalls. gate_words()
    // lists the words gate_closed() reads.
    template <class Env>
    static bool gate_closed(const mm_struct<Env>* mm)
    {
        return mm->futex_phash_new != nullptr;
    }
    template <class Env>
    static std::vector<const void*> gate_words(const mm_struct<Env>* mm)
    {
        return {&mm->futex_phash_new};
    }
    template <class Env>
    static void futex_op_begin(mm_struct<Env>* /*mm*/, futex_op /*op*/)
    {
    }
    template <class Env>
    static void futex_op_end(mm_struct<Env>* /*mm*/, futex_op /*op*/)
    {
    }
    template <class Env>
    static void pivot_parked(mm_struct<Env>* /*mm*/)
    {
    }
    template <class Env>
    static void ref_dead(mm_struct<Env>* /*mm*/)
    {
    }
    template <class Env>
    static void pivot_installed(mm_struct<Env>* /*mm*/, private_hash<Env>* /*new_*/)
    {
    }
};

}  // namespace futexsim::model
