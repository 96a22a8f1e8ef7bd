// The engine's event queue. Events are totally ordered (time, then sequence
// number), so any correct priority queue pops them in the same order; the
// choice is only about speed, at the hundreds of millions of events a
// latched run takes.
//
// calendar_queue: the events of the next 65 µs of virtual time (where
// nearly all of them are: a cache-line leg, a task's resumption) sit in a
// ring of 16 ns buckets, each a short list kept in order; an occupancy
// bitmap finds the first non-empty bucket. Pushing and popping cost the
// same however many events are queued. Events further out or in the past
// (the tick, timers, grace periods) go to a 4-ary heap beside it, and the
// queue's top is the earlier of the two.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace futexsim::sim {

// `Before(a, b)`: a is popped before b. A 4-ary min-heap: half the levels
// of a binary heap, and the four children of a node on one or two cache
// lines.
template <class T, class Before>
class quad_heap {
public:
    bool empty() const { return v_.empty(); }
    std::size_t size() const { return v_.size(); }
    const T& top() const { return v_.front(); }

    // The element is built in its slot from its fields: built in the
    // caller's frame and copied in, its narrow fields were reloaded 16 bytes
    // at a time (a latched run took 2% longer).
    template <class... Fields>
    void emplace(Fields... fields)
    {
        push(T{fields...});
    }

    void push(const T& x)
    {
        std::size_t i = v_.size();
        v_.emplace_back();
        while (i > 0) {
            const std::size_t parent = (i - 1) / 4;
            if (!Before{}(x, v_[parent]))
                break;
            v_[i] = std::move(v_[parent]);
            i = parent;
        }
        v_[i] = x;
    }

    void pop()
    {
        T last = std::move(v_.back());
        v_.pop_back();
        const std::size_t n = v_.size();
        if (n == 0)
            return;
        std::size_t i = 0;
        for (;;) {
            const std::size_t first = 4 * i + 1;
            if (first >= n)
                break;
            std::size_t best = first;
            const std::size_t end = first + 4 < n ? first + 4 : n;
            for (std::size_t c = first + 1; c < end; c++)
                if (Before{}(v_[c], v_[best]))
                    best = c;
            if (!Before{}(v_[best], last))
                break;
            v_[i] = std::move(v_[best]);
            i = best;
        }
        v_[i] = std::move(last);
    }

private:
    std::vector<T> v_;
};

// `T` has a signed integer time `t` (nanoseconds); `Before` orders by it
// first. The ring holds events whose bucket lies in [base_, base_ +
// bucket_count): base_ follows the buckets of the events popped and never
// moves back, and it moves only to the bucket of the earliest event queued,
// so no event in the ring falls out of the window and a bucket never holds
// events a whole ring apart. An event pushed before the window (the engine
// does not do that, but the order would still be exact) goes to the heap.
template <class T, class Before>
class calendar_queue {
public:
    calendar_queue()
    {
        head_.fill(none);
        tail_.fill(none);
    }

    bool empty() const { return top_ == nullptr; }
    std::size_t size() const { return ring_size_ + far_.size(); }
    const T& top() const { return *top_; }

    template <class... Fields>
    void emplace(Fields... fields)
    {
        const T x{fields...};
        const std::int64_t b = bucket_of(x.t);
        if (b >= base_ && b < base_ + static_cast<std::int64_t>(bucket_count))
            ring_insert(x, b);
        else
            far_.push(x);
        refresh_top();
    }

    // Removes top().
    void pop()
    {
        if (ring_size_ > 0 && top_ == &nodes_[head_[slot_of(first_)]].ev) {
            base_ = first_;  // top() is the earliest: nothing queued lies before its bucket
            ring_pop_first();
        } else {
            const std::int64_t b = bucket_of(far_.top().t);
            if (b > base_)
                base_ = b;
            far_.pop();
        }
        refresh_top();
    }

private:
    static constexpr unsigned bucket_shift = 4;  // 16 ns: a few events per bucket in a latched run
    static constexpr std::size_t bucket_count = 4096;  // the ring spans 65.5 µs
    static constexpr std::uint32_t none = ~std::uint32_t{0};
    struct node {
        T ev;
        std::uint32_t next;  // the bucket's next node in order, or none
    };

    static std::int64_t bucket_of(std::int64_t t) { return t >> bucket_shift; }
    static std::size_t slot_of(std::int64_t bucket)
    {
        return static_cast<std::size_t>(bucket) & (bucket_count - 1);
    }

    void ring_insert(const T& x, std::int64_t b)
    {
        std::uint32_t n;
        if (free_ != none) {
            n = free_;
            free_ = nodes_[n].next;
            nodes_[n].ev = x;
        } else {
            n = static_cast<std::uint32_t>(nodes_.size());
            nodes_.push_back({x, none});
        }
        // In order within the bucket. A new event usually goes last (it has
        // the highest sequence number), after the bucket's tail; else the
        // list is walked from its head. Reproducer 2 at 192 threads puts
        // dozens of events in one bucket.
        const std::size_t s = slot_of(b);
        if (head_[s] == none) {
            nodes_[n].next = none;
            head_[s] = tail_[s] = n;
            occupied_[s / 64] |= std::uint64_t{1} << (s % 64);
        } else if (!Before{}(x, nodes_[tail_[s]].ev)) {
            nodes_[n].next = none;
            nodes_[tail_[s]].next = n;
            tail_[s] = n;
        } else {
            std::uint32_t* link = &head_[s];
            while (!Before{}(x, nodes_[*link].ev))
                link = &nodes_[*link].next;
            nodes_[n].next = *link;
            *link = n;
        }
        if (ring_size_++ == 0 || b < first_)
            first_ = b;
    }

    void ring_pop_first()
    {
        const std::size_t s = slot_of(first_);
        const std::uint32_t n = head_[s];
        head_[s] = nodes_[n].next;
        nodes_[n].next = free_;
        free_ = n;
        --ring_size_;
        if (head_[s] != none)
            return;
        occupied_[s / 64] &= ~(std::uint64_t{1} << (s % 64));
        if (ring_size_ > 0)
            first_ += next_occupied_after(s);
    }

    // How many buckets on from slot `s` the next occupied one is (the ring
    // is not empty).
    std::int64_t next_occupied_after(std::size_t s) const
    {
        std::size_t i = (s + 1) & (bucket_count - 1);
        std::int64_t d = 1;
        std::uint64_t w = occupied_[i / 64] >> (i % 64);
        if (w != 0)
            return d + std::countr_zero(w);
        d += static_cast<std::int64_t>(64 - i % 64);
        i = (i / 64 + 1) * 64 & (bucket_count - 1);
        for (;;) {
            w = occupied_[i / 64];
            if (w != 0)
                return d + std::countr_zero(w);
            d += 64;
            i = (i + 64) & (bucket_count - 1);
        }
    }

    void refresh_top()
    {
        const T* ring = ring_size_ > 0 ? &nodes_[head_[slot_of(first_)]].ev : nullptr;
        const T* far = far_.empty() ? nullptr : &far_.top();
        top_ = ring == nullptr ? far : far == nullptr ? ring : Before{}(*far, *ring) ? far : ring;
    }

    std::vector<node> nodes_;  // the ring's events; freed ones chained from free_
    std::uint32_t free_ = none;
    std::array<std::uint32_t, bucket_count> head_;  // each bucket's first node
    std::array<std::uint32_t, bucket_count> tail_;  // and its last, while it has one
    std::array<std::uint64_t, bucket_count / 64> occupied_{};
    std::int64_t base_ = 0;   // the window's first bucket
    std::int64_t first_ = 0;  // the earliest occupied bucket, while the ring is not empty
    std::size_t ring_size_ = 0;
    quad_heap<T, Before> far_;
    const T* top_ = nullptr;
};

}  // namespace futexsim::sim
