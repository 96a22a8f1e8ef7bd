// The model functions whose operations the invariants' ghost state follows
// (sim/explore/invariants.h), each named by a pointer to the function
// itself: the names are read from the compiler's own spelling of those
// pointers, so renaming or removing one of these model functions breaks
// the build here instead of silently leaving its operations out of the
// ghost state.
#pragma once

#include <cstdint>

#include "sim/explore/op_event.h"

namespace futexsim::sim::explore {

enum class model_call_site : std::uint8_t {
    futex_ref_get,
    futex_ref_put,
    futex_ref_is_dead,
    futex_ref_rcu,
    futex_ref_atomic_begin,  // __futex_ref_atomic_begin()
    futex_ref_atomic_end,    // __futex_ref_atomic_end()
    futex_hash_allocate,
    other,  // none of the above
};

// Which of the functions above made the operation `ev`.
model_call_site call_site_of(const op_event& ev);

// The bare name of the model function a pointer spelled `pointer` (the
// compiler's text of a template argument) points to: "F = &ns::f<args>"
// -> "f". Exposed for its test.
std::string_view function_named_by(std::string_view pointer);

}  // namespace futexsim::sim::explore
