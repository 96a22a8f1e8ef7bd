// jhash2() of include/linux/jhash.h: Bob Jenkins' lookup3 over 32-bit words.
// The private hash picks a bucket with it, so bucket collisions (and which
// cache lines two futex words share a bucket lock on) match the kernel's.
#pragma once

#include <cstdint>

namespace futexsim::model {

inline constexpr std::uint32_t JHASH_INITVAL = 0xdeadbeef;

constexpr std::uint32_t rol32(std::uint32_t word, unsigned shift)
{
    return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

// __jhash_mix()
constexpr void jhash_mix(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c)
{
    a -= c; a ^= rol32(c, 4);  c += b;
    b -= a; b ^= rol32(a, 6);  a += c;
    c -= b; c ^= rol32(b, 8);  b += a;
    a -= c; a ^= rol32(c, 16); c += b;
    b -= a; b ^= rol32(a, 19); a += c;
    c -= b; c ^= rol32(b, 4);  b += a;
}

// __jhash_final()
constexpr void jhash_final(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c)
{
    c ^= b; c -= rol32(b, 14);
    a ^= c; a -= rol32(c, 11);
    b ^= a; b -= rol32(a, 25);
    c ^= b; c -= rol32(b, 16);
    a ^= c; a -= rol32(c, 4);
    b ^= a; b -= rol32(a, 14);
    c ^= b; c -= rol32(b, 24);
}

// jhash2(): hash `length` 32-bit words.
constexpr std::uint32_t jhash2(const std::uint32_t* k, std::uint32_t length, std::uint32_t initval)
{
    std::uint32_t a = JHASH_INITVAL + (length << 2) + initval;
    std::uint32_t b = a;
    std::uint32_t c = a;
    while (length > 3) {
        a += k[0];
        b += k[1];
        c += k[2];
        jhash_mix(a, b, c);
        length -= 3;
        k += 3;
    }
    switch (length) {
    case 3: c += k[2]; [[fallthrough]];
    case 2: b += k[1]; [[fallthrough]];
    case 1:
        a += k[0];
        jhash_final(a, b, c);
        break;
    default:
        break;
    }
    return c;
}

}  // namespace futexsim::model
