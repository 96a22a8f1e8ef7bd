#include "real/threads_env.h"

#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "real/host_futex.h"

namespace futexsim::real {

namespace {

std::atomic<std::uint64_t> next_env_id{1};

std::int64_t monotonic_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// The host's futex, for the sleep itself (not the model's hash).
void host_futex_wait(std::atomic<std::uint32_t>* w, std::uint32_t val, std::int64_t ns)
{
    timespec ts{ns / 1'000'000'000, ns % 1'000'000'000};
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(w), host_FUTEX_WAIT | host_FUTEX_PRIVATE_FLAG, val, &ts, nullptr, 0);
}

void host_futex_wake(std::atomic<std::uint32_t>* w)
{
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(w), host_FUTEX_WAKE | host_FUTEX_PRIVATE_FLAG, 1, nullptr, nullptr, 0);
}

struct gp_request {
    threads_env* env;
    unsigned long cookie;
    std::int64_t requested_at;  // on the env's clock
};

}  // namespace

threads_env::threads_env(unsigned max_tasks, std::atomic<bool>* stop, clock_fn clock)
    : possible_cpus_(static_cast<unsigned>(std::max(1, get_nprocs_conf()))),
      online_cpus_(static_cast<unsigned>(std::max(1, get_nprocs()))), stop_(stop), clock_(clock),
      tasks_(new task[max_tasks]), max_tasks_(max_tasks), id_(next_env_id++)
{
}

threads_env::~threads_env()
{
    urcu::barrier();  // no callback may run after the env is gone
}

unsigned threads_env::smp_processor_id() const
{
    // glibc reads the CPU from the thread's rseq area: no system call.
    const int cpu = sched_getcpu();
    return cpu >= 0 && static_cast<unsigned>(cpu) < possible_cpus_ ? static_cast<unsigned>(cpu) : 0;
}

threads_env::task& threads_env::me()
{
    struct cached {
        std::uint64_t env = 0;
        task* t = nullptr;
    };
    thread_local cached mine;
    if (mine.env != id_) {
        const unsigned i = next_task_.fetch_add(1);
        if (i >= max_tasks_)
            throw std::length_error("threads backend: more threads than it was set up for");
        mine = {id_, &tasks_[i]};
    }
    return *mine.t;
}

unsigned long threads_env::get_state_synchronize_rcu()
{
    const unsigned long cookie = gp_requested_.fetch_add(1) + 1;
    urcu::call(&threads_env::gp_done, new gp_request{this, cookie, clock_()});
    return cookie;
}

void threads_env::gp_done(void* arg)
{
    auto* r = static_cast<gp_request*>(arg);
    threads_env& env = *r->env;
    if (env.clock_.fn) {
        env.gp_ns_sum_.fetch_add(env.clock_() - r->requested_at);
        env.gp_timed_.fetch_add(1);
    }
    unsigned long seen = env.gp_completed_.load();
    while (seen < r->cookie && !env.gp_completed_.compare_exchange_weak(seen, r->cookie)) {
    }
    delete r;
}

double threads_env::mean_grace_period_ms() const
{
    const unsigned long n = gp_timed_.load();
    return n ? static_cast<double>(gp_ns_sum_.load()) / static_cast<double>(n) / 1e6 : 0.0;
}

void threads_env::call_rcu_hurry(model::rcu_head* head, void (*func)(model::rcu_head*))
{
    head->func = func;
    urcu::call([](void* h) {
        auto* rh = static_cast<model::rcu_head*>(h);
        rh->func(rh);
    }, head);
}

// A task pointer read from a futex_q after the waiter may have left (the
// kernel pins the task with get_task_struct() first; the model does not):
// only a pointer into our table is woken, and a wrong but valid one is a
// spurious wakeup, which futex_wait() already handles.
void threads_env::wake_up_task(void* t)
{
    auto* p = static_cast<task*>(t);
    if (p < &tasks_[0] || p >= &tasks_[0] + max_tasks_)
        return;
    p->woken.store(1);
    host_futex_wake(&p->woken);
}

model::sleep_end threads_env::sleep(const void* /*q*/, long timeout_ns)
{
    task& self = me();
    const std::int64_t deadline = timeout_ns >= 0 ? monotonic_ns() + timeout_ns : INT64_MAX;
    constexpr std::int64_t recheck_ns = 10'000'000;  // to notice a stop request
    for (;;) {
        if (self.woken.exchange(0))
            return model::sleep_end::wakeup;
        if (stop_ && stop_->load(std::memory_order_relaxed))
            return model::sleep_end::signal;
        const std::int64_t left = deadline - monotonic_ns();
        if (left <= 0)
            return model::sleep_end::timeout;
        host_futex_wait(&self.woken, 0, std::min(left, recheck_ns));
    }
}

int threads_env::arch_futex_atomic_op_inuser(int op, int oparg, int* oval, std::uint64_t uaddr)
{
    if (!uaddr)
        return -model::EFAULT_;
    auto& w = *reinterpret_cast<std::atomic<std::uint32_t>*>(uaddr);
    const auto arg = static_cast<std::uint32_t>(oparg);
    std::uint32_t old = w.load();
    for (;;) {
        std::uint32_t next = 0;
        if (const int ret = model::futex_atomic_op_inuser_local(op, arg, old, &next))
            return ret;
        if (w.compare_exchange_weak(old, next))
            break;
    }
    *oval = static_cast<int>(old);
    return 0;
}

void threads_env::warn(const char* what)
{
    std::lock_guard lock(stats_mu_);
    warnings_.emplace_back(what);
}

void threads_env::warn_once(const char* what)
{
    std::lock_guard lock(stats_mu_);
    if (std::find(warnings_.begin(), warnings_.end(), what) == warnings_.end())
        warnings_.emplace_back(what);
}

std::vector<std::string> threads_env::warnings() const
{
    std::lock_guard lock(stats_mu_);
    return warnings_;
}

// The two counts every futex operation bumps are the calling thread's own
// (no shared line, no lock); the rest goes through the one fold under the lock.
void threads_env::trace(const model::trace_point& tp)
{
    auto bump = [](std::atomic<std::uint64_t>& c) {
        c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    };
    if (tp.kind == model::trace_kind::ref_get_percpu) {
        bump(me().ref_get_percpu);
        return;
    }
    if (tp.kind == model::trace_kind::ref_get_atomic) {
        bump(me().ref_get_atomic);
        return;
    }
    const std::int64_t now = clock_();
    std::lock_guard lock(stats_mu_);
    stats_.fold(tp, now, gp_completed_.load());
}

pivot_stats threads_env::pivots() const
{
    pivot_stats s;
    {
        std::lock_guard lock(stats_mu_);
        s = stats_;
    }
    for (unsigned i = 0; i < std::min(next_task_.load(), max_tasks_); i++) {
        s.ref_get_percpu += tasks_[i].ref_get_percpu.load(std::memory_order_relaxed);
        s.ref_get_atomic += tasks_[i].ref_get_atomic.load(std::memory_order_relaxed);
    }
    return s;
}

}  // namespace futexsim::real
