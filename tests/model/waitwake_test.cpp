// futex_wait(), futex_wake(), futex_wake_op() and futex_requeue() on the
// step environment: what they return, what they leave queued, and that the
// hash reference count is back where it was after each of them (a sleeping
// waiter holds no reference).
#include <catch2/catch.hpp>

#include <array>
#include <climits>
#include <functional>
#include <vector>

#include "sim/step/step_process.h"

using futexsim::sim::step_env;
using futexsim::sim::step_process;
namespace model = futexsim::model;
using q_t = model::futex_q<step_env>;

static_assert(model::futex_env<step_env>);
static_assert(model::futex_wait_env<step_env>);

namespace {

constexpr std::uint64_t F1 = 0x7f0000001000ull;
constexpr std::uint64_t F2 = 0x7f0000002040ull;
constexpr std::uint64_t UNMAPPED = 0x7f0000003000ull;

// A process with a 16-slot private hash, a grace period past its
// publication, and two futex words (0).
struct fixture {
    step_process p{8};
    long initial = 0;

    fixture()
    {
        p.clone_thread();
        p.env.end_grace_period();
        p.env.user_memory[F1] = 0;
        p.env.user_memory[F2] = 0;
        initial = p.references();
    }

    int total_waiters()
    {
        int n = 0;
        if (auto* fph = p.current())
            for (auto& hb : fph->queues)
                n += p.env.atomic_read(hb.waiters);
        for (auto& node : p.global.queues)
            for (auto& hb : node)
                n += p.env.atomic_read(hb.waiters);
        return n;
    }
    std::size_t chained()
    {
        std::size_t n = 0;
        if (auto* fph = p.current())
            for (auto& hb : fph->queues)
                n += hb.chain.size();
        for (auto& node : p.global.queues)
            for (auto& hb : node)
                n += hb.chain.size();
        return n;
    }

    model::futex_key key(std::uint64_t uaddr)
    {
        model::futex_key k;
        REQUIRE(model::get_futex_key(&p.mm, uaddr, 0, &k) == 0);
        return k;
    }

    // FUTEX_WAIT up to the sleep: q queued on uaddr, nothing held.
    int queue(q_t& q, std::uint64_t uaddr, std::uint32_t val, void* task = nullptr)
    {
        return model::futex_wait_setup(&p.mm, uaddr, val, 0, &q, nullptr, task);
    }
};

}  // namespace

TEST_CASE("a wait on a changed value returns EWOULDBLOCK and leaves nothing behind", "[waitwake]")
{
    fixture f;
    f.p.env.user_memory[F1] = 1;
    CHECK(f.p.futex_wait(F1, 0) == -model::EWOULDBLOCK_);
    CHECK(f.p.futex_wait(F1, 0) == -11);
    CHECK(f.p.env.futex_sleeps() == 0);
    CHECK(f.total_waiters() == 0);
    CHECK(f.chained() == 0);
    CHECK(f.p.references() == f.initial);

    q_t q;
    CHECK(f.queue(q, F1, 0) == -model::EWOULDBLOCK_);
    CHECK(q.hb == nullptr);
    CHECK(f.total_waiters() == 0);
    CHECK(f.p.references() == f.initial);
    CHECK(f.p.env.warnings().empty());
}

TEST_CASE("bad addresses: EFAULT and EINVAL, nothing left behind", "[waitwake]")
{
    fixture f;
    CHECK(f.p.futex_wait(UNMAPPED, 0) == -model::EFAULT_);
    CHECK(f.p.futex_wait(F1 + 2, 0) == -model::EINVAL_);
    CHECK(f.p.futex_wait(F1, 0, -1, 0) == -model::EINVAL_);  // empty bitset
    CHECK(f.p.futex_wake(F1, 1, 0) == -model::EINVAL_);
    CHECK(f.p.futex_cmp_requeue(UNMAPPED, F2, 1, 1, 0) == -model::EFAULT_);
    CHECK(f.p.futex_wake_op(F1, UNMAPPED, 1, 1, model::FUTEX_OP(model::FUTEX_OP_SET, 1, 0, 0)) ==
          -model::EFAULT_);
    CHECK(f.total_waiters() == 0);
    CHECK(f.chained() == 0);
    CHECK(f.p.references() == f.initial);
}

TEST_CASE("a sleeping waiter holds no reference and is woken by futex_wake", "[waitwake]")
{
    fixture f;
    int task = 0;
    f.p.env.set_task(&task);
    int woke = -1;
    f.p.env.on_futex_sleep([&](q_t* q) {
        // Asleep: queued, counted in its bucket, no reference held.
        CHECK(q->hb != nullptr);
        CHECK(q->task == &task);
        CHECK(f.p.env.atomic_read(q->hb->waiters) == 1);
        CHECK(f.p.references() == f.initial);
        f.p.env.user_memory[F1] = 1;
        woke = f.p.futex_wake(F1, 1);
        CHECK(q->lock_ptr == nullptr);
    });
    CHECK(f.p.futex_wait(F1, 0) == 0);
    CHECK(woke == 1);
    CHECK(f.p.env.futex_sleeps() == 1);
    REQUIRE(f.p.env.woken_tasks().size() == 1);
    CHECK(f.p.env.woken_tasks()[0] == &task);
    CHECK(f.total_waiters() == 0);
    CHECK(f.p.references() == f.initial);
    CHECK(f.p.futex_wake(F1, 1) == 0);  // nobody left
    CHECK(f.p.references() == f.initial);
}

TEST_CASE("futex_wake wakes at most nr_wake, first queued first", "[waitwake]")
{
    fixture f;
    std::array<q_t, 5> qs;
    std::array<int, 5> tasks{};
    for (std::size_t i = 0; i < qs.size(); i++)
        REQUIRE(f.queue(qs[i], F1, 0, &tasks[i]) == 0);
    q_t other;
    REQUIRE(f.queue(other, F2, 0) == 0);
    CHECK(f.total_waiters() == 6);
    CHECK(f.p.references() == f.initial);

    CHECK(f.p.futex_wake(F1, 2) == 2);
    CHECK(qs[0].lock_ptr == nullptr);
    CHECK(qs[1].lock_ptr == nullptr);
    CHECK(qs[2].lock_ptr != nullptr);
    REQUIRE(f.p.env.woken_tasks().size() == 2);
    CHECK(f.p.env.woken_tasks()[0] == &tasks[0]);
    CHECK(f.p.env.woken_tasks()[1] == &tasks[1]);
    CHECK(f.p.references() == f.initial);

    CHECK(f.p.futex_wake(F1, INT_MAX) == 3);
    CHECK(f.p.futex_wake(F1, INT_MAX) == 0);
    CHECK(other.lock_ptr != nullptr);  // another futex: untouched
    for (auto& q : qs)
        CHECK(model::futex_unqueue(f.p.env, &q) == 0);  // the waker got there first
    CHECK(model::futex_unqueue(f.p.env, &other) == 1);  // still queued: we remove it
    CHECK(f.total_waiters() == 0);
    CHECK(f.chained() == 0);
    CHECK(f.p.references() == f.initial);
}

TEST_CASE("futex_wake matches bitsets", "[waitwake]")
{
    fixture f;
    q_t a;
    q_t b;
    q_t c;
    a.bitset = 0x1;
    b.bitset = 0x2;
    c.bitset = 0x3;
    REQUIRE(f.queue(a, F1, 0) == 0);
    REQUIRE(f.queue(b, F1, 0) == 0);
    REQUIRE(f.queue(c, F1, 0) == 0);

    CHECK(f.p.futex_wake(F1, 10, 0x4) == 0);
    CHECK(f.p.futex_wake(F1, 10, 0x2) == 2);
    CHECK(a.lock_ptr != nullptr);
    CHECK(b.lock_ptr == nullptr);
    CHECK(c.lock_ptr == nullptr);
    CHECK(f.p.futex_wake(F1, 10, model::FUTEX_BITSET_MATCH_ANY) == 1);
    CHECK(f.total_waiters() == 0);
    CHECK(f.p.references() == f.initial);
}

TEST_CASE("timeouts, signals and spurious wakeups", "[waitwake]")
{
    fixture f;
    SECTION("nobody wakes it: the timer fires")
    {
        CHECK(f.p.futex_wait(F1, 0, 1000) == -model::ETIMEDOUT_);
        CHECK(f.p.futex_wait(F1, 0, 0) == -110);
    }
    SECTION("woken before the timer fires")
    {
        f.p.env.on_futex_sleep([&](q_t*) { CHECK(f.p.futex_wake(F1, 1) == 1); });
        CHECK(f.p.futex_wait(F1, 0, 1000) == 0);
    }
    SECTION("a signal, no timeout: -ERESTARTSYS")
    {
        CHECK(f.p.futex_wait(F1, 0) == -model::ERESTARTSYS_);
        CHECK(f.p.env.interrupted_sleeps() == 1);
    }
    SECTION("a signal with a timeout restarts through the restart block")
    {
        f.p.env.on_futex_sleep([&](q_t*) { f.p.env.end_sleep_with(model::sleep_end::signal); });
        CHECK(f.p.futex_wait(F1, 0, 1000) == -model::ERESTART_RESTARTBLOCK_);
    }
    SECTION("a spurious wakeup waits again")
    {
        int sleeps = 0;
        f.p.env.on_futex_sleep([&](q_t*) {
            if (++sleeps == 1) {
                CHECK(f.p.references() == f.initial);
                f.p.env.end_sleep_with(model::sleep_end::wakeup);  // still queued
                return;
            }
            CHECK(f.p.futex_wake(F1, 1) == 1);
        });
        CHECK(f.p.futex_wait(F1, 0) == 0);
        CHECK(sleeps == 2);
    }
    CHECK(f.total_waiters() == 0);
    CHECK(f.chained() == 0);
    CHECK(f.p.references() == f.initial);
    CHECK(f.p.env.warnings().empty());
}

TEST_CASE("requeue_multiple: cmp_requeue of 10 waiters wakes 3 and moves 7", "[requeue]")
{
    // tools/testing/selftests/futex/functional/futex_requeue.c: ten threads
    // wait on f1; futex_cmp_requeue(f1, 0, &f2, 3, 7) returns 10, and a
    // futex_wake(&f2, 10) then returns 7. Here each waiter is a full
    // futex_wait() asleep in the hook of the one before.
    fixture f;
    constexpr int n = 10;
    std::array<int, n> tasks{};
    std::vector<int> results;
    int started = 0;
    int requeued = -1;
    int woken2 = -1;

    std::function<void()> start_waiter = [&] {
        f.p.env.set_task(&tasks[static_cast<std::size_t>(started++)]);
        results.push_back(f.p.futex_wait(F1, 0));
    };
    f.p.env.on_futex_sleep([&](q_t*) {
        if (started < n) {
            start_waiter();
            return;
        }
        // Ten asleep, none holding a reference.
        CHECK(f.p.env.sleepers().size() == static_cast<std::size_t>(n));
        CHECK(f.total_waiters() == n);
        CHECK(f.p.references() == f.initial);

        requeued = f.p.futex_cmp_requeue(F1, F2, 3, 7, 0);
        CHECK(f.total_waiters() == 7);
        CHECK(f.p.references() == f.initial);
        CHECK(f.p.futex_wake(F1, n) == 0);  // nothing left on f1
        woken2 = f.p.futex_wake(F2, n);
        CHECK(f.p.references() == f.initial);
    });
    start_waiter();

    CHECK(requeued == 10);
    CHECK(woken2 == 7);
    CHECK(results == std::vector<int>(n, 0));
    REQUIRE(f.p.env.woken_tasks().size() == static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); i++)
        CHECK(f.p.env.woken_tasks()[i] == &tasks[i]);  // FIFO: 3 woken, then the 7 moved
    CHECK(f.total_waiters() == 0);
    CHECK(f.chained() == 0);
    CHECK(f.p.references() == f.initial);
    CHECK(f.p.env.warnings().empty());
}

TEST_CASE("requeue moves waiters to the second futex's bucket", "[requeue]")
{
    fixture f;
    std::array<q_t, 4> qs;
    for (auto& q : qs)
        REQUIRE(f.queue(q, F1, 0) == 0);
    auto* hb2 = model::__futex_hash(&f.p.mm, f.key(F2), f.p.current());

    CHECK(f.p.futex_requeue(F1, F2, 1, 2) == 3);  // FUTEX_REQUEUE: no value check
    CHECK(qs[0].lock_ptr == nullptr);
    for (std::size_t i = 1; i <= 2; i++) {
        CHECK(qs[i].hb == hb2);
        CHECK(qs[i].lock_ptr == &hb2->lock);
        CHECK(qs[i].key == f.key(F2));
    }
    CHECK(qs[3].hb != nullptr);  // beyond nr_requeue: stays on f1
    CHECK(qs[3].key == f.key(F1));
    CHECK(f.p.env.atomic_read(hb2->waiters) == 2);
    CHECK(f.p.references() == f.initial);

    CHECK(f.p.futex_requeue(F2, F2, 0, 10) == 2);  // onto itself: same bucket, nothing moves
    CHECK(f.p.futex_requeue(F1, F2, -1, 1) == -model::EINVAL_);
    CHECK(f.p.futex_wake(F2, 10) == 2);
    CHECK(f.p.futex_wake(F1, 10) == 1);
    CHECK(f.total_waiters() == 0);
    CHECK(f.chained() == 0);
    CHECK(f.p.references() == f.initial);
}

TEST_CASE("cmp_requeue with a stale cmpval returns EAGAIN and moves nothing", "[requeue]")
{
    fixture f;
    f.p.env.user_memory[F1] = 5;
    std::array<q_t, 3> qs;
    for (auto& q : qs)
        REQUIRE(f.queue(q, F1, 5) == 0);

    CHECK(f.p.futex_cmp_requeue(F1, F2, 1, 2, 4) == -model::EAGAIN_);
    for (auto& q : qs) {
        CHECK(q.lock_ptr != nullptr);
        CHECK(q.key == f.key(F1));
    }
    CHECK(f.total_waiters() == 3);  // hb2's temporary count is gone again
    CHECK(f.p.env.woken_tasks().empty());
    CHECK(f.p.references() == f.initial);

    CHECK(f.p.futex_cmp_requeue(F1, F2, 1, 2, 5) == 3);
    CHECK(f.p.futex_wake(F2, 10) == 2);
    CHECK(f.total_waiters() == 0);
    CHECK(f.p.references() == f.initial);
}

TEST_CASE("wake_op applies the op to the second word and wakes by the comparison", "[wake_op]")
{
    using model::FUTEX_OP;
    struct row {
        unsigned op;
        int oparg;
        unsigned cmp;
        int cmparg;
        std::uint32_t before;
        std::uint32_t after;
        bool wakes2;
    };
    const std::vector<row> rows = {
        {model::FUTEX_OP_SET, 1, model::FUTEX_OP_CMP_EQ, 0, 0, 1, true},
        {model::FUTEX_OP_SET, 7, model::FUTEX_OP_CMP_EQ, 1, 0, 7, false},
        {model::FUTEX_OP_ADD, 5, model::FUTEX_OP_CMP_NE, 3, 3, 8, false},
        {model::FUTEX_OP_ADD, -1, model::FUTEX_OP_CMP_NE, 3, 10, 9, true},  // oparg sign-extended
        {model::FUTEX_OP_OR, 0x30, model::FUTEX_OP_CMP_LT, 2, 1, 0x31, true},
        {model::FUTEX_OP_OR, 0x30, model::FUTEX_OP_CMP_LT, 2, 2, 0x32, false},
        {model::FUTEX_OP_ANDN, 0x3, model::FUTEX_OP_CMP_LE, 0xf, 0xf, 0xc, true},
        {model::FUTEX_OP_ANDN, 0x3, model::FUTEX_OP_CMP_LE, 0xe, 0xf, 0xc, false},
        {model::FUTEX_OP_XOR, 0xff, model::FUTEX_OP_CMP_GT, 0, 0x0f, 0xf0, true},
        {model::FUTEX_OP_XOR, 0xff, model::FUTEX_OP_CMP_GT, 0x0f, 0x0f, 0xf0, false},
        {model::FUTEX_OP_SET, 0, model::FUTEX_OP_CMP_GE, 4, 4, 0, true},
        {model::FUTEX_OP_SET, 0, model::FUTEX_OP_CMP_GE, 4, 3, 0, false},
        // cmparg sign-extended, old value compared as a signed int
        {model::FUTEX_OP_SET, 0, model::FUTEX_OP_CMP_LT, -1, 0xfffffffb, 0, true},
        // (1 << 4) with FUTEX_OP_OPARG_SHIFT
        {model::FUTEX_OP_OR | model::FUTEX_OP_OPARG_SHIFT, 4, model::FUTEX_OP_CMP_EQ, 0, 1, 0x11, false},
        // a shift out of range is masked to 0..31: 33 -> 1
        {model::FUTEX_OP_SET | model::FUTEX_OP_OPARG_SHIFT, 33, model::FUTEX_OP_CMP_EQ, 0, 0, 2, true},
    };
    for (const auto& r : rows) {
        fixture f;
        INFO("op " << r.op << " oparg " << r.oparg << " cmp " << r.cmp << " cmparg " << r.cmparg
                   << " before " << r.before);
        f.p.env.user_memory[F2] = r.before;
        q_t w1;
        q_t w2;
        REQUIRE(f.queue(w1, F1, 0) == 0);
        REQUIRE(f.queue(w2, F2, r.before) == 0);
        const int ret = f.p.futex_wake_op(F1, F2, 1, 1, FUTEX_OP(r.op, r.oparg, r.cmp, r.cmparg));
        CHECK(ret == (r.wakes2 ? 2 : 1));
        CHECK(f.p.env.user_memory[F2] == r.after);
        CHECK(w1.lock_ptr == nullptr);
        CHECK((w2.lock_ptr == nullptr) == r.wakes2);
        if (!r.wakes2)
            CHECK(model::futex_unqueue(f.p.env, &w2) == 1);
        CHECK(f.total_waiters() == 0);
        CHECK(f.p.references() == f.initial);
    }
}

TEST_CASE("wake_op limits, bad ops and faults", "[wake_op]")
{
    using model::FUTEX_OP;
    fixture f;
    std::array<q_t, 3> on1;
    std::array<q_t, 3> on2;
    for (auto& q : on1)
        REQUIRE(f.queue(q, F1, 0) == 0);
    for (auto& q : on2)
        REQUIRE(f.queue(q, F2, 0) == 0);

    // nr_wake on uaddr1, nr_wake2 on uaddr2
    CHECK(f.p.futex_wake_op(F1, F2, 2, 1, FUTEX_OP(model::FUTEX_OP_ADD, 1, model::FUTEX_OP_CMP_EQ, 0)) == 3);
    CHECK(f.p.env.user_memory[F2] == 1);
    CHECK(f.total_waiters() == 3);
    CHECK(f.p.references() == f.initial);

    // An unknown op: -ENOSYS, the word untouched, nobody woken.
    CHECK(f.p.futex_wake_op(F1, F2, 10, 10, FUTEX_OP(5, 1, model::FUTEX_OP_CMP_EQ, 0)) == -model::ENOSYS_);
    CHECK(f.p.env.user_memory[F2] == 1);
    // An unknown comparison: the op is done, then -ENOSYS, nobody woken.
    CHECK(f.p.futex_wake_op(F1, F2, 10, 10, FUTEX_OP(model::FUTEX_OP_SET, 9, 6, 0)) == -model::ENOSYS_);
    CHECK(f.p.env.user_memory[F2] == 9);
    // uaddr2 not mapped: the fault cannot be fixed, -EFAULT.
    CHECK(f.p.futex_wake_op(F1, UNMAPPED, 10, 10, FUTEX_OP(model::FUTEX_OP_SET, 1, 0, 0)) == -model::EFAULT_);
    CHECK(f.total_waiters() == 3);
    CHECK(f.p.env.woken_tasks().size() == 3);
    CHECK(f.p.references() == f.initial);

    // One word for both: its waiters are woken once per side.
    CHECK(f.p.futex_wake_op(F2, F2, 1, 10, FUTEX_OP(model::FUTEX_OP_SET, 0, model::FUTEX_OP_CMP_EQ, 9)) == 2);
    CHECK(f.p.futex_wake(F1, 10) == 1);
    CHECK(f.total_waiters() == 0);
    CHECK(f.chained() == 0);
    CHECK(f.p.references() == f.initial);
    CHECK(f.p.env.warnings().empty());
}

TEST_CASE("on the global hash no reference is taken", "[waitwake]")
{
    step_process p(8);  // no thread yet: no private hash
    p.env.user_memory[F1] = 0;
    p.env.user_memory[F2] = 0;
    REQUIRE(p.current() == nullptr);
    q_t a;
    q_t b;
    REQUIRE(model::futex_wait_setup(&p.mm, F1, 0, 0, &a, nullptr, nullptr) == 0);
    REQUIRE(model::futex_wait_setup(&p.mm, F1, 0, 0, &b, nullptr, nullptr) == 0);
    CHECK(a.hb->priv == nullptr);
    CHECK(p.futex_cmp_requeue(F1, F2, 1, 1, 0) == 2);
    CHECK(p.futex_wake_op(F2, F1, 1, 1, model::FUTEX_OP(model::FUTEX_OP_SET, 1, 0, 0)) == 1);
    CHECK(p.futex_wait(F1, 0) == -model::EWOULDBLOCK_);
    CHECK(p.references() == 0);
    CHECK(p.env.warnings().empty());
}

TEST_CASE("in FR_ATOMIC every operation gives back the atomic reference it took", "[waitwake]")
{
    fixture f;
    // Another thread is inside a futex operation: it holds a reference, so
    // the replacement asked for below cannot be installed yet.
    auto* held = model::futex_private_hash(&f.p.mm);
    REQUIRE(model::futex_hash_allocate(&f.p.mm, 64, 0) == 0);
    f.p.env.end_grace_period();  // fold: FR_ATOMIC, one reference left
    REQUIRE(f.p.env.atomic_read(held->state) == model::FR_ATOMIC);
    REQUIRE(f.p.env.atomic_read(f.p.mm.futex_atomic) == 1);
    REQUIRE(f.p.percpu_sum() == 1);  // the next hash's initial reference

    auto atomic_now = [&] { return f.p.env.atomic_read(f.p.mm.futex_atomic); };
    q_t q;
    CHECK(f.queue(q, F1, 0) == 0);
    CHECK(atomic_now() == 1);
    f.p.env.user_memory[F1] = 3;
    CHECK(f.p.futex_wait(F1, 0) == -model::EWOULDBLOCK_);
    CHECK(atomic_now() == 1);
    CHECK(f.p.futex_cmp_requeue(F1, F2, 0, 1, 3) == 1);
    CHECK(atomic_now() == 1);
    CHECK(f.p.futex_wake_op(F1, F2, 1, 1, model::FUTEX_OP(model::FUTEX_OP_SET, 1, 0, 0)) == 1);
    CHECK(atomic_now() == 1);
    CHECK(f.p.futex_wake(F2, 1) == 0);
    CHECK(atomic_now() == 1);
    CHECK(f.p.get_slots() == 16);  // still the old hash

    // The holder leaves; the next operation installs the new hash.
    model::futex_private_hash_put(held);
    CHECK(model::futex_ref_is_dead(held));
    CHECK(f.p.futex_wake(F1, 1) == 0);
    CHECK(f.p.get_slots() == 64);
    CHECK(f.p.references() == f.initial);
    CHECK(f.p.env.warnings().empty());
}

TEST_CASE("a waiter queued before a rehash is found by a wake after the pivot", "[rehash][waitwake]")
{
    step_process p(64);
    p.clone_thread();  // 16 slots
    p.env.end_grace_period();
    p.env.user_memory[F1] = 0;
    const long initial = p.references();
    auto* old = p.current();
    REQUIRE(model::fph_slots(old) == 16);

    int task = 0;
    p.env.set_task(&task);
    int woke = -1;
    q_t other;  // a second waiter, queued behind the sleeper, to watch where the rehash puts it
    p.env.on_futex_sleep([&](q_t* q) {
        CHECK(q->hb->priv == old);
        REQUIRE(model::futex_wait_setup(&p.mm, F1, 0, 0, &other, nullptr, nullptr) == 0);
        CHECK(other.hb == q->hb);
        // The sleeper holds no reference, so the old hash can die.
        REQUIRE(model::futex_hash_allocate(&p.mm, 256, 0) == 0);
        CHECK(p.env.atomic_read(old->state) == model::FR_ATOMIC);
        p.env.end_grace_period();  // fold: nobody holds a reference
        CHECK(model::futex_ref_is_dead(old));
        CHECK(p.get_slots() == 16);  // parked, not yet installed

        // The wake fails to reference the dead hash, pivots (rehashing both
        // waiters into 256 slots) and finds the first waiter there.
        woke = p.futex_wake(F1, 1);
        CHECK(q->lock_ptr == nullptr);
    });
    CHECK(p.futex_wait(F1, 0) == 0);
    CHECK(woke == 1);
    auto* now = p.current();
    REQUIRE(model::fph_slots(now) == 256);
    REQUIRE(p.env.woken_tasks().size() == 1);
    CHECK(p.env.woken_tasks()[0] == &task);

    // The other waiter was moved: its bucket and lock are the new hash's.
    REQUIRE(other.hb != nullptr);
    CHECK(other.hb->priv == now);
    CHECK(other.lock_ptr == &other.hb->lock);
    CHECK(other.hb == model::__futex_hash(&p.mm, other.key, now));
    CHECK(p.env.atomic_read(other.hb->waiters) == 1);
    CHECK(p.futex_wake(F1, 1) == 1);
    CHECK(other.lock_ptr == nullptr);
    CHECK(p.references() == initial);
    CHECK(p.env.warnings().empty());
}

// Shared keys (FLAGS_SHARED, a futex op without FUTEX_PRIVATE_FLAG on
// anonymous memory): get_futex_key() sets FUT_OFF_MMSHARED, so
// futex_key_is_private() is false and futex_hash() returns a global bucket,
// whose priv is NULL: no private-hash reference, whatever the private hash
// is doing.
TEST_CASE("a shared wait queues on the global hash with no private reference, and only a shared wake finds it",
          "[waitwake]")
{
    fixture f;
    model::futex_key k;
    REQUIRE(model::get_futex_key(&f.p.mm, F1, model::FLAGS_SHARED, &k) == 0);
    CHECK(!model::futex_key_is_private(k));
    CHECK((k.offset & model::FUT_OFF_MMSHARED) != 0);
    CHECK(k.offset % 4096 == (F1 % 4096 | model::FUT_OFF_MMSHARED));
    CHECK(model::futex_key_is_private(f.key(F1)));

    int task = 0;
    f.p.env.set_task(&task);
    int private_woke = -1, shared_woke = -1;
    std::size_t gets = 0;
    f.p.env.on_futex_sleep([&](q_t* q) {
        CHECK(q->hb->priv == nullptr);  // a global bucket
        CHECK(!model::futex_key_is_private(q->key));
        CHECK(f.p.references() == f.initial);
        private_woke = f.p.futex_wake(F1, 1);  // another key: FUTEX_WAKE_PRIVATE misses it
        gets = f.p.env.trace_log().size();
        shared_woke = f.p.futex_wake(F1, 1, model::FUTEX_BITSET_MATCH_ANY, model::FLAGS_SHARED);
    });
    CHECK(f.p.futex_wait(F1, 0, -1, model::FUTEX_BITSET_MATCH_ANY, model::FLAGS_SHARED) == 0);
    CHECK(private_woke == 0);
    CHECK(shared_woke == 1);
    // The shared wake fired no tracepoint: futex_ref_get() was never called.
    CHECK(f.p.env.trace_log().size() == gets);
    CHECK(f.total_waiters() == 0);
    CHECK(f.chained() == 0);
    CHECK(f.p.references() == f.initial);
}

TEST_CASE("shared requeue moves shared waiters between global buckets without private references", "[waitwake]")
{
    fixture f;
    q_t a, b;
    REQUIRE(model::futex_wait_setup(&f.p.mm, F1, 0, model::FLAGS_SHARED, &a, nullptr, nullptr) == 0);
    REQUIRE(model::futex_wait_setup(&f.p.mm, F1, 0, model::FLAGS_SHARED, &b, nullptr, nullptr) == 0);
    // A private requeue sees other keys: nothing to move.
    CHECK(f.p.futex_cmp_requeue(F1, F2, 0, 2, 0) == 0);
    CHECK(f.p.futex_cmp_requeue(F1, F2, 1, 1, 0, model::FLAGS_SHARED) == 2);
    CHECK(a.lock_ptr == nullptr);  // woken
    REQUIRE(b.hb != nullptr);
    CHECK(b.hb->priv == nullptr);
    CHECK(b.key.address == F2 - F2 % 4096);
    CHECK(f.p.futex_wake(F2, 1, model::FUTEX_BITSET_MATCH_ANY, model::FLAGS_SHARED) == 1);
    CHECK(f.total_waiters() == 0);
    CHECK(f.p.references() == f.initial);
}
