// Data structures of kernel/futex/futex.h, kernel/futex/core.c and the
// futex part of include/linux/mm_types.h (Linux v6.17), templated on the
// environment so that shared words are the environment's words.
#pragma once

#include <climits>
#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "model/env.h"
#include "model/errno.h"
#include "model/kernel_version.h"
#include "model/rtmutex.h"

namespace futexsim::model {

// enum { FR_PERCPU = 0, FR_ATOMIC } in core.c
inline constexpr int FR_PERCPU = 0;
inline constexpr int FR_ATOMIC = 1;

// futex_hash_allocate() flags
inline constexpr unsigned FH_CUSTOM = 0x01;

// The atomic's bias while per-CPU counts are being folded in (LONG_MAX).
inline constexpr long futex_ref_bias = LONG_MAX;

// include/uapi/linux/prctl.h
inline constexpr unsigned long PR_FUTEX_HASH = 78;
inline constexpr unsigned long PR_FUTEX_HASH_SET_SLOTS = 1;
inline constexpr unsigned long PR_FUTEX_HASH_GET_SLOTS = 2;

// include/uapi/linux/futex.h: the FUTEX_WAKE_OP operation word
inline constexpr unsigned FUTEX_OP_SET = 0;   // *(int *)UADDR2 = OPARG;
inline constexpr unsigned FUTEX_OP_ADD = 1;   // *(int *)UADDR2 += OPARG;
inline constexpr unsigned FUTEX_OP_OR = 2;    // *(int *)UADDR2 |= OPARG;
inline constexpr unsigned FUTEX_OP_ANDN = 3;  // *(int *)UADDR2 &= ~OPARG;
inline constexpr unsigned FUTEX_OP_XOR = 4;   // *(int *)UADDR2 ^= OPARG;
inline constexpr unsigned FUTEX_OP_OPARG_SHIFT = 8;  // use (1 << OPARG) instead of OPARG
inline constexpr unsigned FUTEX_OP_CMP_EQ = 0;
inline constexpr unsigned FUTEX_OP_CMP_NE = 1;
inline constexpr unsigned FUTEX_OP_CMP_LT = 2;
inline constexpr unsigned FUTEX_OP_CMP_LE = 3;
inline constexpr unsigned FUTEX_OP_CMP_GT = 4;
inline constexpr unsigned FUTEX_OP_CMP_GE = 5;

// FUTEX_OP(op, oparg, cmp, cmparg), the uapi macro that packs the word.
constexpr std::uint32_t FUTEX_OP(unsigned op, int oparg, unsigned cmp, int cmparg)
{
    return ((op & 0xf) << 28) | ((cmp & 0xf) << 24) |
           ((static_cast<std::uint32_t>(oparg) & 0xfff) << 12) |
           (static_cast<std::uint32_t>(cmparg) & 0xfff);
}

// futex_atomic_op_inuser_local() (include/asm-generic/futex.h): the
// FUTEX_WAKE_OP operation on the old value of the word, the one decode every
// environment's arch_futex_atomic_op_inuser() shares. The kernel's reads the
// word, switches on `op` and writes the result back; here the environment
// does the access (one locked RMW, a scheduling point, a cmpxchg loop) and
// asks this for the value to store: 0 and *newval, or -ENOSYS_ for an op it
// does not know (the word is then left as it was).
inline int futex_atomic_op_inuser_local(int op, std::uint32_t oparg, std::uint32_t oldval,
                                        std::uint32_t* newval)
{
    switch (static_cast<unsigned>(op)) {
    case FUTEX_OP_SET: *newval = oparg; return 0;
    case FUTEX_OP_ADD: *newval = oldval + oparg; return 0;
    case FUTEX_OP_OR: *newval = oldval | oparg; return 0;
    case FUTEX_OP_ANDN: *newval = oldval & ~oparg; return 0;
    case FUTEX_OP_XOR: *newval = oldval ^ oparg; return 0;
    default: *newval = oldval; return -ENOSYS_;
    }
}

inline constexpr int FUTEX_NO_NODE = -1;

// include/uapi/linux/futex.h: an op without this flag is process-shared.
inline constexpr int FUTEX_PRIVATE_FLAG = 128;

// kernel/futex/futex.h (CONFIG_MMU): the FLAGS_ bit futex_to_flags() sets
// for an op without FUTEX_PRIVATE_FLAG. The model's functions take only
// this bit of the kernel's flags (no size, clock or NUMA bits).
inline constexpr unsigned FLAGS_SHARED = 0x0010;

// futex_to_flags(), its FUTEX_PRIVATE_FLAG part.
constexpr unsigned futex_to_flags(int op)
{
    return (op & FUTEX_PRIVATE_FLAG) ? 0u : FLAGS_SHARED;
}

// include/linux/futex.h: the low bits of key.offset say what kind of key it
// is (00 private, 01 inode-based shared, 10 mm-based shared).
inline constexpr std::uint32_t FUT_OFF_INODE = 1;
inline constexpr std::uint32_t FUT_OFF_MMSHARED = 2;

// sizeof(struct futex_hash_bucket) on x86-64: ____cacheline_aligned_in_smp.
inline constexpr std::size_t futex_hash_bucket_size = 64;

// An RCU callback head (struct rcu_head). `owner` stands in for container_of.
struct rcu_head {
    void (*func)(rcu_head*) = nullptr;
    void* owner = nullptr;
};

// What a tracepoint reports. The model emits these at the steps a kernel
// developer would put a trace_printk; environments count or print them.
enum class trace_kind : std::uint8_t {
    hash_allocate,   // futex_hash_allocate() asked for `slots` (custom = value)
    ref_drop,        // futex_ref_drop(): the initial reference is dropped
    atomic_begin,    // __futex_ref_atomic_begin(): FR_ATOMIC with the bias
    atomic_end,      // __futex_ref_atomic_end(): per-CPU sum folded, value = atomic after
    ref_dead,        // the count reached zero (fold or last put)
    phash_new_park,  // __futex_pivot_hash(): current not dead, new one parked
    pivot_install,   // __futex_pivot_hash(): `slots` installed
    ref_get_percpu,  // futex_ref_get() found FR_PERCPU
    ref_get_atomic,  // futex_ref_get() found FR_ATOMIC (value = 1 if it succeeded)
};

struct trace_point {
    trace_kind kind;
    unsigned slots = 0;  // hash_mask + 1 of the fph concerned (0: global hash)
    long value = 0;
};

// union futex_key, its private layout (mm, address, offset), which the
// kernel also uses for a shared futex on anonymous memory (offset carries
// FUT_OFF_MMSHARED). `mm_id` stands in for the mm pointer so that hashing
// is deterministic across runs. Inode-based keys are not modelled.
struct futex_key {
    std::uint64_t address = 0;  // page-aligned address
    std::uint32_t offset = 0;   // offset within the page, | FUT_OFF_* for a shared key
    std::uint64_t mm_id = 0;
    int node = FUTEX_NO_NODE;

    friend bool operator==(const futex_key&, const futex_key&) = default;
};

// futex_key_is_private() (kernel/futex/futex.h): neither shared bit is set.
inline bool futex_key_is_private(const futex_key& key)
{
    return !(key.offset & (FUT_OFF_INODE | FUT_OFF_MMSHARED));
}

template <class Env>
struct futex_hash_bucket;
template <class Env>
struct private_hash;
template <class Env>
struct futex_pi_state;

// struct futex_q, the part the hash machinery touches.
template <class Env>
struct futex_q {
    int prio = 0;  // plist order: lower first, FIFO among equals
    futex_key key;
    unsigned bitset = 0xffffffff;
    // lock_ptr and hb are cleared by the waker (smp_store_release, plist_del)
    // while the waiter may read them outside any lock (futex_unqueue()'s
    // READ_ONCE, futex_do_wait()'s plist_node_empty()): Env handoff_ptrs,
    // atomic where tasks are real threads. Not charged words: they live on
    // the waiter's stack.
    typename Env::template handoff_ptr<typename Env::spinlock_t> lock_ptr = nullptr;
    typename Env::template handoff_ptr<futex_hash_bucket<Env>> hb = nullptr;  // the bucket whose chain holds it
    void* task = nullptr;                  // the waiting task, owned by the environment
    // The PI fields (kernel/futex/pi.c, requeue.c; model/pi.h): the pi_state
    // a PI waiter is attached to, the rt_mutex waiter a requeue-PI waiter
    // brings, the key it may be requeued to, where the requeue-PI hand-shake
    // stands (Q_REQUEUE_PI_*, model/requeue_pi.h) and the extra private-hash
    // reference a waker took for it (dropped by the waiter).
    futex_pi_state<Env>* pi_state = nullptr;
    rt_mutex_waiter<Env>* rt_waiter = nullptr;
    const futex_key* requeue_pi_key = nullptr;
    typename Env::template word<int> requeue_state{};
    private_hash<Env>* drop_fph = nullptr;
};

// struct futex_pi_state: the rt_mutex behind a PI futex, its owner (the
// futex word's TID), references (refcount_t) and key. The owner's
// pi_state_list is left out (only exit walks it).
template <class Env>
struct futex_pi_state {
    rt_mutex_base<Env> pi_mutex;
    void* owner = nullptr;
    typename Env::template word<long> refcount{};
    futex_key key;
};

template <class Env>
struct private_hash;

// struct futex_hash_bucket. waiters and lock share one cache line, as in the
// kernel (____cacheline_aligned_in_smp), so a simulator sees them together.
template <class Env>
struct alignas(64) futex_hash_bucket {
    typename Env::template word<int> waiters{};
    typename Env::spinlock_t lock{};
    std::list<futex_q<Env>*> chain;  // plist_head
    private_hash<Env>* priv = nullptr;
};

template <class Env>
struct mm_struct;

// struct futex_private_hash (a class template cannot share the name of the
// function futex_private_hash(), so the type is private_hash). `state` sits on its own line: every futex_ref_get
// reads it, and only a pivot writes it.
template <class Env>
struct private_hash {
    alignas(64) typename Env::template word<int> state{};
    unsigned int hash_mask = 0;
    rcu_head rcu;
    mm_struct<Env>* mm = nullptr;
    bool custom = false;
    std::vector<futex_hash_bucket<Env>> queues;

    explicit private_hash(unsigned slots) : queues(slots) {}
};

// static __futex_data in core.c: the global hash, one table per node.
template <class Env>
struct futex_data {
    unsigned long hashmask = 0;
    unsigned int hashshift = 0;
    unsigned int nr_node_ids = 1;
    std::vector<std::vector<futex_hash_bucket<Env>>> queues;
};

// The per-mm state of a pivot policy that keeps one (model/policies/policy.h):
// the policy's `mm_state<Env>` derives from this, and its mm_init() finds it
// allocated in mm->futex_policy_state. Not in the kernel: a fix would add
// its fields to mm_struct; the model keeps mm_struct the same for every
// policy, so that adding one edits nothing here.
struct policy_mm_state {
    virtual ~policy_mm_state() = default;
};

// The futex fields of struct mm_struct (CONFIG_FUTEX_PRIVATE_HASH), plus
// the two things the kernel reaches implicitly: the environment (`current`
// and its CPU) and the global hash (a static in core.c).
template <class Env>
struct mm_struct {
    Env* env = nullptr;
    futex_data<Env>* global = nullptr;
    std::uint64_t id = 1;  // stands in for the mm pointer in futex keys

    // The lines as Linux 7.2.13 lays them out (experiments/kernel/layout-7.2.13.tsv,
    // docs/kernel-layout.md; 6.17 declares the same fields in the same order).
    // The hash's line: `mm_lock_seq`, the mutex and `futex_phash` share it, so
    // every mmap_write_lock() of the process (a new thread's stack) and every
    // mutex operation of a pivot takes the line from the CPUs that read
    // `futex_phash` on each futex call. The mutex comes after `futex_phash`
    // here (the kernel has it before) so that its owner word still lands on
    // the line: the model's mutex also carries its wait queue.
    //
    // seqcount_t mm_lock_seq (CONFIG_PER_VMA_LOCK): not a futex field, the
    // neighbour that writes the line; mmap_write_lock()/unlock() increment it.
    alignas(64) typename Env::template word<unsigned> mm_lock_seq{};
    // RCU-published: read by every futex operation, so it is a shared word.
    typename Env::template word<private_hash<Env>*> futex_phash{};
    typename Env::mutex_t futex_hash_lock{};
    private_hash<Env>* futex_phash_new = nullptr;  // under futex_hash_lock
    // The atomic's line: `futex_batches`, `futex_rcu`, `futex_atomic` and
    // `futex_ref`. Only a pivot writes the first two, once each; the per-CPU
    // pointer `futex_ref` is read by gets and puts in FR_PERCPU, which never
    // overlap the atomic's use (each get and put reads fph->state first), so
    // the model charges no access to them (docs/kernel-layout.md).
    alignas(64) unsigned long futex_batches = 0;
    rcu_head futex_rcu;
    // The one line every CPU hammers while the fph is FR_ATOMIC.
    typename Env::template word<long> futex_atomic{};
    std::unique_ptr<typename Env::percpu_uint> futex_ref;  // unsigned int __percpu *

    // Not in the kernel: which kernel's code this process runs, where the
    // versions differ (model/kernel_version.h); v6.17 unless a caller sets
    // it before the first futex operation.
    kernel_version futex_kernel = default_kernel_version;

    // Not in v6.17: what the proposed fixes add (model/policies/policy.h).
    // The pivot policy, a pivot_policy value; stock unless a caller sets it
    // before the first futex operation.
    int futex_policy = 0;
    // The mismatch precheck: futex_wait_setup() reads the futex word before
    // taking a hash reference or the bucket lock.
    bool futex_precheck = false;
    // The pivot policy's own per-mm state, if it declares one (rwsem-gate's
    // gate); set by futex_set_pivot_policy(), read through policy_state<P>().
    std::unique_ptr<policy_mm_state> futex_policy_state;
};

}  // namespace futexsim::model
