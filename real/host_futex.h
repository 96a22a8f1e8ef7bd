// The host's futex(2) op codes, as <linux/futex.h> defines them: its macros
// would clash with the model's FUTEX_OP_* constants of the same names.
#pragma once

namespace futexsim::real {

constexpr int host_FUTEX_WAIT = 0;
constexpr int host_FUTEX_WAKE = 1;
constexpr int host_FUTEX_CMP_REQUEUE = 4;
constexpr int host_FUTEX_WAKE_OP = 5;
constexpr int host_FUTEX_PRIVATE_FLAG = 128;

}  // namespace futexsim::real
