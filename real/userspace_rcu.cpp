#include "real/userspace_rcu.h"

#include <urcu/urcu-memb.h>

#include <urcu/call-rcu.h>

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
    d->fn(d->arg);
    delete d;
}

}  // namespace

void read_lock()
{
    ensure_registered();
    urcu_memb_read_lock();
}

void read_unlock()
{
    urcu_memb_read_unlock();
}

void synchronize()
{
    urcu_memb_synchronize_rcu();
}

void call(void (*fn)(void*), void* arg)
{
    ensure_registered();  // call_rcu() wants a registered caller
    auto* d = new deferred{{}, fn, arg};
    urcu_memb_call_rcu(&d->head, run_deferred);
}

void barrier()
{
    ensure_registered();
    urcu_memb_barrier();
}

}  // namespace futexsim::real::urcu
