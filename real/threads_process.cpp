#include "real/threads_process.h"

#include <sched.h>

#include "model/fork.h"
#include "model/requeue.h"
#include "model/waitwake.h"
#include "run/stop_signal.h"

namespace futexsim::real {

namespace {
// The kernel turns an interrupted FUTEX_WAIT without SA_RESTART into EINTR.
int user_visible(int ret)
{
    return ret == -model::ERESTARTSYS_ || ret == -model::ERESTART_RESTARTBLOCK_ ? -4 /* EINTR */ : ret;
}

thread_local std::uint64_t my_tid_word = 0;
}  // namespace

// Room for the workers, main, the watchdog and liburcu's call_rcu thread.
threads_process::threads_process(unsigned max_threads) : env_(max_threads + 8, &stop_requested())
{
    env_.clock = [](void* self) { return static_cast<threads_process*>(self)->now_ns(); };
    env_.clock_arg = this;
    model::futex_init(env_, global_);
    mm_.env = &env_;
    mm_.global = &global_;
    model::futex_mm_init(&mm_);
}

threads_process::~threads_process()
{
    join_all();
    env_.rcu_barrier();  // callbacks that still point into mm_
    model::futex_hash_free(&mm_);
    env_.rcu_barrier();  // the frees futex_hash_free() deferred
}

int threads_process::current_slots()
{
    return model::futex_hash_prctl(&mm_, model::PR_FUTEX_HASH_GET_SLOTS, 0, 0);
}

int threads_process::sys_futex_wake(std::uint64_t uaddr, int nr_wake)
{
    return model::futex_wake(&mm_, uaddr, nr_wake, model::FUTEX_BITSET_MATCH_ANY);
}

int threads_process::sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns)
{
    return user_visible(model::futex_wait(&mm_, uaddr, val, timeout_ns, model::FUTEX_BITSET_MATCH_ANY));
}

int threads_process::sys_futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                                       int op)
{
    return model::futex_wake_op(&mm_, uaddr1, uaddr2, nr_wake, nr_wake2, op);
}

int threads_process::sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                                           int nr_requeue, std::uint32_t cmpval)
{
    return model::futex_requeue(&mm_, uaddr1, uaddr2, nr_wake, nr_requeue, &cmpval);
}

int threads_process::sys_prctl_futex_hash(unsigned long op, unsigned long arg)
{
    return model::futex_hash_prctl(&mm_, op, arg, 0);
}

void threads_process::spawn_thread(std::string name, std::vector<unsigned> cpus, std::function<void()> body)
{
    model::copy_process_futex(&mm_, CLONE_VM | CLONE_THREAD);
    // CLONE_CHILD_CLEARTID: a word thread_exit() clears and wakes.
    const std::uint64_t tid = alloc_futex_word(1);
    env_.nr_threads.fetch_add(1);
    try {
        real_process::spawn_thread(std::move(name), std::move(cpus), [tid, body = std::move(body)] {
            my_tid_word = tid;
            body();
        });
    } catch (...) {
        env_.nr_threads.fetch_sub(1);
        throw;
    }
}

void threads_process::thread_exit()
{
    if (!my_tid_word)
        return;
    user_store(my_tid_word, 0);  // put_user(0, clear_child_tid)
    model::futex_wake(&mm_, my_tid_word, 1, model::FUTEX_BITSET_MATCH_ANY);
    my_tid_word = 0;
    env_.nr_threads.fetch_sub(1);
}

}  // namespace futexsim::real
