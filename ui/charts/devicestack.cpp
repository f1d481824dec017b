// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/devicestack.h"

#include "style/palette.h"
#include "text/displaynames.h"

#include <QCoreApplication>

using namespace headroom;

QColor DeviceSegment::color() const
{
    switch (kind) {
    case Kind::Category: return Palette::category(category);
    case Kind::AllocatorCache: return Palette::allocatorCache();
    case Kind::Context: return Palette::context();
    }
    return Qt::gray;
}

QString DeviceSegment::title() const
{
    switch (kind) {
    case Kind::Category: return DisplayNames::category(category);
    case Kind::AllocatorCache: return QCoreApplication::translate("DeviceStack", "Allocator cache");
    case Kind::Context: return QCoreApplication::translate("DeviceStack", "CUDA context");
    }
    return QString();
}

int DeviceStack::segmentCount() { return static_cast<int>(kCategoryCount) + 2; }

QVector<DeviceSegment> DeviceStack::segments(const Plan& plan)
{
    QVector<DeviceSegment> stack;
    stack.reserve(segmentCount());
    for (std::size_t c = 0; c < kCategoryCount; ++c)
        stack.append({DeviceSegment::Kind::Category, static_cast<Category>(c), static_cast<double>(plan.breakdown[c])});
    // The allocator's cache as the engine reports it (Plan::allocatorCacheBytes:
    // peak reserved less peak allocated, from the caching allocator simulation).
    stack.append({DeviceSegment::Kind::AllocatorCache, Category::Weights, static_cast<double>(plan.allocatorCacheBytes)});
    stack.append({DeviceSegment::Kind::Context, Category::Weights, static_cast<double>(plan.contextBytes)});
    return stack;
}

QString DeviceStack::allocatorCacheDescription()
{
    return QCoreApplication::translate(
        "DeviceStack",
        "Reserved by PyTorch's caching allocator but not holding a live tensor at the peak: every block is rounded "
        "up (512 bytes; requests over 10 MiB get their own segment rounded to 2 MiB) and freed blocks stay cached "
        "(fragmentation). It is peak reserved minus the tensors at the peak, from a simulation of "
        "c10/cuda/CUDACachingAllocator.cpp over the plan's allocations. Not yet checked on a GPU; against PyTorch's "
        "own allocation traces replayed through the same simulation it reads high (docs/validation/reference.md).");
}

QString DeviceStack::contextDescription()
{
    return QCoreApplication::translate(
        "DeviceStack",
        "The CUDA context and the kernels loaded lazily by the first operations. It lives outside the allocator, "
        "so torch.cuda counters do not show it but nvidia-smi does. An estimate until measured on the device "
        "(order of PyTorch PR #86509: 287 MB lazy, 667 MB eager).");
}
