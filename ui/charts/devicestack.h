// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What one GPU holds at the plan's peak, as the segments of a stacked bar:
// the eight tensor categories (the breakdown), then what the device adds on
// top, so the bar ends at "device used" and meets the capacity line exactly
// where the verdict says:
//   allocator cache = peak reserved + managed − tensors at the peak
//                     (rounding and fragmentation of the caching allocator),
//   CUDA context    = plan.contextBytes.
// Both are the engine's counters, rearranged for drawing; nothing is estimated here.
#include "plan/plan.h"

#include <QColor>
#include <QString>
#include <QVector>

struct DeviceSegment {
    enum class Kind { Category, AllocatorCache, Context };
    Kind kind = Kind::Category;
    headroom::Category category = headroom::Category::Weights;  // for Kind::Category
    double bytes = 0;

    QColor color() const;
    QString title() const;
    bool operator==(const DeviceSegment& other) const { return kind == other.kind && category == other.category; }
};

class DeviceStack {
public:
    // Every segment kind, bottom to top, zeros included: charts create one
    // plottable per kind and keep them.
    static QVector<DeviceSegment> segments(const headroom::Plan& plan);
    static int segmentCount();
    static QString allocatorCacheDescription();
    static QString contextDescription();
};
