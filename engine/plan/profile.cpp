// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/profile.h"

namespace headroom {

namespace {

RuntimeProfile makePytorch() { return RuntimeProfile{}; }

// Headroom's own engine (issue 4 builds it): on the GPU its tensors come from
// a caching block pool (runtime/blockpool.h) that the planner's caching
// allocator simulation decides, so peak reserved is that simulation, as for
// PyTorch (the CPU engine allocates exactly and measures no reserved); norms
// keep their statistics in fp32 but save their input in the activation dtype; the loss works on logits in chunks of
// its own choosing and never upcasts the whole tensor; optimizers update in
// place without a foreach temporary and allocate their state with the weights; mixed precision keeps explicit low
// precision weight copies (counted the same way as autocast's).
RuntimeProfile makeHeadroom()
{
    RuntimeProfile p;
    p.id = Profile::Headroom;
    p.fp32NormUpcast = false;
    p.fp32LogitsUpcast = false;
    p.foreachOptimizerTemporary = false;
    p.lazyOptimizerState = false;
    p.gradientsMadeInBackward = false;
    p.autocastWeightCopies = true;
    p.cublasWorkspacesTraining = 1;
    return p;
}

} // namespace

const RuntimeProfile& runtimeProfile(Profile id)
{
    static const RuntimeProfile pytorch = makePytorch();
    static const RuntimeProfile headroom = makeHeadroom();
    return id == Profile::Headroom ? headroom : pytorch;
}

} // namespace headroom
