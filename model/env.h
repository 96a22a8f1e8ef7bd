// The one door between the model and whatever runs it.
//
// model/ mirrors kernel/futex/*.c and knows nothing of fibers, threads or
// time. Everything the kernel gets from elsewhere (the current CPU, per-CPU
// storage, preemption, atomics on shared words, RCU, the mutex,
// wait_var_event, CPU and thread counts) it gets from an environment type
// `Env`, passed as a template parameter so that the simulator's billions of
// calls inline and the threads backend measures the real cost of an atomic,
// not of a virtual call.
//
// Every access to a word that other CPUs can see goes through Env, so a
// simulator can charge it (cache-line transfer) and switch tasks there.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>

namespace futexsim::model {

struct rcu_head;
struct trace_point;

// The environment interface, checked at compile time. `word<T>` is a shared
// word (a long, an int or a pointer in the kernel) that lives on a cache line.
template <class E>
concept futex_env = requires(E& env, const E& cenv, typename E::template word<long>& wl,
                             typename E::template word<int>& wi, long l, int i, long& lref,
                             typename E::percpu_uint& pcpu, typename E::mutex_t& mtx,
                             typename E::spinlock_t& spin, rcu_head* head,
                             void (*cb)(rcu_head*), unsigned cpu, unsigned long cookie,
                             const void* var, const trace_point& tp) {
    // CPUs and the process
    { cenv.smp_processor_id() } -> std::convertible_to<unsigned>;
    { cenv.num_online_cpus() } -> std::convertible_to<unsigned>;
    { cenv.num_possible_cpus() } -> std::convertible_to<unsigned>;
    { cenv.num_possible_nodes() } -> std::convertible_to<unsigned>;
    { cenv.get_nr_threads() } -> std::convertible_to<unsigned>;
    env.preempt_disable();
    env.preempt_enable();

    // shared words: each call is one access the environment may charge
    { env.atomic_read(wl) } -> std::same_as<long>;
    env.atomic_set(wl, l);
    { env.smp_load_acquire(wi) } -> std::same_as<int>;
    env.smp_store_release(wi, i);
    { env.atomic_try_cmpxchg(wl, lref, l) } -> std::same_as<bool>;
    { env.atomic_add_return(wl, l) } -> std::same_as<long>;
    { env.atomic_dec_and_test(wl) } -> std::same_as<bool>;
    env.atomic_inc(wi);
    env.atomic_dec(wi);
    env.smp_mb();

    // per-CPU unsigned counters (mm->futex_ref)
    { env.alloc_percpu_uint() } -> std::same_as<std::unique_ptr<typename E::percpu_uint>>;
    env.this_cpu_inc(pcpu);
    env.this_cpu_dec(pcpu);
    { env.per_cpu_read(pcpu, cpu) } -> std::same_as<unsigned>;
    env.per_cpu_write(pcpu, cpu, 0u);

    // RCU
    env.rcu_read_lock();
    env.rcu_read_unlock();
    { env.get_state_synchronize_rcu() } -> std::same_as<unsigned long>;
    { env.poll_state_synchronize_rcu(cookie) } -> std::same_as<bool>;
    env.call_rcu_hurry(head, cb);

    // sleeping locks, spinlocks and var waits
    env.mutex_lock(mtx);
    env.mutex_unlock(mtx);
    env.spin_lock(spin);
    env.spin_unlock(spin);
    env.wake_up_var(var);

    // observation only: a tracepoint never changes what the model does
    env.trace(tp);
};

}  // namespace futexsim::model
