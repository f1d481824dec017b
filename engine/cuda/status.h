// SPDX-License-Identifier: GPL-3.0-or-later
// The result of every call into the CUDA backend. A CUDA or cuBLAS failure
// becomes a Status the caller handles (the GUI runs us in a child process,
// the CLI prints it); nothing here calls exit() or throws across the API.
// (STYLE.md: llm.c's cudaCheck with file and line, minus the exit().)
#pragma once

#include <string>
#include <utility>

namespace headroom::cuda {

enum class StatusCode {
    ok,
    noEngine,       // never returned by this library; for callers without it
    noDevice,       // no CUDA device, or no driver
    outOfMemory,    // cudaErrorMemoryAllocation or a refused tracked allocation
    invalidArgument,// a size, dtype or pointer the kernels do not accept
    cudaError,      // any other CUDA runtime error
    cublasError,    // a cuBLAS or cuBLASLt status other than success
};

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(StatusCode code, std::string message) : m_code(code), m_message(std::move(message)) {}

    static Status success() { return {}; }

    bool ok() const { return m_code == StatusCode::ok; }
    explicit operator bool() const { return ok(); }
    StatusCode code() const { return m_code; }
    // Human text with the CUDA error name and the place it was detected,
    // e.g. "cudaMalloc: out of memory (cudaErrorMemoryAllocation) at device.cu:88".
    const std::string& message() const { return m_message; }

private:
    StatusCode m_code = StatusCode::ok;
    std::string m_message;
};

// A value or the Status that prevented it.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Status status) : m_status(std::move(status)) {}

    bool ok() const { return m_status.ok(); }
    const Status& status() const { return m_status; }
    const T& value() const { return m_value; }
    T& value() { return m_value; }

private:
    T m_value{};
    Status m_status;
};

const char* statusCodeName(StatusCode code);

} // namespace headroom::cuda
