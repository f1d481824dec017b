// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tracking allocator: every buffer a backend uses for a training step is
// allocated here with the tensor-table row it belongs to (name, category), so
// planned and measured memory can be compared tensor by tensor and event by
// event (ARCHITECTURE.md, "The one idea"; docs/runtime.md).
//
// Event discipline: the step is a sequence of the planner's events (plan.h).
// Inside an event a backend allocates what the event needs and releases what
// dies with it; releases take effect when the event ends. So the high-water
// mark of an event is "everything alive at that event", which is exactly the
// planner's sweep semantics (a row is alive on [allocAt, freeAt] inclusive).
#include "core/checkedmath.h"
#include "plan/plan.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace headroom::rt {

// Thrown by allocate() when the capacity would be exceeded (or a fault is injected).
class OutOfMemory : public std::runtime_error {
public:
    OutOfMemory(const std::string& what, std::size_t event) : std::runtime_error(what), m_event(event) {}
    std::size_t event() const { return m_event; }

private:
    std::size_t m_event;
};

class TrackingAllocator;

// Where the bytes of a buffer live. The default is host memory; the CUDA
// backend gives device memory (cudaMalloc + cudaMemset), so the same step
// program measures the same rows on either.
class Storage {
public:
    virtual ~Storage() = default;
    // `bytes` zero-filled bytes, or nullptr when the memory is exhausted
    // (the allocator then throws OutOfMemory naming the event).
    virtual std::byte* allocate(Bytes bytes) = 0;
    virtual void free(std::byte* data, Bytes bytes) = 0;
    // "device out of memory (cudaMalloc)": why the last allocate returned nullptr.
    virtual std::string lastError() const { return "out of memory"; }
};

// A buffer from the tracking allocator: move-only; its storage goes back when
// it is released (explicitly or by destruction) and the current event ends.
class Buffer {
public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& other) noexcept { swap(other); }
    Buffer& operator=(Buffer&& other) noexcept
    {
        if (this != &other) {
            release();
            swap(other);
        }
        return *this;
    }
    ~Buffer() { release(); }

    std::byte* data() const { return m_data; }
    Bytes bytes() const { return m_bytes; }
    bool empty() const { return m_owner == nullptr; }
    void release();

private:
    friend class TrackingAllocator;
    void swap(Buffer& other) noexcept
    {
        std::swap(m_owner, other.m_owner);
        std::swap(m_id, other.m_id);
        std::swap(m_data, other.m_data);
        std::swap(m_bytes, other.m_bytes);
    }
    TrackingAllocator* m_owner = nullptr;
    std::uint64_t m_id = 0;
    std::byte* m_data = nullptr;
    Bytes m_bytes = 0;
};

// One allocation or free as it happened.
struct AllocationRecord {
    bool allocation = true;     // false: a free
    std::string name;           // tensor-table row name
    Category category = Category::Temporaries;
    Bytes bytes = 0;
    std::size_t event = 0;      // index into the planner's event list
    double seconds = 0;         // since the allocator was made
    CategoryBytes live{};       // bytes alive per category after this record
};

class TrackingAllocator {
public:
    explicit TrackingAllocator(std::size_t eventCount);
    ~TrackingAllocator();
    TrackingAllocator(const TrackingAllocator&) = delete;
    TrackingAllocator& operator=(const TrackingAllocator&) = delete;

    // 0: unlimited. An allocation that would take the live total above the
    // capacity throws OutOfMemory naming the event.
    void setCapacity(Bytes capacity) { m_capacity = capacity; }
    // Storage for later allocations; nullptr: host memory. Not owned; it
    // must outlive every buffer allocated from it.
    void setStorage(Storage* storage) { m_storage = storage; }
    // Refuse the first allocation of this category (--inject-fault oom).
    void failFirstAllocationOf(Category c) { m_failCategory = static_cast<int>(c); }
    // Label for OutOfMemory messages, per event index.
    void setEventLabels(std::vector<std::string> labels) { m_labels = std::move(labels); }

    void beginEvent(std::size_t event);
    // Frees what was released during the event, after recording what was alive.
    void endEvent();
    bool inEvent() const { return m_inEvent; }
    std::size_t currentEvent() const { return m_event; }

    // Zero-filled storage of `bytes` bytes (64-byte aligned). Only inside an event.
    Buffer allocate(const std::string& name, Category category, Bytes bytes);

    // Results. Per event: the largest "alive at the event" seen over every
    // time the event ran (steps, micro-batches), by category and by tensor.
    Bytes peakBytes() const { return m_peakBytes; }
    const CategoryBytes& peakCategories() const { return m_peakCategories; }
    std::size_t peakEvent() const { return m_peakEvent; }
    Bytes liveBytes() const;
    const CategoryBytes& liveCategories() const { return m_live; }
    const std::vector<CategoryBytes>& eventBytes() const { return m_eventBytes; }
    const std::vector<std::map<std::string, Bytes>>& eventTensors() const { return m_eventTensors; }
    const std::vector<bool>& eventSeen() const { return m_eventSeen; }
    const std::vector<AllocationRecord>& records() const { return m_records; }
    std::uint64_t allocationCount() const { return m_allocations; }

private:
    friend class Buffer;
    struct Block {
        std::unique_ptr<std::byte[]> storage; // host memory; empty for a Storage block
        std::byte* aligned = nullptr;
        Storage* from = nullptr;               // the Storage that gave `aligned`, if any
        std::string name;
        Category category;
        Bytes bytes;
    };
    void release(std::uint64_t id);
    void erase(std::map<std::uint64_t, Block>::iterator it);
    void record(bool allocation, const Block& block);
    double now() const;

    std::map<std::uint64_t, Block> m_blocks;
    std::vector<std::uint64_t> m_pendingFrees;
    std::uint64_t m_nextId = 1;
    CategoryBytes m_live{};
    Bytes m_capacity = 0;
    Storage* m_storage = nullptr;
    int m_failCategory = -1;
    std::vector<std::string> m_labels;
    bool m_inEvent = false;
    std::size_t m_event = 0;

    Bytes m_peakBytes = 0;
    CategoryBytes m_peakCategories{};
    std::size_t m_peakEvent = 0;
    std::vector<CategoryBytes> m_eventBytes;
    std::vector<std::map<std::string, Bytes>> m_eventTensors;
    std::vector<bool> m_eventSeen;
    std::vector<AllocationRecord> m_records;
    std::uint64_t m_allocations = 0;
    std::int64_t m_startNanos = 0;
};

Bytes categoryTotal(const CategoryBytes& c);

} // namespace headroom::rt
