// The explorer's case strings (sim/explore/explore_case.h): what parses,
// what it means, and the reason given for what does not.
#include <catch2/catch.hpp>

#include <string>

#include "sim/explore/explore_case.h"

using namespace futexsim::sim::explore;

namespace {

// The reason parse_case() gives for `text`, or "parsed" if it accepts it.
std::string refusal(const std::string& text)
{
    std::string why;
    return parse_case(text, &why) ? "parsed" : why;
}

}  // namespace

TEST_CASE("a case parses into its threads and operations and formats back to the same text",
          "[explore]")
{
    const std::string text = "C.C.K0:1/W0/T0:40*/R0:1:2/O2:3/P64.G/S5/M3";
    const auto c = parse_case(text);
    REQUIRE(c);
    REQUIRE(c->threads.size() == 8);
    CHECK(c->threads[0].ops == std::vector<case_op>{{'C'}, {'C'}, {'K', 0, 0, 1}});
    CHECK(c->threads[2].loop);
    CHECK(c->threads[2].ops == std::vector<case_op>{{'T', 0, 0, 40}});
    CHECK(c->threads[3].ops == std::vector<case_op>{{'R', 0, 1, 2}});
    CHECK(c->threads[4].ops == std::vector<case_op>{{'O', 2, 3, 0}});
    CHECK(c->threads[5].ops == std::vector<case_op>{{'P', 0, 0, 64}, {'G'}});
    CHECK(format_case(*c) == text);
    CHECK(case_size(*c) == 11);
}

TEST_CASE("a bad case is refused with the reason", "[explore]")
{
    CHECK(refusal("C.Z0") == "unknown operation 'Z'");
    CHECK(refusal("C.X0") == "'X0' takes 3 number(s)");
    CHECK(refusal("C.Q0") == "'Q0' takes 2 or 3 number(s)");
    CHECK(refusal("C.Q0:1:0") == "'Q0:1:0': a timeout is at least 1 step (leave it out for none)");
    CHECK(refusal("C.L4") == "word 4 in 'L4' (words are 0-3)");
    CHECK(refusal("W4") == "word 4 in 'W4' (words are 0-3)");
    CHECK(refusal("O0:4") == "word 4 in 'O0:4' (words are 0-3)");
    CHECK(refusal("K0") == "'K0' takes 2 number(s)");
    CHECK(refusal("G1") == "'G1' takes 0 number(s)");
    CHECK(refusal("P1x") == "bad numbers in 'P1x'");
    CHECK(refusal("C..K0:1") == "an empty operation");
    CHECK(refusal("C/*") == "a looping thread with no operations");
    std::string seventeen = "G";
    for (int i = 0; i < 16; i++)
        seventeen += "/G";
    CHECK(refusal(seventeen) == "a case has 1 to 16 threads");
    CHECK(refusal("G/G/G/G/G/G/G/G/G/G/G/G/G/G/G/G") == "parsed");
}
