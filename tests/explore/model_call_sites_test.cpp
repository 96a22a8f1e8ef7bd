// The model functions the invariants' ghost state follows
// (sim/explore/model_call_sites.h): named from the compiler's spelling of a
// pointer to each, and recognised from the std::source_location of an
// operation they made.
#include <catch2/catch.hpp>

#include "sim/explore/model_call_sites.h"

using namespace futexsim::sim::explore;

namespace {

op_event made_by(const char* function)
{
    return op_event{op_kind::read, nullptr, 0, 0, 0, function, {}};
}

}  // namespace

TEST_CASE("a pointer's spelling names its function, as GCC and Clang write it", "[explore]")
{
    CHECK(function_named_by("futexsim::model::futex_ref_get<futexsim::sim::explore::explore_env>; "
                            "std::string_view = std::basic_string_view<char>]") == "futex_ref_get");
    CHECK(function_named_by(
              "&futexsim::model::__futex_ref_atomic_end<futexsim::sim::explore::explore_env>]") ==
          "__futex_ref_atomic_end");
    CHECK(function_named_by("f]") == "f");
}

TEST_CASE("an operation is attributed to the model function that made it, and no other",
          "[explore]")
{
    CHECK(call_site_of(
              made_by("bool futexsim::model::futex_ref_get(private_hash<Env>*) [with Env = "
                      "futexsim::sim::explore::explore_env]")) == model_call_site::futex_ref_get);
    CHECK(call_site_of(made_by(
              "void futexsim::model::__futex_ref_atomic_begin(private_hash<Env>*) [with Env = "
              "futexsim::sim::explore::explore_env]")) == model_call_site::futex_ref_atomic_begin);
    CHECK(call_site_of(made_by(
              "int futexsim::model::futex_hash_allocate(mm_struct<Env>*, unsigned int, unsigned "
              "int) [with Env = futexsim::sim::explore::explore_env]")) ==
          model_call_site::futex_hash_allocate);
    // A function whose name only begins like one of them is another function.
    CHECK(call_site_of(made_by(
              "int futexsim::model::futex_hash_allocate_default(mm_struct<Env>*) [with Env = "
              "futexsim::sim::explore::explore_env]")) == model_call_site::other);
    CHECK(call_site_of(made_by("")) == model_call_site::other);
}
