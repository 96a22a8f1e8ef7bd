// The one door between the model and whatever runs it.
//
// model/ mirrors kernel/futex/*.c and knows nothing of fibers, threads or
// time. Everything the kernel gets from elsewhere (the current CPU, per-CPU
// storage, preemption, atomics on shared words, RCU, the mutex,
// wait_var_event, CPU and thread counts; for the wait, wake-op and requeue
// paths also user memory, `current` and the sleep itself, see
// futex_wait_env below) it gets from an environment type
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
template <class Env>
struct futex_q;

// include/linux/sched.h: the task states the futex code sets and wakes.
inline constexpr unsigned TASK_RUNNING = 0x0000;
inline constexpr unsigned TASK_INTERRUPTIBLE = 0x0001;
inline constexpr unsigned TASK_UNINTERRUPTIBLE = 0x0002;
inline constexpr unsigned TASK_NORMAL = TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE;

// How a futex sleep ended, as futex_do_wait()'s caller tells it apart: the
// timer fired (`to && !to->task`), a signal is pending, or neither (a wake,
// or a spurious return: the model tells those apart by whether the futex_q
// is still queued, as the kernel does).
enum class sleep_end : unsigned char {
    wakeup,
    timeout,
    signal,
};

// The environment interface, checked at compile time. `word<T>` is a shared
// word (a long, an int or a pointer in the kernel) that lives on a cache line.
template <class E>
concept futex_env = requires(E& env, const E& cenv, typename E::template word<long>& wl,
                             typename E::template word<int>& wi, long l, int i, long& lref,
                             typename E::percpu_uint& pcpu, typename E::mutex_t& mtx,
                             typename E::spinlock_t& spin, rcu_head* head,
                             void (*cb)(rcu_head*), unsigned cpu, unsigned long cookie,
                             const void* var, void* task, const trace_point& tp) {
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
    // A full barrier on an architecture whose atomic_inc()/atomic_dec() are
    // relaxed (arm64); a compiler barrier where they are locked (x86).
    env.smp_mb__after_atomic();

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
    // synchronize_rcu(): block the caller until a full grace period has
    // passed. Not used by v6.17's futex code: rcu_sync_enter() needs it (the
    // rwsem-gate policy, model/policies/rwsem_gate.h). Called with no lock
    // held and outside any RCU read-side section.
    env.synchronize_rcu();

    // sleeping locks, spinlocks and var waits
    env.mutex_lock(mtx);
    env.mutex_unlock(mtx);
    env.spin_lock(spin);
    env.spin_unlock(spin);
    env.wake_up_var(var);
    // wait_var_event(var, cond) (a template, so not in this list): sleep
    // uninterruptibly until cond() holds, re-checking after each
    // wake_up_var(var). Policies also wait on addresses inside the mm (the
    // gate, its `block` word, its rcu_sync), each woken by its own
    // wake_up_var(). As in the kernel, the first check runs in TASK_RUNNING
    // and the later ones with the task already TASK_UNINTERRUPTIBLE, so a
    // blocking call (a mutex) in any but a first check that succeeds is the
    // kernel's might_sleep() warning: env.warn() it. A wake that comes after the wait began is
    // never lost, also not one that comes while cond() sleeps.
    // wait_var_woken(var, cond) (a template too): the same wait written as
    // v7.2.1's futex_hash_allocate() open-codes it (add_wait_queue() with
    // woken_wake_bit_function(), smp_mb(), while (!cond() && wait_woken()),
    // remove_wait_queue()): cond() runs in TASK_RUNNING and may sleep.
    env.wake_up_task(task);  // wake_up_q(): a futex_q's waiter was unqueued

    // The calling task's state (current->__state): set_current_state() before
    // a futex sleep, read and restored by a policy that runs in the middle
    // of an operation (rwsem-gate's writer). TASK_RUNNING, TASK_INTERRUPTIBLE
    // or TASK_UNINTERRUPTIBLE (below). An environment that keeps no state
    // per task may ignore the set and read TASK_RUNNING: its futex_sleep()
    // then keeps any wake that comes after the q is queued.
    env.set_current_state(0u);
    { env.get_current_state() } -> std::convertible_to<unsigned>;

    // Whether the calling task's stack is being unwound (an environment that
    // tears its tasks down by unwinding them, as the simulator does at the
    // end of a run, or one that throws out of the model): the model's scope
    // guards then still run, but start nothing new (rwsem-gate's pivot).
    { cenv.unwinding() } -> std::same_as<bool>;

    // observation only: a tracepoint never changes what the model does
    env.trace(tp);
};

// What the operations that sleep or touch the futex word need on top
// (model/waitwake.h, model/requeue.h): user memory, `current`, and the sleep.
//
// - futex_get_value(uaddr, &val): read the u32 futex word, 0 or -EFAULT_;
//   stands in for futex_get_value_locked() and get_user().
// - arch_futex_atomic_op_inuser(op, oparg, &oldval, uaddr): the
//   architecture's atomic read-modify-write for FUTEX_WAKE_OP (FUTEX_OP_SET,
//   _ADD, _OR, _ANDN, _XOR on the word, old value out): 0, -EFAULT_, -EAGAIN_
//   (try again) or -ENOSYS_ (an op it does not know).
// - current_task(): the task a futex_q records (q->task = current).
// - futex_sleep(q, timeout_ns): schedule() in futex_do_wait(), called with
//   the q queued, no lock and no hash reference held; returns when the task
//   is woken, its timer fires (timeout_ns >= 0, relative) or a signal
//   arrives. As in the kernel, the task's state decides: futex_wait_setup()
//   sets TASK_INTERRUPTIBLE before futex_queue(), a wake_up_task() since
//   then set it TASK_RUNNING and the sleep returns at once; a wake that
//   came while the task was TASK_RUNNING (a policy's writer that runs in
//   the middle of the wait) is used up and does not end this sleep. An
//   environment without task states (set_current_state() ignored) keeps
//   every wake that came after the q was queued.
template <class E>
concept futex_wait_env = futex_env<E> &&
    requires(E& env, std::uint64_t uaddr, std::uint32_t* val, int op, int oparg, int* oldval,
             futex_q<E>* q, long timeout_ns) {
        { env.futex_get_value(uaddr, val) } -> std::same_as<int>;
        { env.arch_futex_atomic_op_inuser(op, oparg, oldval, uaddr) } -> std::same_as<int>;
        { env.current_task() } -> std::convertible_to<void*>;
        { env.futex_sleep(q, timeout_ns) } -> std::same_as<sleep_end>;
    };

}  // namespace futexsim::model
