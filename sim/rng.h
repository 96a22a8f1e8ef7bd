// The simulator's random numbers: xoshiro256** seeded by splitmix64. Small,
// fast, and the same sequence on every platform for a given seed.
//
// One master seed per run, named streams: every consumer of randomness
// (timing jitter, CPU placement, workload choices, the schedule strategy)
// seeds its own generator with stream_seed(seed, name), so a consumer that
// draws more or less moves no other's sequence.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace futexsim::sim {

// splitmix64's finaliser: a bijection that spreads every input bit.
constexpr std::uint64_t mix64(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The seed of stream `name` of a run seeded with `master`: the name's
// FNV-1a hash, mixed with the master seed.
constexpr std::uint64_t stream_seed(std::uint64_t master, std::string_view name)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (char c : name) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return mix64(mix64(master) ^ h);
}

// The names of the timed simulator's streams.
namespace streams {
inline constexpr std::string_view jitter = "jitter";        // cache-line legs, system-call costs
inline constexpr std::string_view placement = "placement";  // which idle CPU a woken task takes
inline constexpr std::string_view workload = "workload";    // the workload's own choices
inline constexpr std::string_view schedule = "schedule";    // the schedule strategy
}  // namespace streams

class rng64 {
public:
    using result_type = std::uint64_t;
    explicit rng64(std::uint64_t seed)
    {
        for (auto& s : s_) {
            seed += 0x9e3779b97f4a7c15ull;
            s = mix64(seed);
        }
    }
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
    result_type operator()()
    {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform in [0, 1).
    double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
    // Uniform in [1 - j, 1 + j].
    double spread(double j) { return 1.0 - j + 2.0 * j * uniform(); }
    // Uniform integer in [0, n).
    std::uint64_t below(std::uint64_t n) { return n ? (*this)() % n : 0; }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

}  // namespace futexsim::sim
