// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/denselayers.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace headroom::detail {

ModelSpec denseLayerModel(const ModelSpec& model)
{
    ModelSpec dense = model;
    dense.experts = dense.expertsPerToken = 0;
    dense.sharedExperts = dense.sharedExpertIntermediate = 0;
    dense.intermediate = model.denseIntermediate;
    return dense;
}

ParameterTable denseLayerTable(const ParameterTable& table)
{
    ParameterTable view = table;
    std::swap(view.layer, view.denseLayer);
    view.denseLayers = table.layerRepeats();
    return view;
}

namespace {

bool sameSlot(const TensorRow& a, const TensorRow& b)
{
    // The plain fields first and the name last, by pointer before text: the
    // two views' rows come from the same builders (a search merges thousands).
    return a.allocAt == b.allocAt && a.freeAt == b.freeAt && a.layers == b.layers && a.category == b.category &&
           a.managed == b.managed && a.stream == b.stream && a.madeByScript == b.madeByScript &&
           a.firstAllocAt == b.firstAllocAt && a.freedAtZeroGrad == b.freedAtZeroGrad &&
           a.madeAtEventEnd == b.madeAtEventEnd && (a.name == b.name || std::strcmp(a.name, b.name) == 0);
}

bool samePieces(const TensorRow& a, const std::vector<TensorPiece>& aPieces, const TensorRow& b,
                const std::vector<TensorPiece>& bPieces)
{
    if (a.bytes != b.bytes || a.pieceEnd - a.pieceBegin != b.pieceEnd - b.pieceBegin)
        return false;
    for (std::uint32_t k = 0; k < a.pieceEnd - a.pieceBegin; ++k) {
        const TensorPiece& x = aPieces[a.pieceBegin + k];
        const TensorPiece& y = bPieces[b.pieceBegin + k];
        // A reference to another row counts as the same only as a reference:
        // merged rows keep their own (the row it names may itself be split).
        if (x.bytes != y.bytes || x.count != y.count || x.freeOf != y.freeOf || x.isForeign() || y.isForeign())
            return false;
    }
    return true;
}

} // namespace

void mergeDenseLayerRows(std::vector<TensorRow>& rows, std::vector<TensorPiece>& pieces,
                         const std::vector<TensorRow>& denseRows, const std::vector<TensorPiece>& densePieces,
                         std::uint64_t denseLayers, std::uint64_t layers)
{
    const std::size_t own = rows.size();
    std::vector<bool> matched(own, false);
    // Global rows that differ: each view's share by layer count.
    for (const TensorRow& d : denseRows) {
        if (d.layers != LayerSet::Global || layers == 0)
            continue;
        for (std::size_t i = 0; i < own; ++i) {
            TensorRow& r = rows[i];
            if (matched[i] || r.layers != LayerSet::Global || !sameSlot(r, d))
                continue;
            matched[i] = true;
            if (r.bytes != d.bytes) {
                const UInt128 mixed = static_cast<UInt128>(d.bytes) * denseLayers +
                                                static_cast<UInt128>(r.bytes) * (layers - denseLayers);
                r.bytes = static_cast<Bytes>(mixed / layers);
                r.pieceBegin = r.pieceEnd = 0;
            }
            break;
        }
    }
    std::fill(matched.begin(), matched.end(), false);
    // Where each dense-view row ends up: a row of `rows` it equals, or a new one.
    constexpr std::size_t kDropped = ~std::size_t{0};
    std::vector<std::size_t> target(denseRows.size(), kDropped);
    std::vector<std::size_t> added;
    for (std::size_t j = 0; j < denseRows.size(); ++j) {
        const TensorRow& d = denseRows[j];
        if (d.layers == LayerSet::Global)
            continue;
        std::size_t match = own;
        for (std::size_t i = 0; i < own && match == own; ++i)
            if (!matched[i] && rows[i].layers != LayerSet::Global && sameSlot(rows[i], d))
                match = i;
        if (match != own) {
            matched[match] = true;
            if (samePieces(rows[match], pieces, d, densePieces)) {
                target[j] = match;
                continue;
            }
            rows[match].band = LayerBand::Sparse;
        }
        target[j] = own + added.size();
        added.push_back(j);
    }
    // Per-layer rows the dense layers do not have (the experts').
    for (std::size_t i = 0; i < own; ++i)
        if (!matched[i] && rows[i].layers != LayerSet::Global)
            rows[i].band = LayerBand::Sparse;
    for (const std::size_t j : added) {
        TensorRow row = denseRows[j];
        row.band = LayerBand::Dense;
        const auto begin = static_cast<std::uint32_t>(pieces.size());
        for (std::uint32_t k = row.pieceBegin; k < row.pieceEnd; ++k) {
            TensorPiece piece = densePieces[k];
            if (piece.isForeign()) {
                const std::size_t to = target[piece.ofRow];
                if (to == kDropped)
                    continue; // a global row of the dense view: not planned twice
                piece.ofRow = static_cast<std::uint32_t>(to);
            }
            pieces.push_back(piece);
        }
        const auto end = static_cast<std::uint32_t>(pieces.size());
        row.pieceBegin = end == begin ? 0 : begin; // an empty range: one tensor of `bytes`
        row.pieceEnd = end == begin ? 0 : end;
        rows.push_back(row);
    }
}

} // namespace headroom::detail
