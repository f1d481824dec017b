// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/compiledloss.h"

#include "plan/planbuild.h"

namespace headroom {

namespace {

Error unsupported(const char* what) { return makeError(ErrorCode::UnsupportedCombination, what); }

} // namespace

bool compiledLoss(const Scenario& sc) { return sc.mode == Mode::Train && sc.train.compileLoss; }

std::optional<Error> checkCompiledLoss(const Scenario& sc)
{
    if (!compiledLoss(sc))
        return std::nullopt;
    if (sc.profile != Profile::Pytorch)
        return unsupported("train.compile_loss: torch.compile is PyTorch's; Headroom's engine runs its own kernels");
    if (sc.model.classifier())
        return unsupported("train.compile_loss: the compiled loss is planned for language-model heads (cross-entropy "
                           "over the vocabulary), not sequence classification");
    if (sc.train.chunkedCrossEntropy)
        return unsupported("train.compile_loss: a compiled loss and a chunked loss are two different loss functions; "
                           "choose one (train.chunked_cross_entropy)");
    if (sc.hardware.parallel.tp > 1)
        return unsupported("train.compile_loss: under tensor parallelism the loss is DTensor's loss parallelism, whose "
                           "compiled form is not measured; planned eager only");
    return std::nullopt;
}

namespace detail {

void addCompiledLossRows(const BuildContext& ctx, Bytes TV, Bytes logitBytes, bool keepOutputs,
                         std::vector<TensorRow>& rows)
{
    // The 16-bit (or fp32) logits are the compiled graph's input, saved for
    // its backward: alive until the loss backward even after the loop drops
    // its own reference (torchtitan: `del pred` before loss.backward()).
    rows.push_back({"logits",
                    "lm_head output: tokens x vocab in the compute dtype, saved by the compiled loss as its input",
                    Category::Logits, satMul(TV, logitBytes), Phase::HeadFwd,
                    keepOutputs ? Phase::OptimizerStep : Phase::LossBwd, LayerSet::Global, false});
    // amax and log(sum(exp)) over the vocabulary, fp32 [tokens, 1] each (the
    // partitioned forward graph returns both for the backward).
    rows.push_back({"loss.row_stats", "the compiled loss's saved row max and log-sum-exp, fp32, two per token",
                    Category::Logits, satMul(ctx.tokens, 8), Phase::LossFwd, Phase::LossBwd, LayerSet::Global, false});
    rows.push_back({"logits.grad",
                    "gradient of the logits in their dtype, written by the compiled loss's backward kernel",
                    Category::Logits, satMul(TV, logitBytes), Phase::LossBwd, Phase::HeadBwd, LayerSet::Global, false});
}

} // namespace detail

} // namespace headroom
