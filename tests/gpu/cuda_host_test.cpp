// SPDX-License-Identifier: GPL-3.0-or-later
// The host side of the CUDA engine, on any machine: bf16/fp16 rounding (what
// every GPU test rounds its inputs with), version strings, the allocator's
// accounting and limit, and the device query, which must give a clear
// Status, not a crash, where there is no driver or no device.
#include "cuda/context.h"
#include "cuda/device.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace cu = headroom::cuda;

namespace {

int failures = 0;

void expect(bool condition, const std::string& what)
{
    if (!condition) {
        ++failures;
        std::printf("FAIL %s\n", what.c_str());
    }
}

void expectBits(std::uint16_t got, std::uint16_t expected, const std::string& what)
{
    if (got != expected) {
        ++failures;
        std::printf("FAIL %s: 0x%04x, expected 0x%04x\n", what.c_str(), got, expected);
    }
}

void testBf16()
{
    // bf16 is the top half of binary32: 1.0f = 0x3F800000.
    expectBits(cu::floatToBf16Bits(1.0f), 0x3F80, "bf16(1)");
    expectBits(cu::floatToBf16Bits(-2.0f), 0xC000, "bf16(-2)");
    // 1 + 2^-8 lies halfway between 0x3F80 (1) and 0x3F81 (1 + 2^-7): ties to even, 0x3F80.
    expectBits(cu::floatToBf16Bits(1.0f + 0x1p-8f), 0x3F80, "bf16 tie to even (down)");
    // 1 + 3·2^-8 lies halfway between 0x3F81 and 0x3F82: ties to even, 0x3F82.
    expectBits(cu::floatToBf16Bits(1.0f + 3 * 0x1p-8f), 0x3F82, "bf16 tie to even (up)");
    // Just above the halfway point rounds up.
    expectBits(cu::floatToBf16Bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81, "bf16 above half");
    expectBits(cu::floatToBf16Bits(INFINITY), 0x7F80, "bf16(inf)");
    // FLT_MAX (0x7F7FFFFF) is past halfway to 2^128: rounds to inf, as __float2bfloat16_rn.
    expectBits(cu::floatToBf16Bits(3.4028234663852886e38f), 0x7F80, "bf16(FLT_MAX) = inf");
    expect(std::isnan(cu::bf16BitsToFloat(cu::floatToBf16Bits(NAN))), "bf16(NaN) is NaN");
    // Every non-NaN bf16 survives bits -> float -> bits.
    int bad = 0;
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const float value = cu::bf16BitsToFloat(static_cast<std::uint16_t>(bits));
        if (!std::isnan(value) && cu::floatToBf16Bits(value) != bits)
            ++bad;
    }
    expect(bad == 0, "bf16 round trip of all 65536 patterns (" + std::to_string(bad) + " bad)");
}

void testHalf()
{
    expectBits(cu::floatToHalfBits(1.0f), 0x3C00, "fp16(1)");
    expectBits(cu::floatToHalfBits(-2.0f), 0xC000, "fp16(-2)");
    expectBits(cu::floatToHalfBits(65504.0f), 0x7BFF, "fp16(65504) = max");
    expectBits(cu::floatToHalfBits(65519.0f), 0x7BFF, "fp16(65519) below the halfway point");
    expectBits(cu::floatToHalfBits(65520.0f), 0x7C00, "fp16(65520) = inf (tie to even)");
    expectBits(cu::floatToHalfBits(0x1p-14f), 0x0400, "fp16(2^-14) smallest normal");
    expectBits(cu::floatToHalfBits(0x1p-24f), 0x0001, "fp16(2^-24) smallest subnormal");
    expectBits(cu::floatToHalfBits(0x1p-25f), 0x0000, "fp16(2^-25) ties to even 0");
    expectBits(cu::floatToHalfBits(1.5f * 0x1p-25f), 0x0001, "fp16(1.5·2^-25) rounds up");
    expectBits(cu::floatToHalfBits(3.0f * 0x1p-25f), 0x0002, "fp16(1.5·2^-24) ties to even 2");
    // 1 + 2^-11 is halfway between 0x3C00 and 0x3C01: even, 0x3C00; 1 + 3·2^-11: 0x3C02.
    expectBits(cu::floatToHalfBits(1.0f + 0x1p-11f), 0x3C00, "fp16 tie to even (down)");
    expectBits(cu::floatToHalfBits(1.0f + 3 * 0x1p-11f), 0x3C02, "fp16 tie to even (up)");
    // A carry out of the mantissa moves to the next binade: 2 − 2^-12 rounds to 2.
    expectBits(cu::floatToHalfBits(2.0f - 0x1p-12f), 0x4000, "fp16 carry into the exponent");
    expectBits(cu::floatToHalfBits(-INFINITY), 0xFC00, "fp16(-inf)");
    expect(std::isnan(cu::halfBitsToFloat(cu::floatToHalfBits(NAN))), "fp16(NaN) is NaN");
    expect(cu::halfBitsToFloat(0x0001) == 0x1p-24f, "fp16 0x0001 = 2^-24");
    int bad = 0;
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const float value = cu::halfBitsToFloat(static_cast<std::uint16_t>(bits));
        if (!std::isnan(value) && cu::floatToHalfBits(value) != bits)
            ++bad;
    }
    expect(bad == 0, "fp16 round trip of all 65536 patterns (" + std::to_string(bad) + " bad)");
    expect(cu::roundToDType(0.1f, cu::DType::f32) == 0.1f, "fp32 rounding is the identity");
}

void testVersionsAndNames()
{
    expect(cu::versionString(12080) == "12.8", "versionString(12080)");
    expect(cu::versionString(13000) == "13.0", "versionString(13000)");
    expect(cu::versionString(0) == "none", "versionString(0)");
    expect(std::string(cu::statusCodeName(cu::StatusCode::noDevice)) == "no-device", "statusCodeName");
    const cu::RuntimeVersions v = cu::runtimeVersions();
    expect(v.runtime >= 12000, "the runtime we link reports its version (" + std::to_string(v.runtime) + ")");
    const auto& arch = cu::builtArchitectures();
    expect(!arch.empty(), "builtArchitectures() lists the build's architectures");
    for (std::size_t i = 1; i < arch.size(); ++i)
        expect(arch[i - 1] < arch[i], "builtArchitectures() ascending");
}

void testAllocatorWithoutCuda()
{
    expect(cu::DeviceAllocator::roundedSize(1) == 512, "rounded 1 -> 512");
    expect(cu::DeviceAllocator::roundedSize(512) == 512, "rounded 512 -> 512");
    expect(cu::DeviceAllocator::roundedSize(513) == 1024, "rounded 513 -> 1024");
    cu::DeviceAllocator allocator;
    allocator.setLimit(1000);
    const auto refused = allocator.allocate(2000); // 2048 rounded, past the limit: refused before any CUDA call
    expect(!refused.ok() && refused.status().code() == cu::StatusCode::outOfMemory, "limit refuses as out-of-memory");
    expect(allocator.liveBytes() == 0 && allocator.peakBytes() == 0, "a refused allocation is not counted");
    expect(!allocator.release(reinterpret_cast<void*>(0x1000)).ok(), "releasing a foreign pointer is an error");
}

void testDevicePath()
{
    const auto devices = cu::listDevices();
    if (!devices.ok()) {
        std::printf("no device here: %s\n", devices.status().message().c_str());
        expect(devices.status().code() == cu::StatusCode::noDevice || devices.status().code() == cu::StatusCode::cudaError,
               "no device is a noDevice (or CUDA) status");
        expect(!devices.status().message().empty(), "the status says why");
        const auto context = cu::Context::create(0);
        expect(!context.ok(), "no context without a device");
        expect(!cu::initialiseAndMeasureContext(0).ok(), "no context measurement without a device");
        cu::DeviceAllocator allocator;
        const auto allocation = allocator.allocate(100);
        expect(!allocation.ok(), "no allocation without a device");
        return;
    }
    const auto measured = cu::initialiseAndMeasureContext(0);
    expect(measured.ok(), "context measurement: " + measured.status().message());
    if (measured.ok())
        std::printf("context: %llu bytes (NVML %s)\n", static_cast<unsigned long long>(measured.value().contextBytes),
                    measured.value().nvmlAvailable ? "yes" : "no");
    for (const cu::DeviceInfo& d : devices.value()) {
        std::printf("device %d: %s sm_%d%d, %llu bytes\n", d.index, d.name.c_str(), d.computeMajor, d.computeMinor,
                    static_cast<unsigned long long>(d.totalBytes));
        expect(!d.name.empty() && d.totalBytes > 0 && d.freeBytes <= d.totalBytes, "device fields");
        expect(d.engineSupports, "this build has code for " + d.name);
    }
    auto context = cu::Context::create(0);
    expect(context.ok(), "context: " + context.status().message());
    if (context.ok())
        expect(context.value()->workspaceBytes() >= (4ull << 20), "cuBLAS workspace at least 4 MiB");
    cu::DeviceAllocator allocator;
    auto a = allocator.allocate(1000), b = allocator.allocate(3000);
    expect(a.ok() && b.ok(), "two allocations");
    expect(allocator.liveBytes() == 1024 + 3072 && allocator.peakBytes() == 4096, "live and peak bytes");
    expect(allocator.release(a.value()).ok() && allocator.liveBytes() == 3072 && allocator.peakBytes() == 4096,
           "release keeps the peak");
    allocator.setLimit(4096);
    expect(!allocator.allocate(1025).ok(), "limit: 3072 + 1536 > 4096 refused");
    expect(allocator.allocate(1024).ok(), "limit: 3072 + 1024 <= 4096 allowed");
}

} // namespace

int main()
{
    testBf16();
    testHalf();
    testVersionsAndNames();
    testAllocatorWithoutCuda();
    testDevicePath();
    std::printf("cuda_host_test: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
