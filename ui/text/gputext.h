// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How a GPU's memory is named in the UI. People know their GPU by the total
// nvidia-smi prints; the plan fits against less, what CUDA can allocate
// (GpuSpec::usableBytes(): the driver keeps a reserve). Both are said, apart,
// so a "24 GB card" that fits 23.5 GiB is not a surprise.
#include "plan/gpucatalog.h"

#include <QCoreApplication>
#include <QString>

class GpuText {
    Q_DECLARE_TR_FUNCTIONS(GpuText)

public:
    // "NVIDIA GeForce RTX 4090 · 23.99 GiB" (nvidia-smi total), for the GPU list.
    static QString listEntry(const headroom::GpuSpec& gpu);
    // Tooltip of a list entry: both figures and the source.
    static QString toolTip(const headroom::GpuSpec& gpu);
    // "The plan fits against 23.53 GiB, what CUDA can allocate (nvidia-smi: 23.99 GiB)".
    static QString capacityLine(const headroom::GpuSpec& gpu);
};
