// The simulator's random numbers: xoshiro256** seeded by splitmix64. Small,
// fast, and the same sequence on every platform for a given seed.
#pragma once

#include <cstdint>
#include <limits>

namespace futexsim::sim {

class rng64 {
public:
    using result_type = std::uint64_t;
    explicit rng64(std::uint64_t seed)
    {
        for (auto& s : s_) {
            seed += 0x9e3779b97f4a7c15ull;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            s = z ^ (z >> 31);
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
