// The kernel's queued spinlock (kernel/locking/qspinlock.c and
// qspinlock.h of 7.2.13, native: no paravirt), on the simulator's cache
// lines. A lone locker takes it with one cmpxchg; the first contender sets
// the pending bit and spins on the lock word; the rest queue on per-CPU MCS
// nodes, each spinning on its own node's line, and only the queue's head
// watches the lock word. Waiters are served in the order they queued, so a
// waiter waits for the queue ahead of it, never for the luck of a race.
//
// Each access beyond the fast path is charged the kernel's instructions
// that the lock-* paths of experiments/kernel/lock-paths.json count before
// it (sim/timed/site_costs.h; docs/kernel-sites.md, "The bucket lock's slow
// path"): the spins name their reads, everything else is named by the
// function it is in, as the rest of the model's accesses are.
#include <cstdint>

#include "sim/timed/lockup_detector.h"
#include "sim/timed/sim_env.h"

namespace futexsim::sim {

namespace {

// _Q_* of include/asm-generic/qspinlock_types.h with _Q_PENDING_BITS == 8
// (CONFIG_NR_CPUS is 8192 on the cloud amd64 build, 512 on arm64).
constexpr std::uint32_t q_locked_val = 1u;
constexpr std::uint32_t q_locked_mask = 0xffu;
constexpr std::uint32_t q_pending_val = 1u << 8;
constexpr std::uint32_t q_pending_mask = 0xff00u;
constexpr std::uint32_t q_locked_pending_mask = q_locked_mask | q_pending_mask;
constexpr std::uint32_t q_tail_mask = 0xffff0000u;
constexpr unsigned q_tail_idx_offset = 16;
constexpr unsigned q_tail_cpu_offset = 18;
constexpr int q_max_nodes = 1;  // _Q_MAX_NODES is 4; see sim_env::qnode

// encode_tail()
constexpr std::uint32_t encode_tail(unsigned cpu, int idx)
{
    return (cpu + 1) << q_tail_cpu_offset | static_cast<std::uint32_t>(idx) << q_tail_idx_offset;
}

// decode_tail(): the CPU whose node the tail names.
constexpr unsigned decode_tail_cpu(std::uint32_t tail)
{
    return (tail >> q_tail_cpu_offset) - 1;
}

// The node's claim: `node->count++` on the way in, and `release:`'s
// __this_cpu_dec(qnodes[0].mcs.count) on every way out.
class node_claim {
public:
    explicit node_claim(int& count) : count_(count), idx(count_++) {}
    ~node_claim() { --count_; }
    node_claim(const node_claim&) = delete;
    node_claim& operator=(const node_claim&) = delete;

private:
    int& count_;

public:
    const int idx;
};

}  // namespace

// spin_lock() -> raw_spin_lock() -> queued_spin_lock(), preemption off first.
void sim_env::spin_lock(spinlock_t& l)
{
    ++kernel_task().preempt_count;
    const spin_watch_scope watched(spins_, eng_, &l);  // the spinning-lock warning's record
    queued_spin_lock(l);
}

// spin_unlock(): queued_spin_unlock(), then preemption back on.
void sim_env::spin_unlock(spinlock_t& l)
{
    queued_spin_unlock(l);
    if (spins_)
        spins_->released(eng_.current(), &l);
    --kernel_task().preempt_count;
}

// queued_spin_lock() (include/asm-generic/qspinlock.h): the fast path.
void sim_env::queued_spin_lock(spinlock_t& l)
{
    std::uint32_t val = 0;
    if (atomic_try_cmpxchg(l.val, val, q_locked_val))
        return;
    // The slow path is a detour inside the caller's segment after this
    // cmpxchg: on its return the task is back there (site_costs::lock_return_ps()).
    const bool timed = eng_.in_task() && !eng_.tearing_down();
    const site_costs::site_id resume = timed ? eng_.current().last_site : site_costs::exit;
    queued_spin_lock_slowpath(l, val);
    if (timed && !eng_.tearing_down()) {
        task& t = eng_.current();
        const std::uint64_t ps = sites_.lock_return_ps(t.last_site, resume) + t.site_carry_ps;
        t.site_carry_ps = static_cast<std::uint32_t>(ps % 1000);
        eng_.charge(static_cast<vtime>(ps / 1000));
    }
}

// queued_spin_trylock() (include/asm-generic/qspinlock.h)
bool sim_env::queued_spin_trylock(spinlock_t& l)
{
    std::uint32_t val = atomic_read(l.val);
    if (val != 0)
        return false;
    return atomic_try_cmpxchg(l.val, val, q_locked_val);
}

// queued_spin_unlock(): smp_store_release(&lock->locked, 0).
void sim_env::queued_spin_unlock(spinlock_t& l)
{
    access(l.val, true, site(std::source_location::current(), "qspinlock_rmw"), [](word<std::uint32_t>& x) {
        x.v &= ~q_locked_mask;
        return 0;
    });
}

// queued_fetch_set_pending_acquire(): x86's `lock btsl` and a read of the
// rest (arch/x86/include/asm/qspinlock.h); arm64's atomic_fetch_or_acquire()
// (kernel/locking/qspinlock.h).
std::uint32_t sim_env::queued_fetch_set_pending_acquire(spinlock_t& l)
{
    std::uint32_t old = access(l.val, true, site(std::source_location::current(), "qspinlock_rmw"), [](word<std::uint32_t>& x) {
        const std::uint32_t was = x.v;
        x.v |= q_pending_val;
        return was;
    });
    if (eng_.mach().arch == atomic_arch::x86)
        old = (old & q_pending_mask) | (atomic_read(l.val) & ~q_pending_mask);
    return old;
}

// clear_pending(): WRITE_ONCE(lock->pending, 0).
void sim_env::clear_pending(spinlock_t& l)
{
    access(l.val, true, site(std::source_location::current(), "qspinlock_rmw"), [](word<std::uint32_t>& x) {
        x.v &= ~q_pending_mask;
        return 0;
    });
}

// clear_pending_set_locked(): WRITE_ONCE(lock->locked_pending, _Q_LOCKED_VAL).
void sim_env::clear_pending_set_locked(spinlock_t& l)
{
    access(l.val, true, site(std::source_location::current(), "qspinlock_rmw"), [](word<std::uint32_t>& x) {
        x.v = (x.v & ~q_locked_pending_mask) | q_locked_val;
        return 0;
    });
}

// set_locked(): WRITE_ONCE(lock->locked, _Q_LOCKED_VAL).
void sim_env::set_locked(spinlock_t& l)
{
    access(l.val, true, site(std::source_location::current(), "qspinlock_rmw"), [](word<std::uint32_t>& x) {
        x.v = (x.v & ~q_locked_mask) | q_locked_val;
        return 0;
    });
}

// xchg_tail(): xchg_relaxed() on the 16-bit tail; the old tail out.
std::uint32_t sim_env::xchg_tail(spinlock_t& l, std::uint32_t tail)
{
    return access(l.val, true, site(std::source_location::current(), "qspinlock_rmw"), [tail](word<std::uint32_t>& x) {
        const std::uint32_t old = x.v;
        x.v = (x.v & q_locked_pending_mask) | tail;
        return old & q_tail_mask;
    });
}

// queued_spin_lock_slowpath() (native_queued_spin_lock_slowpath()).
void sim_env::queued_spin_lock_slowpath(spinlock_t& l, std::uint32_t val)
{
    // Wait for an in-progress pending->locked hand-over, a bounded number
    // of times (_Q_PENDING_LOOPS: 512 reads on x86, arch/x86/include/asm/
    // qspinlock.h; the generic 1 on arm64, one wait). The hand-over is the
    // next write to the line, so the bound is reached only when another
    // write comes first and leaves the word as it was.
    if (val == q_pending_val)  // atomic_cond_read_relaxed(&lock->val, VAL != _Q_PENDING_VAL || !cnt--)
        val = smp_cond_load_acquire(l.val, [](std::uint32_t v) { return v != q_pending_val; },
                                    {"atomic_cond_read_relaxed:READ_ONCE", "atomic_cond_read_relaxed:__cmpwait_relaxed",
                                     "atomic_cond_read_relaxed:READ_ONCE_again"},
                                    eng_.mach().arch == atomic_arch::x86 ? 512 : 1);

    if ((val & ~q_locked_mask) == 0) {
        // trylock || pending
        val = queued_fetch_set_pending_acquire(l);
        if ((val & ~q_locked_mask) == 0) {
            // We're pending: wait for the owner to go away, then take it.
            if (val & q_locked_mask)  // smp_cond_load_acquire(&lock->locked, !VAL)
                smp_cond_load_acquire(l.val, [](std::uint32_t v) { return (v & q_locked_mask) == 0; },
                                      {"smp_cond_load_acquire:smp_load_acquire", "smp_cond_load_acquire:__cmpwait_relaxed",
                                       "smp_cond_load_acquire:smp_load_acquire_again"});
            clear_pending_set_locked(l);
            return;
        }
        // A concurrent locker: undo PENDING if we set it, and queue.
        if (!(val & q_pending_mask))
            clear_pending(l);
    }

    // queue:
    const unsigned cpu = smp_processor_id();
    qnode& node = qnodes_[cpu];
    const node_claim claim(node.count);
    const std::uint32_t tail = encode_tail(cpu, claim.idx);
    if (claim.idx >= q_max_nodes) {
        // No node left: spin on the lock word itself. Not counted (no
        // lock-* path): the simulator takes no spinlock in an interrupt, so
        // no CPU ever needs a second node.
        while (!queued_spin_trylock(l))
            smp_cond_load_acquire(l.val, [](std::uint32_t v) { return v == 0; },
                                  {"queued_spin_lock_slowpath:cpu_relax", "queued_spin_lock_slowpath:cpu_relax",
                                   "queued_spin_lock_slowpath:cpu_relax"});
        return;
    }
    atomic_set(node.locked, 0);
    atomic_set(node.next, 0u);

    // A cold node line touched: one more trylock before queueing.
    if (queued_spin_trylock(l))
        return;

    // Publish the tail; link behind the previous tail and wait to be head.
    const std::uint32_t old = xchg_tail(l, tail);
    std::uint32_t next = 0;
    if (old & q_tail_mask) {
        qnode& prev = qnodes_[decode_tail_cpu(old)];
        atomic_set(prev.next, cpu + 1);
        smp_cond_load_acquire(node.locked, [](int v) { return v != 0; },  // arch_mcs_spin_lock_contended()
                              {"arch_mcs_spin_lock_contended:smp_load_acquire",
                               "arch_mcs_spin_lock_contended:__cmpwait_relaxed",
                               "arch_mcs_spin_lock_contended:smp_load_acquire_again"});
        next = atomic_read(node.next);
        if (next)
            prefetchw();  // prefetchw(next)
    }

    // The head: wait for the owner and the pending locker to go away.
    val = smp_cond_load_acquire(l.val, [](std::uint32_t v) { return (v & q_locked_pending_mask) == 0; },
                                {"atomic_cond_read_acquire:smp_load_acquire", "atomic_cond_read_acquire:__cmpwait_relaxed",
                                 "atomic_cond_read_acquire:smp_load_acquire_again"});

    // Claim the lock; clear the tail too if nobody queued behind us.
    if ((val & q_tail_mask) == tail && atomic_try_cmpxchg(l.val, val, q_locked_val))
        return;  // nobody queued behind us
    set_locked(l);

    // Hand the MCS lock to the next waiter, once it has linked itself in.
    if (!next)
        next = smp_cond_load_acquire(node.next, [](std::uint32_t v) { return v != 0; },  // smp_cond_load_relaxed()
                                     {"smp_cond_load_relaxed:READ_ONCE", "smp_cond_load_relaxed:__cmpwait_relaxed",
                                      "smp_cond_load_relaxed:READ_ONCE_again"});
    smp_store_release(qnodes_[next - 1].locked, 1);  // arch_mcs_spin_unlock_contended()
}

}  // namespace futexsim::sim
