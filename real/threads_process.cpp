#include "real/threads_process.h"

#include <sched.h>

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
threads_process::threads_process(unsigned max_threads)
    : env_(max_threads + 8, &stop_requested(),
           {[](void* self) { return static_cast<threads_process*>(self)->now_ns(); }, this}),
      futex_(env_)
{
}

// Then futex_ frees the hash, and env_'s destructor waits for the frees
// that deferred.
threads_process::~threads_process()
{
    join_all();
    env_.rcu_barrier();  // callbacks that still point into the mm
}

int threads_process::current_slots()
{
    return futex_.prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0);
}

int threads_process::sys_futex_wake(std::uint64_t uaddr, int nr_wake)
{
    return futex_.futex_wake(uaddr, nr_wake);
}

int threads_process::sys_futex_wait(std::uint64_t uaddr, std::uint32_t val, long timeout_ns)
{
    return user_visible(futex_.futex_wait(uaddr, val, timeout_ns));
}

int threads_process::sys_futex_wake_op(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake, int nr_wake2,
                                       int op)
{
    return futex_.futex_wake_op(uaddr1, uaddr2, nr_wake, nr_wake2, static_cast<std::uint32_t>(op));
}

int threads_process::sys_futex_cmp_requeue(std::uint64_t uaddr1, std::uint64_t uaddr2, int nr_wake,
                                           int nr_requeue, std::uint32_t cmpval)
{
    return futex_.futex_cmp_requeue(uaddr1, uaddr2, nr_wake, nr_requeue, cmpval);
}

int threads_process::sys_prctl_futex_hash(unsigned long op, unsigned long arg)
{
    return futex_.prctl_futex_hash(op, arg);
}

void threads_process::spawn_thread(std::string name, std::vector<unsigned> cpus, std::function<void()> body)
{
    futex_.copy_process_futex();
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
    futex_.futex_wake(my_tid_word, 1);
    my_tid_word = 0;
    env_.nr_threads.fetch_sub(1);
}

}  // namespace futexsim::real
