// A step-by-step environment: one caller, no time. The caller (a test or the
// scripted demo) decides on which CPU each call runs and when each RCU grace
// period ends, so every state of the refcount machine can be reached and
// inspected exactly.
//
// Futex words live in `user_memory`. A waiter that goes to sleep in
// futex_wait() calls the on_futex_sleep() hook, which plays the other
// threads (wake it, requeue it, start more waiters, pivot the hash) and
// returns; the sleep then ends as the hook left it.
//
// RCU's grace-period sequence and callback lists are the kernel runtime's
// (sim/kernel/rcu_gp.h), the ones the simulator and the explorer run; here
// the caller is their clock (end_grace_period()).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/atomic.h"
#include "model/futex.h"
#include "sim/kernel/rcu_gp.h"
#include "sim/kernel/words.h"

namespace futexsim::sim {

// Thrown when the model would block forever (a wait no step can satisfy) or
// a lock is taken twice by the single caller.
struct step_deadlock : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class step_env {
public:
    template <class T>
    using word = kernel::plain_word<T>;
    using percpu_uint = kernel::plain_percpu_uint;
    struct mutex_t {
        bool locked = false;
    };
    // A pointer one task hands another outside any lock (q->lock_ptr). Tasks
    // here take turns on one OS thread, so a plain pointer is exact.
    template <class T>
    using handoff_ptr = T*;
    struct spinlock_t {
        bool locked = false;
    };

    explicit step_env(unsigned possible_cpus, unsigned possible_nodes = 1)
        : possible_cpus_(possible_cpus), online_cpus_(possible_cpus), nodes_(possible_nodes)
    {
    }
    ~step_env()
    {
        for (auto& free : gp_.take_frees())
            free();
    }
    step_env(const step_env&) = delete;
    step_env& operator=(const step_env&) = delete;

    // --- what the caller controls -------------------------------------
    void set_cpu(unsigned cpu)
    {
        if (cpu >= possible_cpus_)
            throw std::out_of_range("step_env: no such CPU");
        cpu_ = cpu;
    }
    void set_nr_threads(unsigned n) { nr_threads_ = n; }
    void set_online_cpus(unsigned n) { online_cpus_ = n; }
    // Called while a wait_var_event() condition is false; it must change
    // something (end a grace period, drop a reference) and return true, or
    // return false to declare a deadlock.
    void on_block(std::function<bool()> f) { on_block_ = std::move(f); }

    // User memory: the futex words by address. An address not here faults.
    std::map<std::uint64_t, std::uint32_t> user_memory;

    // `current` as a futex_q records it (q->task).
    void set_task(void* t) { task_ = t; }
    // Called by futex_sleep() with the sleeping waiter's futex_q, queued, no
    // lock and no hash reference held: whatever the other threads do while
    // it sleeps. It may call futex_wait() again (a nested sleeper). When it
    // returns, the sleep ends with a wakeup if q was unqueued; else with
    // what end_sleep_with() asked for; else with the timeout if there was
    // one; else as if a signal arrived, so that futex_wait() unqueues q and
    // returns -ERESTARTSYS rather than sleeping forever.
    void on_futex_sleep(std::function<void(model::futex_q<step_env>*)> f)
    {
        on_futex_sleep_ = std::move(f);
    }
    // From inside the hook: end the innermost sleep this way even if q is
    // still queued (sleep_end::wakeup with q queued is a spurious wakeup).
    void end_sleep_with(model::sleep_end e)
    {
        if (!forced_ends_.empty())
            forced_ends_.back() = e;
    }
    // Waiters asleep now, innermost last.
    const std::vector<const void*>& sleepers() const { return sleepers_; }
    unsigned long futex_sleeps() const { return futex_sleeps_; }
    unsigned long interrupted_sleeps() const { return interrupted_sleeps_; }
    // Every task wake_up_task() woke, in order.
    const std::vector<void*>& woken_tasks() const { return woken_tasks_; }

    // End the current grace period: run the callbacks it was waiting for,
    // and free what kvfree_rcu() queued before it.
    void end_grace_period();
    // Callbacks queued and not yet run.
    std::size_t pending_callbacks() const { return gp_.callbacks_waiting(); }
    unsigned long completed_grace_periods() const { return gp_.completed(); }

    // Every tracepoint the model emitted, in order.
    const std::vector<model::trace_point>& trace_log() const { return trace_; }
    void clear_trace() { trace_.clear(); }
    std::function<void(const model::trace_point&)> on_trace;
    unsigned wake_ups() const { return wake_ups_; }
    // spin_lock() calls so far (bucket locks, mostly).
    unsigned long spin_locks() const { return spin_locks_; }
    // What the innermost wait_var_event() in progress waits on (an mm, a
    // policy's gate word, or this env for synchronize_rcu()), nullptr if none:
    // for an on_block() hook to tell who is blocked.
    const void* blocked_on() const { return blocked_on_.empty() ? nullptr : blocked_on_.back(); }
    // Times a wait_var_event() condition was false and on_block() was asked.
    unsigned long blocks() const { return blocks_; }
    unsigned long synchronize_rcu_calls() const { return synchronize_rcu_calls_; }
    // Writes and read-modify-writes of shared words (`word<T>`) so far: what
    // would move a cache line between CPUs. Per-CPU counters are not words.
    unsigned long shared_writes() const { return shared_writes_; }
    const std::vector<std::string>& warnings() const { return warnings_; }

    // --- the model's environment interface ----------------------------
    unsigned smp_processor_id() const { return cpu_; }
    unsigned num_online_cpus() const { return online_cpus_; }
    unsigned num_possible_cpus() const { return possible_cpus_; }
    unsigned num_possible_nodes() const { return nodes_; }
    unsigned get_nr_threads() const { return nr_threads_; }
    void preempt_disable() { ++preempt_count_; }
    void preempt_enable() { --preempt_count_; }

    template <class T>
    T atomic_read(const word<T>& w) const { return w.v; }
    template <class T, class U>
    void atomic_set(word<T>& w, U v)
    {
        ++shared_writes_;
        w.v = static_cast<T>(v);
    }
    template <class T>
    T smp_load_acquire(const word<T>& w) const { return w.v; }
    template <class T, class U>
    void smp_store_release(word<T>& w, U v)
    {
        ++shared_writes_;
        w.v = static_cast<T>(v);
    }
    template <class T>
    bool atomic_try_cmpxchg(word<T>& w, T& old, T new_)
    {
        ++shared_writes_;  // a failed lock cmpxchg takes the line too
        if (w.v == old) {
            w.v = new_;
            return true;
        }
        old = w.v;
        return false;
    }
    template <class T>
    T atomic_add_return(word<T>& w, T delta)
    {
        ++shared_writes_;
        w.v = model::wrapping_add(w.v, delta);
        return w.v;
    }
    template <class T>
    bool atomic_dec_and_test(word<T>& w) { return atomic_add_return(w, T{-1}) == 0; }
    template <class T>
    void atomic_inc(word<T>& w)
    {
        ++shared_writes_;
        ++w.v;
    }
    template <class T>
    void atomic_dec(word<T>& w)
    {
        ++shared_writes_;
        --w.v;
    }

    void smp_mb() {}
    void smp_mb__after_atomic() {}

    std::unique_ptr<percpu_uint> alloc_percpu_uint()
    {
        auto p = std::make_unique<percpu_uint>();
        p->v.assign(possible_cpus_, 0);
        return p;
    }
    void this_cpu_inc(percpu_uint& p) { ++p.v[cpu_]; }
    void this_cpu_dec(percpu_uint& p) { --p.v[cpu_]; }
    unsigned per_cpu_read(const percpu_uint& p, unsigned cpu) const { return p.v[cpu]; }
    void per_cpu_write(percpu_uint& p, unsigned cpu, unsigned v) { p.v[cpu] = v; }

    void rcu_read_lock() { ++rcu_nesting_; }
    void rcu_read_unlock() { --rcu_nesting_; }
    // A cookie is the number of grace periods that must have completed (no
    // grace period is ever in progress here: the next one is the one that
    // counts).
    unsigned long get_state_synchronize_rcu() const { return gp_.get_state(); }
    bool poll_state_synchronize_rcu(unsigned long cookie) const { return gp_.poll_state(cookie); }
    void call_rcu_hurry(model::rcu_head* head, void (*func)(model::rcu_head*))
    {
        head->func = func;
        gp_.call_rcu(cpu_, [head] { head->func(head); });
    }

    void mutex_lock(mutex_t& m)
    {
        if (in_wait_cond_ > 0)  // might_sleep()
            blocking_call_ = true;
        if (m.locked)
            throw step_deadlock("step_env: mutex already held");
        m.locked = true;
    }
    void mutex_unlock(mutex_t& m) { m.locked = false; }
    void spin_lock(spinlock_t& l)
    {
        ++spin_locks_;
        if (l.locked)
            throw step_deadlock("step_env: spinlock already held");
        l.locked = true;
    }
    void spin_unlock(spinlock_t& l) { l.locked = false; }

    // wait_var_event(): the condition runs in TASK_UNINTERRUPTIBLE.
    template <class Cond>
    void wait_var_event(const void* var, Cond cond)
    {
        // might_sleep(): the first check runs in TASK_RUNNING; a blocking
        // call in a later one (after prepare_to_wait()) is the warning. One
        // evaluation stands for the kernel's first two, hence "unless the
        // first one succeeded".
        bool first = true;
        wait_var_woken(var, [this, &cond, &first] {
            ++in_wait_cond_;
            blocking_call_ = false;
            const bool ok = cond();
            --in_wait_cond_;
            if (blocking_call_ && !(first && ok))
                warn("do not call blocking ops when !TASK_RUNNING: mutex_lock() in a wait_var_event() condition");
            first = false;
            return ok;
        });
    }
    // The open-coded wait_woken() loop: the condition runs in TASK_RUNNING.
    // One caller, no other task: nothing can sleep in the condition here.
    template <class Cond>
    void wait_var_woken(const void* var, Cond cond)
    {
        blocked_on_.push_back(var);
        for (int steps = 0; !cond(); steps++) {
            ++blocks_;
            if (steps > 1000 || !on_block_ || !on_block_()) {
                blocked_on_.pop_back();
                throw step_deadlock("step_env: wait_var_event can never be satisfied");
            }
        }
        blocked_on_.pop_back();
    }
    // A step_deadlock this environment threw is leaving the model.
    bool unwinding() const { return std::uncaught_exceptions() != 0; }
    // synchronize_rcu(): a wait_var_event() on the environment itself that
    // the on_block() hook satisfies by ending a grace period.
    void synchronize_rcu()
    {
        if (rcu_nesting_ != 0)
            throw step_deadlock("step_env: synchronize_rcu() inside an RCU read-side section");
        ++synchronize_rcu_calls_;
        const unsigned long cookie = gp_.get_state();
        wait_var_event(this, [this, cookie] { return poll_state_synchronize_rcu(cookie); });
    }
    void wake_up_var(const void* /*var*/) { ++wake_ups_; }
    void wake_up_task(void* t) { woken_tasks_.push_back(t); }
    // No task state here (model/env.h): futex_sleep() keeps every wake that
    // came after the q was queued, which is what the kernel's state gives
    // every path but a PI hand-off (not run on this environment).
    void set_current_state(unsigned) {}
    unsigned get_current_state() const { return 0; }  // TASK_RUNNING

    // --- user memory, current, the sleep (model/env.h futex_wait_env) ----
    void* current_task() const { return task_; }
    int futex_get_value(std::uint64_t uaddr, std::uint32_t* out) const
    {
        const auto it = user_memory.find(uaddr);
        if (it == user_memory.end())
            return -model::EFAULT_;
        *out = it->second;
        return 0;
    }
    // arch_futex_atomic_op_inuser(): the word, then the op (model/futex.h).
    int arch_futex_atomic_op_inuser(int op, int oparg, int* oval, std::uint64_t uaddr)
    {
        const auto it = user_memory.find(uaddr);
        if (it == user_memory.end())
            return -model::EFAULT_;
        const std::uint32_t old = it->second;
        std::uint32_t next = 0;
        const auto arg = static_cast<std::uint32_t>(oparg);
        if (const int ret = model::futex_atomic_op_inuser_local(op, arg, old, &next))
            return ret;
        it->second = next;
        *oval = static_cast<int>(old);
        return 0;
    }
    template <class Q>
    model::sleep_end futex_sleep(Q* q, long timeout_ns)
    {
        ++futex_sleeps_;
        sleepers_.push_back(q);
        forced_ends_.emplace_back();
        if (on_futex_sleep_) {
            auto hook = on_futex_sleep_;  // the hook may replace itself
            try {
                hook(q);
            } catch (...) {
                sleepers_.pop_back();
                forced_ends_.pop_back();
                throw;
            }
        }
        sleepers_.pop_back();
        const std::optional<model::sleep_end> forced = forced_ends_.back();
        forced_ends_.pop_back();
        if (!q->lock_ptr)
            return model::sleep_end::wakeup;  // unqueued by a waker
        if (forced)
            return *forced;
        if (timeout_ns >= 0)
            return model::sleep_end::timeout;
        ++interrupted_sleeps_;
        return model::sleep_end::signal;
    }

    template <class T>
    void kvfree(T* p) { delete p; }
    template <class T>
    void kvfree_rcu(T* p)
    {
        gp_.defer_free([p] { delete p; });
    }

    void warn(const char* what) { warnings_.emplace_back(what); }
    void trace(const model::trace_point& tp)
    {
        trace_.push_back(tp);
        if (on_trace)
            on_trace(tp);
    }

private:
    unsigned possible_cpus_;
    unsigned online_cpus_;
    unsigned nodes_;
    unsigned cpu_ = 0;
    unsigned nr_threads_ = 1;
    int preempt_count_ = 0;
    int rcu_nesting_ = 0;
    kernel::rcu_gp gp_;
    unsigned wake_ups_ = 0;
    unsigned long spin_locks_ = 0;
    unsigned long shared_writes_ = 0;
    unsigned long blocks_ = 0;
    unsigned long synchronize_rcu_calls_ = 0;
    std::vector<const void*> blocked_on_;
    std::vector<model::trace_point> trace_;
    std::vector<std::string> warnings_;
    int in_wait_cond_ = 0;        // evaluating a wait_var_event() condition
    bool blocking_call_ = false;  // a mutex_lock() in that evaluation
    std::function<bool()> on_block_;
    void* task_ = nullptr;
    std::function<void(model::futex_q<step_env>*)> on_futex_sleep_;
    std::vector<std::optional<model::sleep_end>> forced_ends_;  // one per sleeper
    std::vector<const void*> sleepers_;
    std::vector<void*> woken_tasks_;
    unsigned long futex_sleeps_ = 0;
    unsigned long interrupted_sleeps_ = 0;
};

inline void step_env::end_grace_period()
{
    if (rcu_nesting_ != 0)
        throw step_deadlock("step_env: grace period ended inside an RCU read-side section");
    // Run what was due, then free; callbacks queued by these callbacks wait
    // for the next grace period.
    kernel::rcu_gp::ended done = gp_.end_gp();
    for (auto& cb : done.callbacks)
        cb.fn();
    for (auto& free : done.frees)
        free();
}

}  // namespace futexsim::sim
