// The threads backend's RCU: liburcu's memb flavour (sys_membarrier), behind
// plain functions so that liburcu's macros (rcu_read_lock, call_rcu, ...)
// never meet the model's method names of the same spelling.
//
// Why memb: its read side is a thread-local counter and a compiler barrier,
// as close to the kernel's preemptible-RCU read side as userspace gets, and,
// unlike qsbr, it needs no quiescent-state calls sprinkled through the
// workloads; unlike signal it takes no signal.
#pragma once

namespace futexsim::real::urcu {

// Registers the calling thread with liburcu the first time it reads (each
// thread unregisters when it exits). Threads liburcu itself created for
// call_rcu callbacks are registered already.
void read_lock();
void read_unlock();
// Blocks until a grace period has passed. Not inside a read-side section.
void synchronize();
// Runs fn(arg) after a grace period, on liburcu's call_rcu thread.
void call(void (*fn)(void*), void* arg);
// Waits for every callback queued so far to have run.
void barrier();

}  // namespace futexsim::real::urcu
