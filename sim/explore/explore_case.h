// A generated case for the explorer: what each thread of one process does,
// written as a short string so that a failing case fits on one command line.
//
//   threads separated by '/', operations by '.', a trailing '*' loops the
//   thread until the run ends. Thread 0 is the main thread; the others start
//   only when some thread's `C` creates them, in order.
//
//   W<a>        futex_wait on word a with the value it reads first
//   T<a>:<n>    the same with a timeout of n steps
//   M<a>        futex_wait on word a with a value it does not hold (EAGAIN)
//   K<a>:<n>    futex_wake(a, n)
//   V<a>:<n>    user space stores word a + 1 to word a (a plain store, which
//               waits in the store buffer under a weak memory model), then
//               futex_wake(a, n): a semaphore's post
//   O<a>:<b>    futex_wake_op(a, b, 1, 1, FUTEX_OP(ADD, 1, CMP_GT, 0))
//   R<a>:<b>:<n> futex_requeue(a, b, 1, n)
//   L<a>        pthread_mutex_lock() of a PI mutex on word a: user space's
//               cmpxchg 0 -> TID, else FUTEX_LOCK_PI
//   U<a>        its unlock: cmpxchg TID -> 0, else FUTEX_UNLOCK_PI
//   Y<a>        FUTEX_TRYLOCK_PI on word a
//   Q<a>:<b>    FUTEX_WAIT_REQUEUE_PI on word a (the value it reads first),
//               to be requeued to the PI futex b; returns owning b
//   X<a>:<b>:<n> FUTEX_CMP_REQUEUE_PI: word a += 1 (user space), then wake
//               one waiter on a (it takes b) and requeue up to n to b
//   P<n>        prctl(PR_FUTEX_HASH_SET_SLOTS, n)
//   G           prctl(PR_FUTEX_HASH_GET_SLOTS)
//   C           pthread_create(): clone() sizes the hash, the next thread starts
//   S<n>        nanosleep for n steps
//
// Words a, b are 0..3 (four futex words, all 0 at the start).
// Example: "C.C.K0:1/W0/T0:40*".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace futexsim::sim::explore {

inline constexpr unsigned num_words = 4;

// Where futex word `w` lives in the process's user memory (explore_env's
// user_word()): a 64-byte line each, from 0x10000.
inline std::uint64_t word_address(unsigned w) { return 0x10000 + 64ull * w; }

struct case_op {
    char kind = 'G';
    unsigned a = 0, b = 0, n = 0;
    friend bool operator==(const case_op&, const case_op&) = default;
};

struct case_thread {
    std::vector<case_op> ops;
    bool loop = false;
    friend bool operator==(const case_thread&, const case_thread&) = default;
};

struct case_spec {
    std::vector<case_thread> threads;
    friend bool operator==(const case_spec&, const case_spec&) = default;
};

std::string format_case(const case_spec& c);
// nullopt and a reason in `error` for text that is not a case.
std::optional<case_spec> parse_case(std::string_view text, std::string* error = nullptr);
std::string format_op(const case_op& op);
// Operations in the case: the size a shrunk counterexample is measured by.
std::size_t case_size(const case_spec& c);

}  // namespace futexsim::sim::explore
