// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/searchtext.h"

#include "text/errortext.h"
#include "text/memoryunits.h"

#include <QLocale>
#include <QStringList>

using namespace headroom;

namespace {

QString number(std::uint64_t n) { return QLocale().toString(static_cast<qulonglong>(n)); }

QString count(std::size_t n) { return QLocale().toString(static_cast<qulonglong>(n)); }

} // namespace

QString SearchText::seconds(double s)
{
    const QLocale locale;
    //: a duration in milliseconds
    return s < 1 ? tr("%1 ms").arg(locale.toString(s * 1e3, 'f', 1))
                 //: a duration in seconds
                 : tr("%1 s").arg(locale.toString(s, 'f', 2));
}

QString SearchText::percent(double fraction, int decimals)
{
    return QLocale().toString(100 * fraction, 'f', decimals) + QStringLiteral(" %");
}

QString SearchText::shortSharding(Sharding sharding)
{
    // Names as the libraries spell them; the table's tooltip gives DisplayNames' longer form.
    switch (sharding) {
    case Sharding::None: return QStringLiteral("–");
    case Sharding::Ddp: return QStringLiteral("DDP");
    case Sharding::Zero1: return QStringLiteral("ZeRO-1");
    case Sharding::Zero2: return QStringLiteral("ZeRO-2");
    case Sharding::Zero3: return QStringLiteral("ZeRO-3");
    case Sharding::Fsdp: return QStringLiteral("FSDP");
    case Sharding::Fsdp2: return QStringLiteral("FSDP2");
    }
    return QString();
}

QString SearchText::shortCheckpointing(Checkpointing checkpointing)
{
    switch (checkpointing) {
    case Checkpointing::None: return tr("off");
    case Checkpointing::Full: return tr("every layer");
    case Checkpointing::EveryK: return tr("every k-th layer");
    case Checkpointing::SelectiveOps: return tr("selective (ops)");
    }
    return QString();
}

QString SearchText::stepTerm(StepTerm term)
{
    switch (term) {
    case StepTerm::Compute: return tr("computation");
    case StepTerm::TensorParallel: return tr("tensor-parallel communication");
    case StepTerm::PipelineSend: return tr("pipeline sends");
    case StepTerm::Bubble: return tr("pipeline bubble");
    case StepTerm::DataParallel: return tr("data-parallel communication");
    case StepTerm::ContextParallel: return tr("context-parallel communication");
    case StepTerm::ExpertParallel: return tr("expert-parallel communication");
    }
    return QString();
}

QString SearchText::layout(const LayoutCandidate& c)
{
    const QString tp = c.sp ? tr("%1 with SP").arg(number(c.tp)) : number(c.tp);
    //: pipeline stages interleaved 1F1B: %1 stages, %2 virtual stages (model chunks) each
    const QString pp = c.vpp > 1 ? tr("%1 (interleaved, vpp %2)").arg(number(c.pp), number(c.vpp)) : number(c.pp);
    //: a parallel layout: tensor × pipeline × data-parallel degrees, sharding, micro-batch × accumulation, checkpointing
    //: the data-parallel degree under HSDP: %1 the degree, %2 replicate groups
    QString dp =
        c.dpReplicate > 1 ? tr("%1 (HSDP, %2 replicas)").arg(number(c.dp), number(c.dpReplicate)) : number(c.dp);
    //: context parallelism in a layout, before the data-parallel degree: %1 the cp degree, %2 the dp degree
    if (c.cp > 1)
        dp = tr("cp %1 × dp %2").arg(number(c.cp), dp);
    else
        dp = tr("dp %1").arg(dp);
    //: expert parallelism in a layout, after the data-parallel degree: %1 "dp N", %2 the ep degree
    if (c.ep > 1)
        dp = tr("%1 (ep %2)").arg(dp, number(c.ep));
    //: expert tensor parallelism in a layout when it differs from tp: %1 the layout so far, %2 the etp degree
    if (c.expertTensorParallel() != c.tp)
        dp = tr("%1 (expert TP %2)").arg(dp, number(c.expertTensorParallel()));
    //: a parallel layout: %1 tensor, %2 pipeline degrees, %3 "dp N" or "cp N × dp N", sharding, micro-batch × accumulation, checkpointing
    return tr("tp %1 × pp %2 × %3, %4, micro-batch %5 × %6, checkpointing %7")
        .arg(tp, pp, dp, shortSharding(c.sharding), number(c.microBatch), number(c.gradAccum),
             shortCheckpointing(c.checkpointing));
}

QString SearchText::differences(const LayoutCandidate& a, const LayoutCandidate& b)
{
    QStringList parts;
    //: one setting in which two layouts differ: %1 the setting, %2 the first layout's value, %3 the second's
    auto differ = [&parts](const QString& name, const QString& first, const QString& second) {
        if (first != second)
            parts << tr("%1 %2 against %3").arg(name, first, second);
    };
    const QString on = tr("on"), off = tr("off");
    differ(tr("tp"), number(a.tp), number(b.tp));
    differ(tr("sequence parallelism"), a.sp ? on : off, b.sp ? on : off);
    differ(tr("pp"), number(a.pp), number(b.pp));
    differ(tr("virtual stages"), number(a.vpp), number(b.vpp));
    differ(tr("cp"), number(a.cp), number(b.cp));
    differ(tr("dp"), number(a.dp), number(b.dp));
    differ(tr("replicate groups"), number(a.dpReplicate), number(b.dpReplicate));
    differ(tr("ep"), number(a.ep), number(b.ep));
    differ(tr("expert TP"), number(a.expertTensorParallel()), number(b.expertTensorParallel()));
    differ(tr("sharding"), shortSharding(a.sharding), shortSharding(b.sharding));
    differ(tr("micro-batch"), number(a.microBatch), number(b.microBatch));
    differ(tr("accumulation"), number(a.gradAccum), number(b.gradAccum));
    differ(tr("checkpointing"), shortCheckpointing(a.checkpointing), shortCheckpointing(b.checkpointing));
    return parts.join(QStringLiteral(", "));
}

QString SearchText::whyBest(const LayoutCandidate& best, const LayoutCandidate& runnerUp)
{
    const LayoutComparison c = compareLayouts(best, runnerUp);
    const QString differ = differences(best, runnerUp);
    if (c.tie)
        return tr("#1 and #2 (%1) take the same estimated step time, %2; #1 comes first because it uses less "
                  "device memory (%3 against %4).")
            .arg(differ, seconds(best.time.stepSeconds), MemoryUnits::format(double(c.bestDeviceUsedBytes)),
                 MemoryUnits::format(double(c.runnerUpDeviceUsedBytes)));
    const QString lead =
        tr("#1 is %1 (%2) faster per step than #2 (%3).").arg(seconds(c.gapSeconds), percent(c.gapFraction), differ);
    if (!c.paidTerm)
        return lead + QLatin1Char(' ') +
               tr("Its %1 takes %2 less (%3 against %4).")
                   .arg(stepTerm(c.savedTerm), seconds(c.savedSeconds), seconds(c.bestSavedTermSeconds),
                        seconds(c.runnerUpSavedTermSeconds));
    return lead + QLatin1Char(' ') +
           tr("Its %1 takes %2 less (%3 against %4), more than making up for its %5, which takes %6 longer.")
               .arg(stepTerm(c.savedTerm), seconds(c.savedSeconds), seconds(c.bestSavedTermSeconds),
                    seconds(c.runnerUpSavedTermSeconds), stepTerm(*c.paidTerm), seconds(c.paidSeconds));
}

QString SearchText::counts(const LayoutSearchResult& r)
{
    QStringList parts;
    parts << tr("Evaluated: %1 layouts").arg(count(r.evaluated))
          << tr("refused by the planner: %1").arg(count(r.refused))
          << tr("fit (quick estimate): %1").arg(count(r.feasible));
    if (r.refusedShapes != 0)
        parts << tr("tp × pp shapes refused: %1").arg(count(r.refusedShapes));
    parts << tr("re-planned with the allocator simulation: %1").arg(count(r.simulated));
    if (r.droppedBySimulation != 0)
        parts << tr("of those, too large with the simulation: %1").arg(count(r.droppedBySimulation));
    return parts.join(QStringLiteral(" · "));
}

QString SearchText::assumptions(const LayoutSearchResult& r)
{
    const QLocale locale;
    const QString perNode =
        r.gpusPerNodeAssumed
            ? tr("%1 GPUs per node (assumed: the scenario does not say)").arg(number(r.links.gpusPerNode))
            : tr("%1 GPUs per node").arg(number(r.links.gpusPerNode));
    //: %1 GPUs per node, %2 a percentage, %3 TFLOPS, %4 and %5 GB/s
    return tr("Assumptions: %1; matrix products at %2 of the %3 TFLOPS dense bf16 peak; communication not "
              "overlapped with computation (so the step times are upper bounds); links per GPU %4 GB/s inside a "
              "node, %5 GB/s between nodes.")
        .arg(perNode, percent(kAchievableFractionOfPeak, 0), locale.toString(r.gpu.denseBf16Tflops, 'f', 0),
             locale.toString(r.links.intraNodeGBs, 'f', 1), locale.toString(r.links.interNodeGBs, 'f', 1));
}

QString SearchText::linkSource(const LayoutSearchResult& r)
{
    // The engine cites datasheets by name (kept as written) or says the figures are assumed.
    if (r.links.source.rfind("assumption", 0) == 0)
        return tr("Link speeds: an assumption for this GPU (PCIe 4.0 x16 inside a node, 100 Gb/s Ethernet between "
                  "nodes).");
    return tr("Link speeds: %1.").arg(QString::fromStdString(r.links.source));
}

QString SearchText::headline(const LayoutSearchResult& r, std::uint64_t seqLen)
{
    const QString gpus = tr("%1 × %2").arg(number(r.gpus), QString::fromStdString(r.gpu.name));
    if (r.layouts.empty()) {
        if (r.cancelled)
            return tr("Search cancelled before a layout that fits was found (%1 evaluated).").arg(count(r.evaluated));
        QString text = tr("No layout of %1 fits.").arg(gpus);
        if (r.closest)
            text +=
                QLatin1Char(' ') + tr("The closest, %1, uses %2 of %3.")
                                       .arg(layout(*r.closest), MemoryUnits::format(double(r.closest->deviceUsedBytes)),
                                            MemoryUnits::format(double(r.gpu.usableBytes())));
        return text;
    }
    //: %1 GPUs, %2 sequences, %3 tokens
    QString text = tr("The fastest layouts of %1 for a global batch of %2 sequences of %3 tokens, by estimated step "
                      "time.")
                       .arg(gpus, number(r.globalBatch), number(seqLen));
    if (r.globalBatchDerived)
        text += QLatin1Char(' ') + tr("The scenario sets no global batch: micro-batch × accumulation × GPUs.");
    if (r.cancelled)
        text += QLatin1Char(' ') +
                tr("Search cancelled: the best of the %1 layouts evaluated before it stopped.").arg(count(r.evaluated));
    return text;
}

QString SearchText::commonRefusal(const LayoutSearchResult& r)
{
    if (r.commonRefusal.empty())
        return QString();
    const QString known = ErrorText::knownDetail(r.commonRefusal);
    return tr("Most frequent refusal: %1").arg(known.isEmpty() ? QString::fromStdString(r.commonRefusal) : known);
}
