// The model's environment on real threads: shared words are std::atomic,
// per-CPU counters are indexed by the CPU the thread runs on, RCU is liburcu
// (real/userspace_rcu.h), sleeping locks are std::mutex, wait_var_event()
// is a condition variable and a futex sleep is a real futex on a per-thread
// word. docs/backends.md says where this differs from the kernel.
#pragma once

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/atomic.h"
#include "model/env.h"
#include "model/futex.h"
#include "real/userspace_rcu.h"
#include "run/pivot_stats.h"

namespace futexsim::real {

class threads_env {
public:
    // Copyable because the model resets a word by assigning a fresh one
    // (futex_hash_bucket init); that happens before anyone else can see it.
    template <class T>
    struct word {
        std::atomic<T> v{};
        word() = default;
        word(const word& o) : v(o.v.load(std::memory_order_relaxed)) {}
        word& operator=(const word& o)
        {
            v.store(o.v.load(std::memory_order_relaxed), std::memory_order_relaxed);
            return *this;
        }
    };
    // One counter per possible CPU, each on its own line.
    struct percpu_uint {
        struct alignas(64) slot {
            std::atomic<unsigned> v{0};
        };
        explicit percpu_uint(unsigned n) : slots(new slot[n]), n(n) {}
        std::unique_ptr<slot[]> slots;
        unsigned n;
    };
    using mutex_t = std::mutex;
    // A std::mutex too: a spinning lock whose holder can be preempted (no
    // preempt_disable in userspace) livelocks on a machine with few CPUs.
    using spinlock_t = std::mutex;
    // A pointer one thread hands another outside any lock (q->lock_ptr: the
    // waker's smp_store_release(NULL), the waiter's READ_ONCE() after its
    // sleep ended, maybe by timeout or stop, not by the wake). Atomic, so the
    // waiter that sees NULL also sees the waker done with its futex_q.
    template <class T>
    using handoff_ptr = std::atomic<T*>;

    // A thread as a futex_q records it (q->task): the word its futex sleep
    // waits on, and its share of the tracepoint counts.
    struct alignas(64) task {
        std::atomic<std::uint32_t> woken{0};
        std::atomic<std::uint64_t> ref_get_percpu{0}, ref_get_atomic{0};
    };

    // The clock of the pivot statistics and of the grace periods' lengths
    // (the process's now_ns()), given at construction: the model may ask
    // for a grace period while its process is still being built, and the
    // callback reads the clock on liburcu's thread.
    struct clock_fn {
        std::int64_t (*fn)(void*) = nullptr;
        void* arg = nullptr;
        std::int64_t operator()() const { return fn ? fn(arg) : 0; }
    };

    // `max_tasks`: every thread that will ever call into the model.
    threads_env(unsigned max_tasks, std::atomic<bool>* stop, clock_fn clock);
    ~threads_env();
    threads_env(const threads_env&) = delete;
    threads_env& operator=(const threads_env&) = delete;

    // --- what the threads process controls ----------------------------
    std::atomic<unsigned> nr_threads{1};  // the main thread
    pivot_stats pivots() const;
    unsigned long completed_grace_periods() const { return gp_completed_.load(); }
    // The mean time from a grace period's request (get_state_synchronize_rcu)
    // to its callback, in ms on `clock`; 0 before one has completed. What
    // run/outcome.h compares a pivot's length with, as the simulator's RCU does.
    double mean_grace_period_ms() const;
    std::vector<std::string> warnings() const;
    // Waits for every RCU callback queued so far (before the mm is freed).
    void rcu_barrier() { urcu::barrier(); }

    // --- CPUs and the process ------------------------------------------
    unsigned smp_processor_id() const;
    unsigned num_online_cpus() const { return online_cpus_; }
    unsigned num_possible_cpus() const { return possible_cpus_; }
    unsigned num_possible_nodes() const { return 1; }
    unsigned get_nr_threads() const { return nr_threads.load(std::memory_order_relaxed); }
    // Userspace cannot stop preemption or migration (see this_cpu_inc()).
    // What the model relies on is the other half of preempt_disable(): in
    // the kernel a preemption-disabled region is an RCU read-side section,
    // so the grace period before __futex_ref_atomic_end() waits for every
    // futex_ref_get()/put() that saw FR_PERCPU to finish its per-CPU add.
    // Here that region is a liburcu read-side section, which gives exactly
    // that guarantee.
    void preempt_disable() { urcu::read_lock(); }
    void preempt_enable() { urcu::read_unlock(); }

    // --- shared words -------------------------------------------------------
    template <class T>
    T atomic_read(word<T>& w) { return w.v.load(std::memory_order_acquire); }
    template <class T, class U>
    void atomic_set(word<T>& w, U v) { w.v.store(static_cast<T>(v), std::memory_order_release); }
    template <class T>
    T smp_load_acquire(word<T>& w) { return w.v.load(std::memory_order_acquire); }
    template <class T, class U>
    void smp_store_release(word<T>& w, U v) { w.v.store(static_cast<T>(v), std::memory_order_release); }
    template <class T>
    bool atomic_try_cmpxchg(word<T>& w, T& old, T new_) { return w.v.compare_exchange_strong(old, new_); }
    // C++20 atomics wrap as the kernel's do (-fno-strict-overflow).
    template <class T>
    T atomic_add_return(word<T>& w, T delta)
    {
        const T old = w.v.fetch_add(delta);
        return static_cast<T>(model::wrapping_add(static_cast<long>(old), static_cast<long>(delta)));
    }
    template <class T>
    bool atomic_dec_and_test(word<T>& w) { return w.v.fetch_sub(1) == 1; }
    template <class T>
    void atomic_inc(word<T>& w) { w.v.fetch_add(1); }
    template <class T>
    void atomic_dec(word<T>& w) { w.v.fetch_sub(1); }
    // The increments here are seq_cst read-modify-writes already.
    void smp_mb__after_atomic() { std::atomic_signal_fence(std::memory_order_seq_cst); }
    void smp_mb()
    {
#if defined(__SANITIZE_THREAD__)
        // TSan has no fences: a seq_cst RMW on one shared word orders as much
        // (x86's smp_mb() is itself a locked add).
        mb_word_.fetch_add(0);
#else
        std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
    }

    // --- per-CPU counters ---------------------------------------------------
    std::unique_ptr<percpu_uint> alloc_percpu_uint()
    {
        return std::make_unique<percpu_uint>(possible_cpus_);
    }
    // The kernel's this_cpu_inc() is one unlocked instruction that cannot be
    // split by preemption. Here the thread can migrate between reading its
    // CPU and the add, so the add is atomic: two threads may briefly share a
    // slot, but no count is ever lost, and only the sum matters
    // (__futex_ref_atomic_end()).
    void this_cpu_inc(percpu_uint& p) { p.slots[smp_processor_id()].v.fetch_add(1, std::memory_order_relaxed); }
    void this_cpu_dec(percpu_uint& p) { p.slots[smp_processor_id()].v.fetch_sub(1, std::memory_order_relaxed); }
    unsigned per_cpu_read(const percpu_uint& p, unsigned cpu) const
    {
        return p.slots[cpu].v.load(std::memory_order_acquire);
    }
    void per_cpu_write(percpu_uint& p, unsigned cpu, unsigned v)
    {
        p.slots[cpu].v.store(v, std::memory_order_release);
    }

    // --- RCU ----------------------------------------------------------------
    void rcu_read_lock() { urcu::read_lock(); }
    void rcu_read_unlock() { urcu::read_unlock(); }
    // liburcu 0.13 has no polled grace periods: a cookie is a request
    // number, and a call_rcu() callback queued with it marks it done.
    unsigned long get_state_synchronize_rcu();
    bool poll_state_synchronize_rcu(unsigned long cookie) const { return gp_completed_.load() >= cookie; }
    void call_rcu_hurry(model::rcu_head* head, void (*func)(model::rcu_head*));
    void synchronize_rcu() { urcu::synchronize(); }
    // Never: each thread leaves the model by returning from its operation.
    bool unwinding() const { return false; }

    // --- locks and var waits --------------------------------------------
    void mutex_lock(mutex_t& m)
    {
        if (in_wait_cond_ > 0)  // might_sleep()
            blocking_call_ = true;
        m.lock();
    }
    void mutex_unlock(mutex_t& m) { m.unlock(); }
    void spin_lock(spinlock_t& l) { l.lock(); }
    void spin_unlock(spinlock_t& l) { l.unlock(); }
    // One condition variable for every var: wake_up_var() is rare (a pivot
    // step), so waking all waiters to re-check costs nothing that matters.
    // Re-checks every millisecond too, for conditions that change without a
    // wake_up_var() (the kernel's are all paired, this is belt and braces).
    // wait_var_event(): the condition runs in TASK_UNINTERRUPTIBLE.
    template <class Cond>
    void wait_var_event(const void* var, Cond cond)
    {
        wait_var(var, cond, false);
    }
    // The open-coded wait_woken() loop: the condition runs in TASK_RUNNING.
    template <class Cond>
    void wait_var_woken(const void* var, Cond cond)
    {
        wait_var(var, cond, true);
    }
    void wake_up_var(const void* /*var*/)
    {
        std::lock_guard lock(var_mu_);
        ++var_gen_;
        var_cv_.notify_all();
    }
    void wake_up_task(void* t);
    // No task state here (model/env.h): futex_sleep() keeps every wake that
    // came after the q was queued, which is what the kernel's state gives
    // every path but a PI hand-off (not run on this environment).
    void set_current_state(unsigned) {}
    unsigned get_current_state() const { return 0; }  // TASK_RUNNING

    // --- user memory, current, the sleep -----------------------------------
    // Futex words are std::atomic<uint32_t> in this process; uaddr is the
    // address.
    int futex_get_value(std::uint64_t uaddr, std::uint32_t* out)
    {
        if (!uaddr)
            return -model::EFAULT_;
        *out = reinterpret_cast<std::atomic<std::uint32_t>*>(uaddr)->load();
        return 0;
    }
    int arch_futex_atomic_op_inuser(int op, int oparg, int* oval, std::uint64_t uaddr);
    void* current_task() { return &me(); }
    // Sleeps on the thread's own word until wake_up_task(), the timeout, or
    // a stop request (reported as a signal, as SIGINT would be).
    template <class Q>
    model::sleep_end futex_sleep(Q* q, long timeout_ns)
    {
        return sleep(static_cast<const void*>(q), timeout_ns);
    }

    template <class T>
    void kvfree(T* p) { delete p; }
    template <class T>
    void kvfree_rcu(T* p)
    {
        urcu::call([](void* x) { delete static_cast<T*>(x); }, p);
    }
    void warn(const char* what);
    void trace(const model::trace_point& tp);

private:
    task& me();
    model::sleep_end sleep(const void* q, long timeout_ns);
    static void gp_done(void* arg);

    unsigned possible_cpus_, online_cpus_;
    std::atomic<bool>* stop_;
    const clock_fn clock_;
    std::unique_ptr<task[]> tasks_;
    unsigned max_tasks_;
    std::atomic<unsigned> next_task_{0};
    std::uint64_t id_;  // tells this env's task slots from an earlier env's
    std::atomic<unsigned long> gp_requested_{0}, gp_completed_{0};
    std::atomic<std::int64_t> gp_ns_sum_{0};    // request-to-callback time, summed
    std::atomic<unsigned long> gp_timed_{0};    // over this many grace periods
    std::atomic<int> mb_word_{0};  // smp_mb() under TSan
    // The condition runs without var_mu_ held: since 8e7ff730dd96 it takes
    // futex_hash_lock, which a waker may hold while it calls wake_up_var().
    // The generation, read before the check, keeps a wake that comes during
    // it (also one that comes while the condition sleeps on the mutex).
    template <class Cond>
    void wait_var(const void* /*var*/, Cond cond, bool woken_form)
    {
        for (bool first = true;; first = false) {
            std::uint64_t gen = 0;
            {
                std::lock_guard lock(var_mu_);
                gen = var_gen_;
            }
            // might_sleep(): as sim_env's (sim/timed/sim_env.h): one evaluation
            // stands for the kernel's TASK_RUNNING check and the one after
            // prepare_to_wait().
            const bool outer = blocking_call_;
            blocking_call_ = false;
            in_wait_cond_ += woken_form ? 0 : 1;
            const bool ok = cond();
            in_wait_cond_ -= woken_form ? 0 : 1;
            if (blocking_call_ && !(first && ok))
                warn_once("do not call blocking ops when !TASK_RUNNING: mutex_lock() in a wait_var_event() condition");
            blocking_call_ = outer;
            if (ok)
                return;
            std::unique_lock lock(var_mu_);
            var_cv_.wait_for(lock, std::chrono::milliseconds(1), [&] { return var_gen_ != gen; });
        }
    }
    void warn_once(const char* what);
    std::mutex var_mu_;
    std::condition_variable var_cv_;
    std::uint64_t var_gen_ = 0;  // under var_mu_: wake_up_var() calls so far
    static inline thread_local int in_wait_cond_ = 0;  // in a wait_var_event() condition
    static inline thread_local bool blocking_call_ = false;  // a mutex_lock() in that evaluation
    mutable std::mutex stats_mu_;
    pivot_stats stats_;  // all but the per-thread counts
    std::vector<std::string> warnings_;
};

static_assert(model::futex_wait_env<threads_env>);

}  // namespace futexsim::real
