#include "sim/trace_format.h"

#include <fmt/format.h>

namespace futexsim::sim {

namespace {
std::string slots_text(unsigned slots)
{
    return slots ? fmt::format("{} slots", slots) : std::string("global hash");
}
}  // namespace

std::string describe(const model::trace_point& tp)
{
    using model::trace_kind;
    switch (tp.kind) {
    case trace_kind::hash_allocate:
        return fmt::format("pivot requested: {} ({})", slots_text(tp.slots),
                           tp.value ? "prctl SET_SLOTS, custom" : "auto-scale from clone");
    case trace_kind::ref_drop:
        return fmt::format("futex_ref_drop: initial reference of the {} hash dropped",
                           slots_text(tp.slots));
    case trace_kind::atomic_begin:
        return fmt::format("FR_ATOMIC: {} hash, futex_atomic biased to LONG_MAX",
                           slots_text(tp.slots));
    case trace_kind::atomic_end:
        return fmt::format("fold: per-CPU sum folded in, futex_atomic = {}", tp.value);
    case trace_kind::ref_dead:
        return fmt::format("dead: {} hash has no references left", slots_text(tp.slots));
    case trace_kind::phash_new_park:
        return fmt::format("parked: {} waits in futex_phash_new for the current hash to die",
                           slots_text(tp.slots));
    case trace_kind::pivot_install:
        return fmt::format("installed {} (FR_PERCPU){}", slots_text(tp.slots),
                           tp.value ? ", custom" : "");
    case trace_kind::ref_get_percpu:
        return "futex_ref_get: FR_PERCPU, this CPU's counter";
    case trace_kind::ref_get_atomic:
        return fmt::format("futex_ref_get: FR_ATOMIC, inc_not_zero {}",
                           tp.value ? "succeeded" : "failed (dead)");
    }
    return "unknown tracepoint";
}

}  // namespace futexsim::sim
