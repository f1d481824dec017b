// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli validate: run a scenario's training step on a backend and put
// the measured memory next to the headroom profile's plan. The contract with
// the app (which runs this as a child process) is VALIDATE-PROTOCOL.md:
// progress lines on stderr, one JSON result on stdout, exit 0/2/3.
#include "commands.h"

#include "format.h"
#include "options.h"

#include "io/atomicfile.h"
#include "runtime/validate.h"

#ifdef HEADROOM_HAVE_CUDA_ENGINE
#include "cuda/cudabackend.h"
#endif

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

namespace headroom::cli {

namespace {

// Exit status 3: the backend cannot run here at all (VALIDATE-PROTOCOL.md).
int unavailable(const std::string& why)
{
    std::cerr << "headroom-cli: " << why << "\n";
    return 3;
}

} // namespace

int runValidate(const std::vector<std::string>& args)
{
    auto o = Options::parseFor("validate", args);
    if (!o)
        return fail(o.error());
    if (!o->positional().empty())
        return fail(makeError(ErrorCode::InvalidArgument, "unexpected argument '" + o->positional().front() + "'"));
    // Default: CUDA when this build has the engine and a device answers, else the CPU.
    const std::string backendName = o->has("backend") ? o->value("backend") : "auto";
    if (backendName != "cpu" && backendName != "cuda" && backendName != "auto")
        return fail(makeError(ErrorCode::InvalidArgument, "--backend: must be cpu or cuda, got '" + backendName + "'"));
#ifndef HEADROOM_HAVE_CUDA_ENGINE
    if (backendName == "cuda")
        return unavailable("no CUDA engine in this build");
#endif
    int device = 0;
    if (o->has("device")) {
        auto index = wholeNumber("device", o->value("device"), 0, 64);
        if (!index)
            return fail(index.error());
        device = static_cast<int>(index.value());
    }
    rt::RunOptions run;
    if (o->has("steps")) {
        auto steps = wholeNumber("steps", o->value("steps"), 1, 1000);
        if (!steps)
            return fail(steps.error());
        run.steps = steps.value();
    }
    if (o->has("max-layers")) {
        auto layers = wholeNumber("max-layers", o->value("max-layers"), 2, 100000);
        if (!layers)
            return fail(layers.error());
        run.maxLayers = layers.value();
    }
    if (o->has("timeout-s")) {
        auto seconds = wholeNumber("timeout-s", o->value("timeout-s"), 1, 86400 * 7);
        if (!seconds)
            return fail(seconds.error());
        run.timeoutSeconds = static_cast<double>(seconds.value());
    }
    const std::string fault = o->has("inject-fault") ? o->value("inject-fault") : "";
    if (!fault.empty() && fault != "crash" && fault != "hang" && fault != "oom")
        return fail(makeError(ErrorCode::InvalidArgument, "--inject-fault: must be crash, hang or oom, got '" + fault + "'"));
    run.injectOutOfMemory = fault == "oom";
    auto scenario = scenarioFromOptions(o.value());
    if (!scenario)
        return fail(scenario.error());
    if (scenario->mode != Mode::Train)
        return fail(makeError(ErrorCode::UnsupportedCombination, "validate runs training steps: use --mode train"));

    const bool progress = o->has("progress");
    bool first = true;
    run.progress = [&](const rt::Progress& p) {
        if (progress) {
            const nlohmann::json line = {{"progress", p.fraction}, {"phase", p.phase}, {"event", p.event},
                                         {"step", p.step},         {"steps", p.steps}};
            std::cerr << line.dump() << std::endl; // flushed at once: the app reads it live
        }
        if (first) {
            first = false;
            // Faults for the app's tests, after the first progress line.
            if (fault == "crash")
                std::abort();
            if (fault == "hang")
                for (;;)
                    std::this_thread::sleep_for(std::chrono::hours(1));
        }
    };
    std::unique_ptr<rt::Backend> backend;
#ifdef HEADROOM_HAVE_CUDA_ENGINE
    if (backendName != "cpu") {
        auto cuda = cuda::makeCudaBackend(device);
        if (cuda.ok())
            backend = std::move(cuda.value());
        else if (backendName == "cuda")
            return unavailable(cuda.status().code() == cuda::StatusCode::noDevice
                                   ? "no CUDA device found: " + cuda.status().message()
                                   : cuda.status().message());
    }
#else
    (void)device;
#endif
    if (!backend)
        backend = rt::makeCpuBackend();
    auto result = rt::runValidation(scenario.value(), *backend, run);
    if (!result)
        return fail(result.error());
    if (o->has("trace")) {
        auto written = writeFileAtomically(o->value("trace"), rt::chromeTrace(result.value()));
        if (!written)
            return fail(written.error());
    }
    if (o->has("json"))
        std::cout << rt::validationJson(result.value()).dump(2) << "\n";
    else
        std::cout << rt::validationTable(result.value());
    return 0;
}

} // namespace headroom::cli
