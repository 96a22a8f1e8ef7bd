// Mutation points: where the property tests' mutants (docs/testing.md)
// break the model on purpose, to show that the properties catch each break.
//
// Not kernel code. In every normal build FUTEXSIM_MUTATIONS is undefined and
// mutated() is the constant `false`: each point compiles away and the model
// is exactly the kernel mirror. Only the test-only executables built with
// -DFUTEXSIM_MUTATIONS=1 (tests/properties/) can switch one on, at run time.
#pragma once

namespace futexsim::model {

enum class mutation : unsigned char {
    none,
    forget_bias,           // __futex_ref_atomic_begin/_end: no LONG_MAX bias
    no_fold_grace_period,  // __futex_ref_atomic_begin: fold at once, no grace period first
    // The ordering primitives (the barrier mutants, docs/testing.md "Weak memory"):
    no_barrier_a,  // futex_hb_waiters_inc: no smp_mb__after_atomic() (barrier A)
    no_barrier_b,  // futex_hb_waiters_pending: no smp_mb() (barrier B)
    plain_phash_publish,  // __futex_pivot_hash: rcu_assign_pointer() a plain store
    plain_atomic_state,   // __futex_ref_atomic_begin: the release of FR_ATOMIC a plain store
    plain_dead_check,     // futex_ref_is_dead: the acquire of the state a plain load
    plain_requeue_state,  // futex_requeue_pi_*: the acquires of requeue_state plain loads
    no_rwsem_mb_a,        // __percpu_down_read_trylock: no smp_mb() (A, matches D)
    no_rwsem_mb_b,        // percpu_up_read: no smp_mb() (B, matches C)
    no_rwsem_mb_c,        // readers_active_check: no smp_mb() (C, matches B)
    plain_rwsem_block_acquire,  // __percpu_down_read_trylock: the acquire of `block` plain
    plain_rwsem_block_release,  // percpu_up_write: the release of `block` a plain store
};

// Two inline namespaces, so that the two definitions of mutated() never
// meet in one program's symbol table.
#ifdef FUTEXSIM_MUTATIONS
inline namespace mutable_points {
inline mutation active_mutation = mutation::none;
inline bool mutated(mutation m) { return active_mutation == m; }
}  // namespace mutable_points
#else
inline namespace fixed_points {
constexpr bool mutated(mutation) { return false; }
}  // namespace fixed_points
#endif

}  // namespace futexsim::model
