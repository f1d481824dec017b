// SPDX-License-Identifier: GPL-3.0-or-later
// A tiny harness for the Qt-free GPU tests: device check (exit 77 = skipped
// when there is none), random inputs, device buffers in a dtype, and a
// comparison with the CPU reference under a tolerance chosen by dtype.
#pragma once

#include "cuda/context.h"
#include "cuda/device.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace gpu_test {

using headroom::cuda::DType;
using headroom::cuda::DeviceBuffer;

inline constexpr int kSkip = 77; // tests/gpu/CMakeLists.txt SKIP_RETURN_CODE

struct Suite {
    std::string name;
    int failures = 0;
    int checks = 0;
    std::unique_ptr<headroom::cuda::Context> context;
    std::mt19937 rng{std::random_device{}()};
    std::uint32_t seed = 0;

    // nullptr-free context or the exit code to return (kSkip without a device, 1 on error).
    int start(const char* suiteName)
    {
        name = suiteName;
        seed = std::random_device{}();
        if (const char* fixed = std::getenv("HEADROOM_GPU_TEST_SEED"))
            seed = static_cast<std::uint32_t>(std::strtoul(fixed, nullptr, 10));
        rng.seed(seed);
        auto devices = headroom::cuda::listDevices();
        if (!devices.ok()) {
            // No driver or no device: skipped. Any other failure of the query is a failure.
            const bool noDevice = devices.status().code() == headroom::cuda::StatusCode::noDevice;
            std::printf("%s %s: %s\n", noDevice ? "SKIP" : "FAIL", suiteName, devices.status().message().c_str());
            return noDevice ? kSkip : 1;
        }
        auto created = headroom::cuda::Context::create(0);
        if (!created.ok()) {
            std::printf("FAIL %s: context: %s\n", suiteName, created.status().message().c_str());
            return 1;
        }
        context = std::move(created.value());
        const auto& d = devices.value().front();
        std::printf("%s on %s (sm_%d%d), seed %u (HEADROOM_GPU_TEST_SEED to repeat)\n", suiteName, d.name.c_str(),
                    d.computeMajor, d.computeMinor, seed);
        return 0;
    }

    int finish() const
    {
        std::printf("%s: %d checks, %d failed\n", name.c_str(), checks, failures);
        return failures == 0 ? 0 : 1;
    }

    bool ok(const headroom::cuda::Status& status, const std::string& what)
    {
        ++checks;
        if (status.ok())
            return true;
        ++failures;
        std::printf("FAIL %s: %s\n", what.c_str(), status.message().c_str());
        return false;
    }

    bool expect(bool condition, const std::string& what)
    {
        ++checks;
        if (!condition) {
            ++failures;
            std::printf("FAIL %s\n", what.c_str());
        }
        return condition;
    }

    std::vector<float> random(std::size_t n, float lo = -1.0f, float hi = 1.0f)
    {
        std::uniform_real_distribution<float> dist(lo, hi);
        std::vector<float> v(n);
        for (float& x : v)
            x = dist(rng);
        return v;
    }

    std::vector<float> randomIn(std::size_t n, DType dtype, float lo = -1.0f, float hi = 1.0f)
    {
        std::vector<float> v = random(n, lo, hi);
        for (float& x : v)
            x = headroom::cuda::roundToDType(x, dtype);
        return v;
    }

    // A device copy of values in dtype (values should already be representable).
    DeviceBuffer upload(const std::vector<float>& values, DType dtype)
    {
        std::vector<unsigned char> packed(values.size() * headroom::cuda::dtypeSize(dtype));
        headroom::cuda::packHost(packed.data(), values.data(), values.size(), dtype);
        auto buffer = DeviceBuffer::fromHost(packed.data(), packed.size());
        ok(buffer.status(), "upload");
        return buffer.ok() ? std::move(buffer.value()) : DeviceBuffer{};
    }

    template <typename T>
    DeviceBuffer uploadRaw(const std::vector<T>& values)
    {
        auto buffer = DeviceBuffer::fromHost(values.data(), values.size() * sizeof(T));
        ok(buffer.status(), "upload");
        return buffer.ok() ? std::move(buffer.value()) : DeviceBuffer{};
    }

    DeviceBuffer zeros(std::size_t bytes)
    {
        auto buffer = DeviceBuffer::zeros(bytes);
        ok(buffer.status(), "zeros");
        return buffer.ok() ? std::move(buffer.value()) : DeviceBuffer{};
    }

    std::vector<float> download(const DeviceBuffer& buffer, std::size_t n, DType dtype)
    {
        std::vector<unsigned char> packed(n * headroom::cuda::dtypeSize(dtype));
        std::vector<float> values(n, NAN);
        if (ok(buffer.download(packed.data(), packed.size()), "download"))
            headroom::cuda::unpackHost(values.data(), packed.data(), n, dtype);
        return values;
    }

    template <typename T>
    std::vector<T> downloadRaw(const DeviceBuffer& buffer, std::size_t n)
    {
        std::vector<T> values(n);
        ok(buffer.download(values.data(), n * sizeof(T)), "download");
        return values;
    }

    // Passes when every |got − expected| <= tol·(|expected| + max(rms(expected), floor)):
    // relative where values are large, absolute (on the array's own scale, or
    // on `floor` where the caller knows a larger one) where they cancel to
    // near zero.
    bool close(const std::string& what, const std::vector<float>& got, const std::vector<float>& expected, double tol,
               double floor = 0.0)
    {
        ++checks;
        if (got.size() != expected.size()) {
            ++failures;
            std::printf("FAIL %s: %zu values, expected %zu\n", what.c_str(), got.size(), expected.size());
            return false;
        }
        double sumSq = 0.0;
        for (float e : expected)
            sumSq += double(e) * double(e);
        const double rms =
            std::max({std::sqrt(sumSq / double(std::max<std::size_t>(expected.size(), 1))), floor, 1e-30});
        double worst = 0.0;
        std::size_t worstAt = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            const double error = std::fabs(double(got[i]) - double(expected[i])) / (std::fabs(double(expected[i])) + rms);
            if (!(error <= worst)) { // NaN counts as worst
                worst = std::isnan(error) ? INFINITY : error;
                worstAt = i;
            }
        }
        const bool pass = worst <= tol;
        if (!pass) {
            ++failures;
            std::printf("FAIL %s: error %.3g > %.3g at %zu (got %.8g, expected %.8g)\n", what.c_str(), worst, tol,
                        worstAt, double(got[worstAt]), double(expected[worstAt]));
        } else if (std::getenv("HEADROOM_GPU_TEST_VERBOSE")) {
            std::printf("ok   %s: error %.3g <= %.3g\n", what.c_str(), worst, tol);
        }
        return pass;
    }
};

// Tolerance of one rounding to dtype and a few fp32 operations: a few units of
// the dtype's precision (bf16 2^-8, fp16 2^-11 relative) plus fp32 reduction
// order (sums of up to ~10^4 terms).
inline double tolerance(DType dtype, double factor = 1.0)
{
    switch (dtype) {
    case DType::f32: return 2e-5 * factor;
    case DType::f16: return 4e-3 * factor;
    case DType::bf16: return 2e-2 * factor;
    }
    return 0.0;
}

inline const std::vector<DType>& allTypes()
{
    static const std::vector<DType> types = {DType::f32, DType::bf16, DType::f16};
    return types;
}

// The CPU reference runs in double; the devices' inputs are float.
inline std::vector<double> wide(const std::vector<float>& v) { return {v.begin(), v.end()}; }
inline std::vector<float> narrow(const std::vector<double>& v) { return {v.begin(), v.end()}; }

inline std::string label(const std::string& what, DType dtype)
{
    return what + " [" + headroom::cuda::dtypeName(dtype) + "]";
}

} // namespace gpu_test
