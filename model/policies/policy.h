// The pivot policy interface: the points where the fixes proposed for the
// pivot stall differ from stock v6.17, as hooks the model calls.
//
// Not kernel code: each policy stands for a kernel diff (docs/policies.md),
// and each hook for a place such a diff touches. The hooks:
//
// - policy_futex_op_begin(mm, op) / policy_futex_op_end(mm, op): around the
//   part of a futex operation that takes hash references. begin runs before
//   the first futex_hash() (so before any reference), end after the last
//   futex_hash_put(). Sites: futex_wake(), futex_wake_op(),
//   futex_wait_setup() (the wait's reference scope: a waiter must not sleep
//   inside it) and futex_requeue(). `policy_op_guard` pairs them for every
//   way out of the scope.
// - policy_pivot_parked(mm): futex_hash_allocate() parked a new hash in
//   futex_phash_new (a pivot is requested), under futex_hash_lock.
// - policy_ref_dead(mm): the count drained, by the last futex_ref_put()
//   (futex_private_hash_put()) or by the fold in __futex_ref_atomic_end().
// - policy_pivot_installed(mm, new_): __futex_pivot_hash() published new_.
//
// Why an int in mm_struct and a switch, not a virtual interface: the
// simulator makes billions of these calls, almost all on the fast path
// (stock, or any policy with no pivot pending). A virtual call there is an
// indirect branch and a pointer chase per call, and blocks inlining; an id
// tested against stock (0) is one well-predicted compare-and-branch, and for
// the other policies the dispatch below (a chain of compares the compiler
// may turn into a jump table) inlines each policy's hook, whose own fast
// path is then one more predictable test. The policy is chosen at run time
// (`futexsim run --policy`), so a template parameter on mm_struct would
// multiply every instantiation of the model by the number of policies.
//
// Per-mm state: a policy that needs some declares a template
// `mm_state<Env>` deriving from policy_mm_state (model/futex.h);
// futex_set_pivot_policy() allocates it in mm->futex_policy_state before the
// policy's mm_init(), and the hooks reach it through policy_state<P>(mm).
// The policy's word_name(mm, addr) names the shared words of that state for
// traces (the explorer's step lines).
//
// Writing a policy: one file in model/policies/ defining a struct that
// derives from stock_policy (model/policies/stock.h) and hides the hooks
// it changes, plus its #include and one line in model/policies/registry.h.
// Worked examples: docs/policies.md, docs/extending.md.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "model/futex.h"

namespace futexsim::model {

// Which operation a policy_futex_op_* hook is called from.
enum class futex_op : unsigned char {
    wake,     // futex_wake()
    wake_op,  // futex_wake_op()
    wait,     // futex_wait_setup(), once per futex_wait() pass
    requeue,  // futex_requeue() (FUTEX_REQUEUE, FUTEX_CMP_REQUEUE, FUTEX_CMP_REQUEUE_PI)
    wait_requeue_pi,  // futex_wait_setup() called by futex_wait_requeue_pi()
};

// mm->futex_policy of stock v6.17: the registry keeps it first.
inline constexpr int pivot_policy_stock = 0;

// The hooks. Defined in model/policies/registry.h, which model/core.h
// includes at its end, after every function a policy may call.
template <class Env>
void policy_futex_op_begin(mm_struct<Env>* mm, futex_op op);
template <class Env>
void policy_futex_op_end(mm_struct<Env>* mm, futex_op op);
template <class Env>
void policy_pivot_parked(mm_struct<Env>* mm);
template <class Env>
void policy_ref_dead(mm_struct<Env>* mm);
template <class Env>
void policy_pivot_installed(mm_struct<Env>* mm, private_hash<Env>* new_);

// policy_futex_op_begin() now, policy_futex_op_end() when the scope ends,
// however it is left. Under stock each is one compare that never branches.
template <class Env>
struct policy_op_guard {
    mm_struct<Env>* const mm;
    const futex_op op;
    policy_op_guard(mm_struct<Env>* m, futex_op o) : mm(m), op(o)
    {
        if (mm->futex_policy != pivot_policy_stock) [[unlikely]]
            policy_futex_op_begin(mm, op);
    }
    ~policy_op_guard() noexcept(false)  // as model/cleanup.h's guards
    {
        if (mm->futex_policy != pivot_policy_stock) [[unlikely]]
            policy_futex_op_end(mm, op);
    }
    policy_op_guard(const policy_op_guard&) = delete;
    policy_op_guard& operator=(const policy_op_guard&) = delete;
};

// The per-mm state of policy P in mm (P::mm_state<Env>, model/futex.h's
// policy_mm_state). Only P's own hooks call it, so the state is P's.
template <class P, class Env>
typename P::template mm_state<Env>& policy_state(mm_struct<Env>* mm)
{
    return static_cast<typename P::template mm_state<Env>&>(*mm->futex_policy_state);
}
template <class P, class Env>
const typename P::template mm_state<Env>& policy_state(const mm_struct<Env>* mm)
{
    return static_cast<const typename P::template mm_state<Env>&>(*mm->futex_policy_state);
}

// Whether policy P keeps per-mm state (declares a template mm_state<Env>).
template <class P, class Env>
concept has_mm_state = requires { typename P::template mm_state<Env>; };

// The registry's shape: a list of policy types, the id of each its index.
template <class... P>
struct policy_list {
    static constexpr std::size_t size = sizeof...(P);
    static constexpr std::string_view names[] = {P::name...};
    static constexpr std::string_view summaries[] = {P::summary...};

    // f.template operator()<P>() for the policy whose id is `id`; nothing for
    // an id out of range.
    template <class F>
    static void dispatch(int id, F&& f)
    {
        int i = 0;
        (void)((i++ == id ? (f.template operator()<P>(), true) : false) || ...);
    }
    template <class Q>
    static constexpr int id_of()
    {
        int i = 0;
        int found = -1;
        (void)((std::is_same_v<Q, P> ? (found = i, true) : (++i, false)) || ...);
        return found;
    }
};

// policy_list<P..., Q...> from policy_list<P...> and policy_list<Q...>.
template <class A, class B>
struct policy_list_cat_impl;
template <class... P, class... Q>
struct policy_list_cat_impl<policy_list<P...>, policy_list<Q...>> {
    using type = policy_list<P..., Q...>;
};
template <class A, class B>
using policy_list_cat = typename policy_list_cat_impl<A, B>::type;

}  // namespace futexsim::model
