"""The names both builds' lock paths share: the model's accesses in
queued_spin_lock_slowpath(), as the simulator names them, a spin's three
reads, and the reasons of the branch decisions between them (the tables
of qspinlock_amd64 and qspinlock_arm64 name a reason by its key)."""

# The model's accesses, as the simulator names them (sim/timed/qspinlock.cpp; the
# table key is the part before the parenthesis).
X = "queued_spin_lock:atomic_try_cmpxchg(lock->val)"
SPINS = {
    # the spin: its first load, the re-read before each wait, the load after it
    "handover": ("atomic_cond_read_relaxed:READ_ONCE(lock->val)",
                 "atomic_cond_read_relaxed:__cmpwait_relaxed(lock->val)",
                 "atomic_cond_read_relaxed:READ_ONCE_again(lock->val)"),
    "pending": ("smp_cond_load_acquire:smp_load_acquire(lock->locked)",
                "smp_cond_load_acquire:__cmpwait_relaxed(lock->locked)",
                "smp_cond_load_acquire:smp_load_acquire_again(lock->locked)"),
    "mcs": ("arch_mcs_spin_lock_contended:smp_load_acquire(node->locked)",
            "arch_mcs_spin_lock_contended:__cmpwait_relaxed(node->locked)",
            "arch_mcs_spin_lock_contended:smp_load_acquire_again(node->locked)"),
    "head": ("atomic_cond_read_acquire:smp_load_acquire(lock->val)",
             "atomic_cond_read_acquire:__cmpwait_relaxed(lock->val)",
             "atomic_cond_read_acquire:smp_load_acquire_again(lock->val)"),
    "next": ("smp_cond_load_relaxed:READ_ONCE(node->next)",
             "smp_cond_load_relaxed:__cmpwait_relaxed(node->next)",
             "smp_cond_load_relaxed:READ_ONCE_again(node->next)"),
}
P_RMW = "queued_fetch_set_pending_acquire:qspinlock_rmw(lock->val)"
P_READ = "queued_fetch_set_pending_acquire:atomic_read(lock->val)"  # x86 only
CP = "clear_pending:qspinlock_rmw(lock->pending)"
CPSL = "clear_pending_set_locked:qspinlock_rmw(lock->locked_pending)"
N_LOCKED = "queued_spin_lock_slowpath:atomic_set(node->locked)"
N_NEXT = "queued_spin_lock_slowpath:atomic_set(node->next)"
T_READ = "queued_spin_trylock:atomic_read(lock->val)"
T_CMPXCHG = "queued_spin_trylock:atomic_try_cmpxchg(lock->val)"
XT = "xchg_tail:qspinlock_rmw(lock->tail)"
W_PREV = "queued_spin_lock_slowpath:atomic_set(prev->next)"
R_NEXT = "queued_spin_lock_slowpath:atomic_read(node->next)"
PREFETCHW = "queued_spin_lock_slowpath:prefetchw(next)"  # no access: a site the segment after it starts at
HC = "queued_spin_lock_slowpath:atomic_try_cmpxchg(lock->val)"
SL = "set_locked:qspinlock_rmw(lock->locked)"
SR = "queued_spin_lock_slowpath:smp_store_release(next->locked)"
EXIT = "exit"


def key_of(site):
    return site.split("(")[0]


# The three reads of each spin, by the spin (H: the hand-over wait, PS: the
# pending bit's owner wait, M: the MCS node, HD: the head's wait, NX: the
# next waiter's link), and which read of them.
H, PS, M, HD, NX = (SPINS[k] for k in ("handover", "pending", "mcs", "head", "next"))
LOAD, CMPWAIT, AGAIN = 0, 1, 2
R = "_raw_spin_lock"  # queued_spin_lock() is inlined into it: the fast path


# Each decision says why (docs/kernel-sites.md, "The bucket lock's slow path").
WHY = {
    "fast-fails": "the lock is taken: the fast path's cmpxchg fails and queued_spin_lock_slowpath() is called",
    "fast-ok": "the lock is free: the fast path's cmpxchg succeeds",
    "pv-call": "the paravirt call pv_ops_lock.queued_spin_lock_slowpath, which boot makes a direct call of "
               "native_queued_spin_lock_slowpath() (alt_replace_call(); bare metal: no PV spinlocks)",
    "is-pending": "val == _Q_PENDING_VAL: wait for the pending->locked hand-over",
    "not-pending": "val != _Q_PENDING_VAL: no hand-over to wait for",
    "uncontended": "no pending bit or tail in val (only the owner): try for the pending bit",
    "contended": "val has the pending bit or a tail: queue",
    "spin-again": "the value the spin waits for has not come: another turn",
    "spin-done": "the spin's condition holds: it ends",
    "cnt-left": "the hand-over wait's count (_Q_PENDING_LOOPS) is not used up",
    "cmpwait-same": "__cmpwait_relaxed(): the word still holds the value read, WFE waits for the next write",
    "cmpwait-changed": "__cmpwait_relaxed(): the word changed since the load: no WFE, back to the load",
    "pending-won": "queued_fetch_set_pending_acquire() saw no other pending bit or tail: we are pending",
    "pending-lost": "queued_fetch_set_pending_acquire() saw a tail or a pending bit: a concurrent locker, queue",
    "owner-there": "the owner still holds the lock: wait for the locked byte to clear",
    "owner-gone": "the owner has gone already: take the lock",
    "pending-ours": "the pending bit was not set before: ours, undo it (clear_pending())",
    "pending-theirs": "the pending bit was someone else's: leave it",
    "node-free": "idx < _Q_MAX_NODES: this CPU's node 0 is free (no nesting)",
    "trylock-busy": "queued_spin_trylock(): the word is not 0, no cmpxchg",
    "trylock-try": "queued_spin_trylock(): the word is 0, try the cmpxchg",
    "trylock-won": "the trylock's cmpxchg succeeds: the lock is ours, release the node",
    "trylock-lost": "the trylock's cmpxchg fails: queue",
    "no-prev": "the old tail is empty: we are the queue's head",
    "prev": "the old tail names a predecessor: link behind it",
    "tail-in-range": "decode_tail()'s CPU is below nr_cpu_ids (UBSAN's bounds check passes)",
    "next-null": "node->next is NULL: nobody linked behind us yet",
    "next-set": "node->next is set: a successor linked in while we waited (prefetchw())",
    "tail-mine": "the tail is still ours: nobody queued behind us, try to clear it with the lock",
    "tail-other": "the tail is someone else's: set the locked byte and hand the MCS lock on",
    "claim-won": "the cmpxchg clearing the tail succeeds: no contention",
    "claim-lost": "the cmpxchg fails (someone queued or set pending meanwhile): set_locked()",
    "next-known": "next was read while waiting: hand off at once",
    "next-unknown": "next is not known yet: wait for the successor to link in",
}


def steps(table):
    """{(FROM, TO): [(function, line, way, why key)]} with the site names'
    keys, each decision's why filled in."""
    return {(key_of(a), key_of(b)): [(f, ln, w, WHY[y]) for f, ln, w, y in d] for (a, b), d in table.items()}
