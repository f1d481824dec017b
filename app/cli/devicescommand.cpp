// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli devices [--json] [--measure-context]
// The CUDA devices this build's engine can use, or one plain line saying why
// there are none (exit 3, "backend unavailable", as VALIDATE-PROTOCOL.md).
#include "commands.h"

#include "format.h"
#include "options.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#ifdef HEADROOM_HAVE_CUDA_ENGINE
#include "cuda/device.h"
#endif

namespace headroom::cli {

namespace {

constexpr int kBackendUnavailable = 3;

int unavailable(bool json, const std::string& status, const std::string& line, const std::string& detail)
{
    if (json) {
        nlohmann::json j = {{"schema", "headroom.devices/1"}, {"status", status}, {"message", line},
                            {"devices", nlohmann::json::array()}};
        if (!detail.empty())
            j["detail"] = detail;
        std::cout << j.dump(2) << "\n";
    }
    std::cerr << "headroom-cli: " << line << (detail.empty() ? "" : " (" + detail + ")") << "\n";
    return kBackendUnavailable;
}

} // namespace

int runDevices(const std::vector<std::string>& args)
{
    auto o = Options::parseFor("devices", args);
    if (!o)
        return fail(o.error());
    if (!o->positional().empty())
        return fail(makeError(ErrorCode::InvalidArgument, "unexpected argument '" + o->positional().front() + "'"));
    const bool json = o->has("json");
#ifndef HEADROOM_HAVE_CUDA_ENGINE
    return unavailable(json, "no-engine", "no CUDA engine in this build", "");
#else
    namespace cu = headroom::cuda;
    // The context is measured first: listing free memory creates contexts.
    cu::Result<cu::ContextMeasurement> context = cu::Status{};
    if (o->has("measure-context"))
        context = cu::initialiseAndMeasureContext(0);
    const cu::RuntimeVersions versions = cu::runtimeVersions();
    const auto devices = cu::listDevices();
    if (!devices.ok()) {
        if (devices.status().code() == cu::StatusCode::noDevice)
            return unavailable(json, "no-device", "no CUDA device found", devices.status().message());
        return unavailable(json, "error", "CUDA device query failed", devices.status().message());
    }
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const cu::DeviceInfo& d : devices.value())
            list.push_back({{"index", d.index},
                            {"name", d.name},
                            {"compute_capability", std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)},
                            {"multiprocessors", d.multiprocessors},
                            {"pci_bus_id", d.pciBusId},
                            {"total_bytes", d.totalBytes},
                            {"free_bytes", d.freeBytes},
                            {"engine_supports", d.engineSupports}});
        nlohmann::json j = {{"schema", "headroom.devices/1"},
                            {"status", "ok"},
                            {"driver", cu::versionString(versions.driver)},
                            {"runtime", cu::versionString(versions.runtime)},
                            {"cublas", versions.cublas},
                            {"architectures", cu::builtArchitectures()},
                            {"devices", list}};
        if (o->has("measure-context")) {
            if (context.ok())
                j["context"] = {{"device", 0},
                                {"nvml", context.value().nvmlAvailable},
                                {"used_before_bytes", context.value().usedBeforeBytes},
                                {"used_after_bytes", context.value().usedAfterBytes},
                                {"context_bytes", context.value().contextBytes}};
            else
                j["context"] = {{"error", context.status().message()}};
        }
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "CUDA driver " << cu::versionString(versions.driver) << ", runtime "
              << cu::versionString(versions.runtime) << "\n";
    for (const cu::DeviceInfo& d : devices.value()) {
        char line[256];
        std::snprintf(line, sizeof line, "%d  %-36s sm_%d%d  %3d SMs  %s total, %s free%s\n", d.index, d.name.c_str(),
                      d.computeMajor, d.computeMinor, d.multiprocessors,
                      gib(static_cast<double>(d.totalBytes)).c_str(), gib(static_cast<double>(d.freeBytes)).c_str(),
                      d.engineSupports ? "" : "  (not supported by this build)");
        std::cout << line;
    }
    if (o->has("measure-context")) {
        if (context.ok() && context.value().nvmlAvailable)
            std::cout << "CUDA context on device 0: " << gib(static_cast<double>(context.value().contextBytes))
                      << " (NVML used memory before and after initialisation)\n";
        else
            std::cout << "CUDA context size: not measured ("
                      << (context.ok() ? std::string("NVML not available") : context.status().message()) << ")\n";
    }
    return 0;
#endif
}

} // namespace headroom::cli
