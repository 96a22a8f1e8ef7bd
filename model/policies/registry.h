// The pivot policies, by name and id, and the hooks' dispatch. Included at
// the end of model/core.h, after every function a policy may call.
//
// Adding a policy: its file in this folder, its #include and one line in
// `registered_policies` (docs/policies.md). Ids are positions in the list;
// stock stays first, so that mm->futex_policy == 0 is stock.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/policies/policy.h"
#include "model/policies/rwsem_gate.h"
#include "model/policies/rwsem_gate_v1.h"
#include "model/policies/stock.h"
#include "model/policies/wait_for_new.h"
#include "model/policies/wait_for_new_wake.h"

// A build may add policies after these: FUTEXSIM_EXTRA_POLICIES names a
// header that defines `extra_policies`, a policy_list. The test build names
// its mutants so (tests/properties/mutants/mutant_policies.h, set in
// tests/CMakeLists.txt): the model knows nothing of them, and normal builds
// register only these.
#ifdef FUTEXSIM_EXTRA_POLICIES
#include FUTEXSIM_EXTRA_POLICIES
#else
namespace futexsim::model {
using extra_policies = policy_list<>;
}  // namespace futexsim::model
#endif

namespace futexsim::model {

using registered_policies = policy_list_cat<policy_list<
    stock_policy,         // id 0: Linux v6.17
    wait_for_new_policy,  // the maintainer's draft
    rwsem_gate_policy,    // the reporter's percpu-rwsem prototype, reconstructed
    rwsem_gate_v1_policy,     // the same before the PI fix (docs/findings.md)
    wait_for_new_wake_policy  // the maintainer's wake-side-only suggestion
    >, extra_policies>;

// The id of the policy called `name`, if there is one.
inline std::optional<int> pivot_policy_id(std::string_view name)
{
    for (std::size_t i = 0; i < registered_policies::size; i++)
        if (registered_policies::names[i] == name)
            return static_cast<int>(i);
    return std::nullopt;
}

// The name of policy `id` ("" if there is none).
inline std::string_view pivot_policy_name(int id)
{
    if (id < 0 || static_cast<std::size_t>(id) >= registered_policies::size)
        return {};
    return registered_policies::names[id];
}

// "stock, wait-for-new, rwsem-gate": the valid names, for error messages.
inline std::string pivot_policy_names()
{
    std::string out;
    for (std::string_view n : registered_policies::names) {
        if (!out.empty())
            out += ", ";
        out += n;
    }
    return out;
}

// Select policy `id` for a process, after futex_mm_init() and before its
// first futex operation. -EINVAL for an id not in the registry.
template <class Env>
int futex_set_pivot_policy(mm_struct<Env>* mm, int id)
{
    if (id < 0 || static_cast<std::size_t>(id) >= registered_policies::size)
        return -EINVAL_;
    mm->futex_policy = id;
    registered_policies::dispatch(id, [mm]<class P>() {
        if constexpr (has_mm_state<P, Env>)
            mm->futex_policy_state = std::make_unique<typename P::template mm_state<Env>>();
        else
            mm->futex_policy_state.reset();
        P::mm_init(mm);
    });
    return 0;
}

// The name the policy of `mm` gives the word at `addr` in traces (one of its
// per-mm words), "" if it is none of them.
template <class Env>
std::string_view policy_word_name(const mm_struct<Env>* mm, const void* addr)
{
    std::string_view name;
    registered_policies::dispatch(mm->futex_policy, [&]<class P>() { name = P::word_name(mm, addr); });
    return name;
}

template <class Env>
void policy_futex_op_begin(mm_struct<Env>* mm, futex_op op)
{
    registered_policies::dispatch(mm->futex_policy, [mm, op]<class P>() { P::futex_op_begin(mm, op); });
}

template <class Env>
void policy_futex_op_end(mm_struct<Env>* mm, futex_op op)
{
    registered_policies::dispatch(mm->futex_policy, [mm, op]<class P>() { P::futex_op_end(mm, op); });
}

template <class Env>
void policy_pivot_parked(mm_struct<Env>* mm)
{
    if (mm->futex_policy == pivot_policy_stock) [[likely]]
        return;
    registered_policies::dispatch(mm->futex_policy, [mm]<class P>() { P::pivot_parked(mm); });
}

template <class Env>
void policy_ref_dead(mm_struct<Env>* mm)
{
    if (mm->futex_policy == pivot_policy_stock) [[likely]]
        return;
    registered_policies::dispatch(mm->futex_policy, [mm]<class P>() { P::ref_dead(mm); });
}

template <class Env>
void policy_pivot_installed(mm_struct<Env>* mm, private_hash<Env>* new_)
{
    if (mm->futex_policy == pivot_policy_stock) [[likely]]
        return;
    registered_policies::dispatch(mm->futex_policy,
                                  [mm, new_]<class P>() { P::pivot_installed(mm, new_); });
}

}  // namespace futexsim::model
