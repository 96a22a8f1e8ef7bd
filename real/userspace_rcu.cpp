#include "real/userspace_rcu.h"

#include <urcu/urcu-memb.h>

#include <urcu/call-rcu.h>

#include "run/stop_signal.h"

// TSan cannot see the ordering sys_membarrier() gives liburcu's readers and
// grace periods, and liburcu itself is not instrumented. Tell it what RCU
// guarantees: everything before a read-side section's end, and before a
// call_rcu(), happens before the callbacks and synchronize() returns that
// follow. (This orders a little more than RCU does: sections that start
// after a grace period began are ordered too.)
#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
namespace {
char rcu_order;
void order_before_grace_period() { __tsan_release(&rcu_order); }
void order_after_grace_period() { __tsan_acquire(&rcu_order); }
}  // namespace
#else
namespace {
void order_before_grace_period() {}
void order_after_grace_period() {}
}  // namespace
#endif

namespace futexsim::real::urcu {

namespace {

// Registration of a thread we created; call_rcu threads come registered.
struct registration {
    bool registered = false;
    bool ours = false;
    ~registration()
    {
        if (ours)
            urcu_memb_unregister_thread();
    }
};
thread_local registration this_thread;

void ensure_registered()
{
    if (!this_thread.registered) {
        urcu_memb_register_thread();
        this_thread.registered = true;
        this_thread.ours = true;
    }
}

struct deferred {
    rcu_head head;
    void (*fn)(void*);
    void* arg;
};

void run_deferred(rcu_head* head)
{
    this_thread.registered = true;  // liburcu's call_rcu thread
    auto* d = caa_container_of(head, deferred, head);
    order_after_grace_period();
    d->fn(d->arg);
    delete d;
    order_before_grace_period();  // what the callback did, before rcu_barrier() returns
}

}  // namespace

void read_lock()
{
    ensure_registered();
    urcu_memb_read_lock();
}

void read_unlock()
{
    order_before_grace_period();
    urcu_memb_read_unlock();
}

void synchronize()
{
    order_before_grace_period();
    urcu_memb_synchronize_rcu();
    order_after_grace_period();
}

void call(void (*fn)(void*), void* arg)
{
    ensure_registered();  // call_rcu() wants a registered caller
    auto* d = new deferred{{}, fn, arg};
    order_before_grace_period();
    // The first call creates liburcu's call_rcu thread, which inherits this
    // thread's signal mask: with SIGINT blocked, SIGINT always lands on the
    // main thread (under TSan a signal taken by a thread asleep in a raw
    // futex syscall waits there, and the run never hears of it).
    with_sigint_blocked([&] { urcu_memb_call_rcu(&d->head, run_deferred); });
}

void barrier()
{
    ensure_registered();
    urcu_memb_barrier();
    order_after_grace_period();
}

}  // namespace futexsim::real::urcu
