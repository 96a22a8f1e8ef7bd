"""amd64's compiled slow path (7.2.13's paravirt build, where the slow path
is native_queued_spin_lock_slowpath()): the branch decisions between each
pair of the model's accesses, and the instruction each access is, read
from `objdump -d -l` of _raw_spin_lock() (R) and the slow path (F)."""

from .qspinlock import (AGAIN, CMPWAIT, CP, CPSL, EXIT, H, HC, HD, LOAD, M, N_LOCKED, N_NEXT, NX, P_READ, P_RMW,
                        PREFETCHW, PS, R, R_NEXT, SL, SR, T_CMPXCHG, T_READ, W_PREV, X, XT)

# F: the slow path's symbol in this build; TO_QUEUE: the decision every way into the
# queue ends with. Each table maps a pair of consecutive sites to the decisions
# between them, in walk order (function, DWARF line, way, WHY key); M_*: the
# instruction each site is (function, line, regular expression).
F = "native_queued_spin_lock_slowpath"
TO_QUEUE = [(F, "qspinlock.c:230", "fall", "node-free")]
AMD64 = {
    ("entry", X): [],
    (X, EXIT): [(R, "atomic.h:107", "fall", "fast-ok")],
    (X, H[LOAD]): [(R, "atomic.h:107", "taken", "fast-fails"), (R, "paravirt-spinlock.h:35", "call " + F, "pv-call"),
                   (F, "qspinlock.c:150", "taken", "is-pending")],
    (X, P_RMW): [(R, "atomic.h:107", "taken", "fast-fails"), (R, "paravirt-spinlock.h:35", "call " + F, "pv-call"),
                 (F, "qspinlock.c:150", "fall", "not-pending"), (F, "qspinlock.c:159", "fall", "uncontended")],
    (X, N_LOCKED): [(R, "atomic.h:107", "taken", "fast-fails"), (R, "paravirt-spinlock.h:35", "call " + F, "pv-call"),
                    (F, "qspinlock.c:150", "fall", "not-pending"), (F, "qspinlock.c:159", "taken", "contended")] + TO_QUEUE,
    # the hand-over wait: the first load peeled off the loop, then the
    # loop's load with its count (x86: _Q_PENDING_LOOPS 512)
    (H[LOAD], H[CMPWAIT]): [(F, "qspinlock.c:152", "taken", "spin-again")],
    (H[CMPWAIT], H[AGAIN]): [(F, "qspinlock.c:152", "taken", "spin-again"), (F, "qspinlock.c:152", "fall", "cnt-left")],
    (H[AGAIN], H[CMPWAIT]): [(F, "qspinlock.c:152", "taken", "spin-again"), (F, "qspinlock.c:152", "fall", "cnt-left")],
    (H[LOAD], P_RMW): [(F, "qspinlock.c:152", "fall", "spin-done"), (F, "qspinlock.c:159", "fall", "uncontended")],
    (H[LOAD], N_LOCKED): [(F, "qspinlock.c:152", "fall", "spin-done"), (F, "qspinlock.c:159", "taken", "contended")] + TO_QUEUE,
    (P_RMW, P_READ): [],
    (P_READ, CPSL): [(F, "qspinlock.c:176", "fall", "pending-won"), (F, "qspinlock.c:196", "fall", "owner-gone")],
    (P_READ, PS[LOAD]): [(F, "qspinlock.c:176", "fall", "pending-won"), (F, "qspinlock.c:196", "taken", "owner-there")],
    (P_READ, CP): [(F, "qspinlock.c:176", "taken", "pending-lost"), (F, "qspinlock.c:179", "fall", "pending-ours")],
    (P_READ, N_LOCKED): [(F, "qspinlock.c:176", "taken", "pending-lost"), (F, "qspinlock.c:179", "taken", "pending-theirs")] + TO_QUEUE,
    (CP, N_LOCKED): TO_QUEUE,
    (PS[LOAD], PS[CMPWAIT]): [(F, "qspinlock.c:197", "taken", "spin-again")],
    (PS[CMPWAIT], PS[AGAIN]): [(F, "qspinlock.c:197", "taken", "spin-again")],
    (PS[AGAIN], PS[CMPWAIT]): [(F, "qspinlock.c:197", "taken", "spin-again")],
    (PS[LOAD], CPSL): [(F, "qspinlock.c:197", "fall", "spin-done")],
    (CPSL, EXIT): [],
    (N_LOCKED, N_NEXT): [],
    (N_NEXT, T_READ): [],
    (T_READ, T_CMPXCHG): [(F, "qspinlock.h:94", "fall", "trylock-try")],
    (T_READ, XT): [(F, "qspinlock.h:94", "taken", "trylock-busy")],
    (T_CMPXCHG, EXIT): [(F, "qspinlock.c:260", "fall", "trylock-won")],
    (T_CMPXCHG, XT): [(F, "qspinlock.c:260", "taken", "trylock-lost")],
    (XT, W_PREV): [(F, "qspinlock.c:284", "fall", "prev"), (F, "qspinlock.h:68", "fall", "tail-in-range")],
    (XT, HD[LOAD]): [(F, "qspinlock.c:284", "taken", "no-prev")],
    (W_PREV, M[LOAD]): [],
    (M[LOAD], M[CMPWAIT]): [(F, "qspinlock.c:291", "fall", "spin-again")],
    (M[CMPWAIT], M[AGAIN]): [(F, "qspinlock.c:291", "taken", "spin-again")],
    (M[AGAIN], M[CMPWAIT]): [(F, "qspinlock.c:291", "taken", "spin-again")],
    (M[LOAD], R_NEXT): [(F, "qspinlock.c:291", "taken", "spin-done")],
    (R_NEXT, HD[LOAD]): [(F, "qspinlock.c:300", "taken", "next-null")],
    (R_NEXT, PREFETCHW): [(F, "qspinlock.c:300", "fall", "next-set")],
    (PREFETCHW, HD[LOAD]): [],
    (HD[LOAD], HD[CMPWAIT]): [(F, "qspinlock.c:328", "taken", "spin-again")],
    (HD[CMPWAIT], HD[AGAIN]): [(F, "qspinlock.c:328", "taken", "spin-again")],
    (HD[AGAIN], HD[CMPWAIT]): [(F, "qspinlock.c:328", "taken", "spin-again")],
    (HD[LOAD], HC): [(F, "qspinlock.c:328", "fall", "spin-done"), (F, "qspinlock.c:352", "taken", "tail-mine")],
    (HD[LOAD], SL): [(F, "qspinlock.c:328", "fall", "spin-done"), (F, "qspinlock.c:352", "fall", "tail-other")],
    (HC, EXIT): [(F, "atomic.h:107", "taken", "claim-won")],
    (HC, SL): [(F, "atomic.h:107", "fall", "claim-lost")],
    (SL, SR): [(F, "qspinlock.c:367", "fall", "next-known")],
    (SL, NX[LOAD]): [(F, "qspinlock.c:367", "taken", "next-unknown")],
    (NX[LOAD], NX[CMPWAIT]): [(F, "qspinlock.c:368", "taken", "spin-again")],
    (NX[CMPWAIT], NX[AGAIN]): [(F, "qspinlock.c:368", "taken", "spin-again")],
    (NX[AGAIN], NX[CMPWAIT]): [(F, "qspinlock.c:368", "taken", "spin-again")],
    (NX[LOAD], SR): [(F, "qspinlock.c:368", "fall", "spin-done")],
    (SR, EXIT): [],
}
# x86's re-read and the load after a wait are the same loop load: what
# follows either is what follows the other; where the first load is peeled
# off the loop (the hand-over's, the MCS node's) the loop's own branches
# decide (the hand-over loop's exit tests _Q_LOCKED_MASK with a jbe where
# the peeled load's way has a ja)
for at in (H[CMPWAIT], H[AGAIN]):
    AMD64[(at, P_RMW)] = [(F, "qspinlock.c:152", "fall", "spin-done"), (F, "qspinlock.c:159", "taken", "uncontended")]
    AMD64[(at, N_LOCKED)] = [(F, "qspinlock.c:152", "fall", "spin-done"),
                             (F, "qspinlock.c:159", "fall", "contended")] + TO_QUEUE
    AMD64[(M[CMPWAIT] if at == H[CMPWAIT] else M[AGAIN], R_NEXT)] = [(F, "qspinlock.c:291", "fall", "spin-done")]
for (a, b), d in list(AMD64.items()):
    for spin_ in (PS, HD, NX):
        if a == spin_[LOAD] and b not in spin_:
            AMD64.setdefault((spin_[CMPWAIT], b), d)
            AMD64.setdefault((spin_[AGAIN], b), d)
M_AMD64 = {
    X: (R, "atomic.h:107", r"^lock cmpxchg"),
    H[LOAD]: (F, "qspinlock.c:152", r"^mov\s+\(%r\w+\),%esi"),
    H[CMPWAIT]: (F, "qspinlock.c:152", r"^mov\s+\(%r\w+\),%esi"),
    H[AGAIN]: (F, "qspinlock.c:152", r"^mov\s+\(%r\w+\),%esi"),
    P_RMW: (F, "qspinlock.h:26", r"^lock bts"),
    P_READ: (F, "atomic.h:23", r"^mov\s+\(%rcx\),%eax"),
    CP: (F, "qspinlock.h:88", r"^movb\s+\$0x0,0x1\("),
    CPSL: (F, "qspinlock.h:101", r"^mov\s+%di,\("),
    PS[LOAD]: (F, "qspinlock.c:197", r"^cmpb\s+\$0x0,\("),
    PS[CMPWAIT]: (F, "qspinlock.c:197", r"^cmpb\s+\$0x0,\("),
    PS[AGAIN]: (F, "qspinlock.c:197", r"^cmpb\s+\$0x0,\("),
    N_LOCKED: (F, "qspinlock.c:251", r"^movl\s+\$0x0,0x8\("),
    N_NEXT: (F, "qspinlock.c:252", r"^movq\s+\$0x0,\("),
    T_READ: (F, "atomic.h:23", r"^mov\s+\(%rcx\),%eax"),
    T_CMPXCHG: (F, "atomic.h:107", r"^lock cmpxchg"),
    XT: (F, "qspinlock.h:120", r"^xchg\s+%ax,0x2\("),
    W_PREV: (F, "qspinlock.c:288", r"^mov\s+%rdx,\("),
    M[LOAD]: (F, "qspinlock.c:291", r"^mov\s+0x8\(%rdx\),"),
    M[CMPWAIT]: (F, "qspinlock.c:291", r"^mov\s+0x8\(%rdx\),"),
    M[AGAIN]: (F, "qspinlock.c:291", r"^mov\s+0x8\(%rdx\),"),
    R_NEXT: (F, "qspinlock.c:299", r"^mov\s+\(%rdx\),%rsi"),
    PREFETCHW: (F, "processor.h:644", r"^prefetch"),
    HD[LOAD]: (F, "qspinlock.c:328", r"^mov\s+\(%rcx\),%eax"),
    HD[CMPWAIT]: (F, "qspinlock.c:328", r"^mov\s+\(%rcx\),%eax"),
    HD[AGAIN]: (F, "qspinlock.c:328", r"^mov\s+\(%rcx\),%eax"),
    HC: (F, "atomic.h:107", r"^lock cmpxchg"),
    SL: (F, "qspinlock.h:198", r"^movb\s+\$0x1,\("),
    NX[LOAD]: (F, "qspinlock.c:368", r"^mov\s+\(%rdx\),%rsi"),
    NX[CMPWAIT]: (F, "qspinlock.c:368", r"^mov\s+\(%rdx\),%rsi"),
    NX[AGAIN]: (F, "qspinlock.c:368", r"^mov\s+\(%rdx\),%rsi"),
    SR: (F, "qspinlock.c:370", r"^movl\s+\$0x1,0x8\("),
}
