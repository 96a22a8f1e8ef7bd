#include "sim/timed/process.h"

#include <climits>

namespace futexsim::sim {

sim_process::sim_process(const machine& m, std::uint64_t seed, engine_config cfg)
    : eng_(m, seed, cfg), cache_(eng_), rcu_(eng_), env_(eng_, cache_, rcu_), futex_(env_),
      workload_rng_(stream_seed(seed, streams::workload))
{
    env_.on_trace = [this](const model::trace_point& tp) { on_trace(tp); };
}

// The tasks are unwound before futex_ (declared after env_) frees the hash.
sim_process::~sim_process() { eng_.shutdown(); }

void sim_process::on_trace(const model::trace_point& tp)
{
    using model::trace_kind;
    eng_.observers().notify([&](sim_observer& o) { o.tracepoint(tp, eng_.now()); });
    stats_.fold(tp, eng_.now(), rcu_.completed());
    if (pivot_stats::is_ref_get(tp.kind))
        return;  // too many to hash: every futex operation has one
    eng_.mix_trace((static_cast<std::uint64_t>(tp.kind) << 56) ^
                   (static_cast<std::uint64_t>(tp.slots) << 24) ^
                   static_cast<std::uint64_t>(eng_.now()));
}

std::uint64_t sim_process::alloc_futex_word(std::uint32_t initial)
{
    return env_.alloc_user_word(initial);
}

std::uint32_t sim_process::user_load(std::uint64_t uaddr)
{
    return env_.atomic_read(*env_.user_word(uaddr));
}

void sim_process::user_store(std::uint64_t uaddr, std::uint32_t v)
{
    env_.atomic_set(*env_.user_word(uaddr), v);
}

bool sim_process::user_cmpxchg(std::uint64_t uaddr, std::uint32_t old, std::uint32_t new_)
{
    return env_.atomic_try_cmpxchg(*env_.user_word(uaddr), old, new_);
}

std::uint32_t sim_process::user_xchg(std::uint64_t uaddr, std::uint32_t v)
{
    return env_.atomic_xchg(*env_.user_word(uaddr), v);
}

void sim_process::user_add(std::uint64_t uaddr, std::uint32_t delta)
{
    env_.atomic_add_return(*env_.user_word(uaddr), delta);
}

// Entry and exit vary from call to call (branch and cache state, interrupts
// masked or not): drawn from the seed, so runs differ by seed only.
vtime sim_process::jittered(double ns)
{
    const double j = eng_.mach().timing_jitter;
    if (j <= 0)
        return static_cast<vtime>(ns);
    return static_cast<vtime>(ns * eng_.jitter_rng().spread(j) + 0.5);
}

void sim_process::sys_enter(const char* name)
{
    eng_.observers().notify([&](sim_observer& o) { o.syscall_enter(eng_.current(), name, eng_.now()); });
    eng_.charge(jittered(eng_.mach().syscall_entry_cost_ns()));
    eng_.set_mode(task_mode::kernel);
    env_.syscall_begins(name);
}

void sim_process::sys_exit()
{
    env_.syscall_returns();
    eng_.set_mode(task_mode::user);
    eng_.charge(jittered(eng_.mach().syscall_exit_cost_ns()));
    eng_.observers().notify([&](sim_observer& o) { o.syscall_exit(eng_.current(), eng_.now()); });
}

void sim_process::sys_nanosleep(vtime ns)
{
    sys_enter("nanosleep");
    task& self = eng_.current();
    eng_.wake_on_timeout(self, eng_.now() + ns);
    eng_.block();
    sys_exit();
}

void sim_process::user_work(vtime ns) { eng_.charge(ns); }

int sim_process::sys_futex_wake(std::uint64_t uaddr, int nr_wake)
{
    return sys_futex_wake(uaddr, nr_wake, model::FUTEX_PRIVATE_FLAG);
}

int sim_process::sys_futex_wake(std::uint64_t uaddr, int nr_wake, int opflags)
{
    sys_enter("FUTEX_WAKE");
    const int ret = futex_.futex_wake(uaddr, nr_wake, model::FUTEX_BITSET_MATCH_ANY,
                                      model::futex_to_flags(opflags));
    sys_exit();
    return ret;
}

int sim_process::sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns)
{
    return sys_futex_wait(uaddr, val, timeout_ns, model::FUTEX_PRIVATE_FLAG);
}

int sim_process::sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns,
                                int opflags)
{
    sys_enter("FUTEX_WAIT");
    const int ret = futex_.futex_wait(uaddr, val, timeout_ns, model::FUTEX_BITSET_MATCH_ANY,
                                      model::futex_to_flags(opflags));
    sys_exit();
    return ret;
}

int sim_process::sys_futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                                   int nr_wake2, int op)
{
    sys_enter("FUTEX_WAKE_OP");
    const int ret =
        futex_.futex_wake_op(uaddr1, uaddr2, nr_wake, nr_wake2, static_cast<std::uint32_t>(op));
    sys_exit();
    return ret;
}

int sim_process::sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                                       int nr_requeue, std::uint32_t cmpval)
{
    return sys_futex_cmp_requeue(uaddr1, uaddr2, nr_wake, nr_requeue, cmpval,
                                 model::FUTEX_PRIVATE_FLAG);
}

int sim_process::sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                                       int nr_requeue, std::uint32_t cmpval, int opflags)
{
    sys_enter("FUTEX_CMP_REQUEUE");
    const int ret = futex_.futex_cmp_requeue(uaddr1, uaddr2, nr_wake, nr_requeue, cmpval,
                                             model::futex_to_flags(opflags));
    sys_exit();
    return ret;
}

int sim_process::sys_futex_lock_pi(std::uint64_t uaddr)
{
    sys_enter("FUTEX_LOCK_PI");
    const int ret = futex_.futex_lock_pi(uaddr);
    sys_exit();
    return ret;
}

int sim_process::sys_futex_unlock_pi(std::uint64_t uaddr)
{
    sys_enter("FUTEX_UNLOCK_PI");
    const int ret = futex_.futex_unlock_pi(uaddr);
    sys_exit();
    return ret;
}

int sim_process::sys_futex_wait_requeue_pi(std::uint64_t uaddr, std::uint32_t val,
                                           std::uint64_t uaddr2, std::optional<vtime> abs_timeout)
{
    sys_enter("FUTEX_WAIT_REQUEUE_PI");
    const long at = abs_timeout ? static_cast<long>(*abs_timeout) : 0;
    const int ret = futex_.futex_wait_requeue_pi(uaddr, val, uaddr2, 0, abs_timeout ? &at : nullptr);
    sys_exit();
    return ret;
}

int sim_process::sys_futex_cmp_requeue_pi(std::uint64_t uaddr1, std::uint64_t uaddr2,
                                          int nr_requeue, std::uint32_t cmpval)
{
    sys_enter("FUTEX_CMP_REQUEUE_PI");
    const int ret = futex_.futex_cmp_requeue_pi(uaddr1, uaddr2, nr_requeue, cmpval);
    sys_exit();
    return ret;
}

void sim_process::thread_exit()
{
    const std::uint64_t tid = tid_word_[eng_.current().id];
    sys_enter("exit");
    eng_.charge(static_cast<vtime>(eng_.mach().thread_exit_ns));  // do_exit() up to exit_mm()
    env_.atomic_set(*env_.user_word(tid), 0u);                    // put_user(0, clear_child_tid)
    // The kernel's mm_release() wakes without FUTEX_PRIVATE_FLAG and glibc
    // joins with LLL_SHARED (a shared key); here both stay private, as every
    // recorded result was made (docs/kernel-map.md, "Shared keys").
    futex_.futex_wake(tid, 1);
    sys_exit();
}

void sim_process::join_all()
{
    for (std::uint32_t id : children_) {
        const std::uint64_t tid = tid_word_[id];
        for (std::uint32_t v; (v = user_load(tid)) != 0;)
            sys_futex_wait(tid, v);
    }
}

int sim_process::sys_prctl_futex_hash(unsigned long op, unsigned long arg)
{
    sys_enter(op == model::PR_FUTEX_HASH_SET_SLOTS   ? "prctl SET_SLOTS"
              : op == model::PR_FUTEX_HASH_GET_SLOTS ? "prctl GET_SLOTS"
                                                     : "prctl PR_FUTEX_HASH");
    const int ret = futex_.prctl_futex_hash(op, arg);
    sys_exit();
    return ret;
}

void sim_process::mmap_write_lock_unlock()
{
    // mm_lock_seqcount_begin() and _end() (include/linux/mmap_lock.h): a
    // plain increment under the lock each; the second finds the line owned.
    env_.atomic_inc(mm().mm_lock_seq);
    env_.atomic_inc(mm().mm_lock_seq);
}

task& sim_process::sys_clone(std::string name, std::vector<unsigned> allowed,
                             std::function<void()> body)
{
    // pthread_create() maps the new thread's stack and protects its guard
    // page before it calls clone(): two mmap_lock write sections, each
    // writing the line every futex call reads mm->futex_phash from
    // (docs/kernel-layout.md). Their time is inside clone_ns.
    mmap_write_lock_unlock();
    mmap_write_lock_unlock();
    sys_enter("clone");
    eng_.charge(static_cast<vtime>(eng_.mach().clone_ns));
    futex_.copy_process_futex();
    // CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID: the child's tid in a word
    // the kernel clears and wakes when the thread exits.
    const std::uint32_t next_id = static_cast<std::uint32_t>(eng_.num_tasks());
    const std::uint64_t tid = alloc_futex_word(next_id + 1);
    task& child = eng_.spawn(std::move(name), std::move(allowed), std::move(body), eng_.now());
    if (tid_word_.size() <= child.id)
        tid_word_.resize(child.id + 1, 0);
    tid_word_[child.id] = tid;
    children_.push_back(child.id);
    sys_exit();
    return child;
}

}  // namespace futexsim::sim
