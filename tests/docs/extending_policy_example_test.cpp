// docs/extending.md's worked policy, wait-for-new-counted, as the page shows
// it: its file and its test are taken out of the page at configure time
// (tests/CMakeLists.txt), and this executable's build registers the policy
// through FUTEXSIM_EXTRA_POLICIES (doc_examples/extra_policies.h), as the
// mutants are. Only header-only model and step-environment code is built
// into it, so no library compiled with the other registry is linked.
#include <catch2/catch.hpp>

#include "model/policies/registry.h"
#include "tests/model/policy_fixture.h"

using namespace futexsim::test;

TEST_CASE("extending.md's policy is registered after the shipped ones", "[docs]")
{
    CHECK(model::pivot_policy_names() == "stock, wait-for-new, rwsem-gate, rwsem-gate-v1, wait-for-new-wake, wait-for-new-counted");
}

// The page's test, as written there.
#include "wait_for_new_counted_test.inc"
