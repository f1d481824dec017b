// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/gputext.h"

#include "text/memoryunits.h"

using headroom::GpuSpec;

namespace {

double bytes(headroom::Bytes value) { return static_cast<double>(value); }

} // namespace

QString GpuText::listEntry(const GpuSpec& gpu)
{
    //: GPU list entry: name · nvidia-smi total
    return tr("%1 · %2").arg(QString::fromStdString(gpu.name), MemoryUnits::format(bytes(gpu.memoryBytes), 1));
}

QString GpuText::toolTip(const GpuSpec& gpu)
{
    return tr("nvidia-smi total %1; a process can allocate %2 (%3)")
        .arg(MemoryUnits::format(bytes(gpu.memoryBytes)), MemoryUnits::format(bytes(gpu.usableBytes())),
             QString::fromStdString(gpu.memorySource));
}

QString GpuText::capacityLine(const GpuSpec& gpu)
{
    if (gpu.cudaTotalBytes == 0)
        // gpucatalog.h: without a device query the plan falls back to the nvidia-smi total.
        return tr("The plan fits against the nvidia-smi total %1 (no CUDA figure known: slightly optimistic)")
            .arg(MemoryUnits::format(bytes(gpu.memoryBytes)));
    return tr("The plan fits against %1, what CUDA can allocate (nvidia-smi shows %2)")
        .arg(MemoryUnits::format(bytes(gpu.usableBytes())), MemoryUnits::format(bytes(gpu.memoryBytes)));
}
