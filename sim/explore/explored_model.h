// The model's types as the explorer runs them: the process's mm, a private
// hash and a waiter's futex_q, on explore_env.
#pragma once

#include "model/core.h"
#include "sim/explore/explore_env.h"

namespace futexsim::sim::explore {

using explored_mm = model::mm_struct<explore_env>;
using explored_hash = model::private_hash<explore_env>;
using explored_futex_q = model::futex_q<explore_env>;

}  // namespace futexsim::sim::explore
