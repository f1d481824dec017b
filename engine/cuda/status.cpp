// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/status.h"

namespace headroom::cuda {

const char* statusCodeName(StatusCode code)
{
    switch (code) {
    case StatusCode::ok: return "ok";
    case StatusCode::noEngine: return "no-engine";
    case StatusCode::noDevice: return "no-device";
    case StatusCode::outOfMemory: return "out-of-memory";
    case StatusCode::invalidArgument: return "invalid-argument";
    case StatusCode::cudaError: return "cuda-error";
    case StatusCode::cublasError: return "cublas-error";
    }
    return "unknown";
}

} // namespace headroom::cuda
