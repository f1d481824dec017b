// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/stepflops.h"

#include "model/parametertable.h"

namespace headroom::rt {

double modelFlopsPerStep(const Scenario& s)
{
    const ModelSpec& m = s.model;
    const ParameterTable table = buildParameterTable(m);
    double layerMatmul = 0, denseMatmul = 0, globalMatmul = 0;
    for (const ParamTensor& t : table.layer)
        if (t.isLinearWeight)
            layerMatmul += double(t.elements());
    for (const ParamTensor& t : table.denseLayer) // DeepSeek-V3's dense first layers
        if (t.isLinearWeight)
            denseMatmul += double(t.elements());
    bool head = false;
    for (const ParamTensor& t : table.global) {
        if (t.isLinearWeight)
            globalMatmul += double(t.elements());
        head = head || (t.kind == ModuleKind::LmHead && t.isLinearWeight);
    }
    // A tied head multiplies by the embedding matrix, which the table counts once, as a lookup.
    if (!head && !m.classifier())
        globalMatmul += double(m.vocab) * double(m.hidden);
    const double N = double(table.layerRepeats()) * layerMatmul +
                     double(table.layers - table.layerRepeats()) * denseMatmul + globalMatmul;
    const double T = double(s.train.seqLen);
    const double perToken = 6.0 * N + 12.0 * double(m.layers) * double(m.heads) * double(m.headDim) * T;
    const double tokens = double(s.train.gradAccum) * double(s.train.microBatch) * T;
    return perToken * tokens;
}

} // namespace headroom::rt
