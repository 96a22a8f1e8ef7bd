// rcu_sync of kernel/rcu/sync.c and include/linux/rcu_sync.h (Linux v6.17):
// lets readers use a fast path while no updater is about, and forces them
// onto a slow path, one grace period after rcu_sync_enter(), until a grace
// period after rcu_sync_exit(). Used by the percpu-rwsem of
// model/percpu_rwsem.h. One function per kernel function, same names.
//
// rss_lock: gp_state and gp_count change with no environment call in
// between (a simulator switches tasks only inside one), which gives the
// lock's atomicity, also against rcu_sync_func() run as an RCU callback; so
// the lock itself is not modelled. `gp_state_pub` is the same state as
// readers see it (rcu_sync_is_idle()'s READ_ONCE()): a shared word, so that
// its cost is charged and a reader can see it late, as one can on real
// hardware.
#pragma once

#include "model/bug.h"
#include "model/futex.h"

namespace futexsim::model {

// gp_state: GP_IDLE is the readers' fast path.
inline constexpr int GP_IDLE = 0;
inline constexpr int GP_ENTER = 1;
inline constexpr int GP_PASSED = 2;
inline constexpr int GP_EXIT = 3;
inline constexpr int GP_REPLAY = 4;

// struct rcu_sync, plus the environment (what the kernel reaches implicitly).
template <class Env>
struct rcu_sync {
    Env* env = nullptr;
    int gp_state = GP_IDLE;
    int gp_count = 0;
    rcu_head cb_head;  // cb_head.owner is the rcu_sync (container_of)
    alignas(64) typename Env::template word<int> gp_state_pub{};
};

// rcu_sync_init()
template <class Env>
void rcu_sync_init(rcu_sync<Env>* rsp, Env& env)
{
    rsp->env = &env;
    rsp->gp_state = GP_IDLE;
    rsp->gp_count = 0;
    rsp->cb_head.owner = rsp;
    env.atomic_set(rsp->gp_state_pub, GP_IDLE);
}

// rcu_sync_is_idle(): READ_ONCE(rsp->gp_state) == GP_IDLE.
template <class Env>
bool rcu_sync_is_idle(rcu_sync<Env>* rsp)
{
    return rsp->env->atomic_read(rsp->gp_state_pub) == GP_IDLE;
}

// WRITE_ONCE(rsp->gp_state, state): the plain state, then what readers see.
template <class Env>
void rcu_sync_set_state(rcu_sync<Env>* rsp, int state)
{
    rsp->gp_state = state;
    rsp->env->atomic_set(rsp->gp_state_pub, state);
}

// rcu_sync_func(): a grace period after rcu_sync_enter() (called directly)
// or rcu_sync_exit() (as an RCU callback).
template <class Env>
void rcu_sync_func(rcu_head* rhp)
{
    auto* rsp = static_cast<rcu_sync<Env>*>(rhp->owner);
    Env& env = *rsp->env;

    WARN_ON_ONCE(env, rsp->gp_state == GP_IDLE, "rcu_sync_func: GP_IDLE");
    WARN_ON_ONCE(env, rsp->gp_state == GP_PASSED, "rcu_sync_func: GP_PASSED");

    if (rsp->gp_count) {
        // At least a grace period after GP_IDLE -> GP_ENTER.
        rcu_sync_set_state(rsp, GP_PASSED);
        env.wake_up_var(rsp);
    } else if (rsp->gp_state == GP_REPLAY) {
        // Another enter/exit pair came meanwhile: one more grace period.
        // Published before the callback is queued, so that no later store
        // can land after the callback's GP_IDLE.
        rcu_sync_set_state(rsp, GP_EXIT);
        env.call_rcu_hurry(&rsp->cb_head, &rcu_sync_func<Env>);
    } else {
        // A grace period after the last exit: readers' fast path again.
        rcu_sync_set_state(rsp, GP_IDLE);
    }
}

// rcu_sync_enter(): force readers onto the slow path. Alone, it waits a
// grace period; shortly after an rcu_sync_exit() it does not.
template <class Env>
void rcu_sync_enter(rcu_sync<Env>* rsp)
{
    Env& env = *rsp->env;

    const int gp_state = rsp->gp_state;
    if (gp_state == GP_IDLE) {
        rsp->gp_state = GP_ENTER;
        WARN_ON_ONCE(env, rsp->gp_count != 0, "rcu_sync_enter: gp_count");
    }
    rsp->gp_count++;
    if (gp_state == GP_IDLE) {
        env.atomic_set(rsp->gp_state_pub, GP_ENTER);
        // Readers that saw GP_IDLE are out of their fast path after this.
        env.synchronize_rcu();
        rcu_sync_func<Env>(&rsp->cb_head);
        return;
    }
    env.wait_var_event(rsp, [rsp] { return rsp->gp_state >= GP_PASSED; });
}

// rcu_sync_exit(): readers may use the fast path again a grace period later.
template <class Env>
void rcu_sync_exit(rcu_sync<Env>* rsp)
{
    Env& env = *rsp->env;

    WARN_ON_ONCE(env, rsp->gp_state == GP_IDLE, "rcu_sync_exit: GP_IDLE");
    WARN_ON_ONCE(env, rsp->gp_count == 0, "rcu_sync_exit: gp_count");
    if (--rsp->gp_count)
        return;
    if (rsp->gp_state == GP_PASSED) {
        rcu_sync_set_state(rsp, GP_EXIT);
        env.call_rcu_hurry(&rsp->cb_head, &rcu_sync_func<Env>);
    } else if (rsp->gp_state == GP_EXIT) {
        rcu_sync_set_state(rsp, GP_REPLAY);
    }
}

}  // namespace futexsim::model
