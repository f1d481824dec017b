// SPDX-License-Identifier: GPL-3.0-or-later
// The activation rows the stages of one tp/pp layout share (planbuild.h
// StageRowMemo). A layout search plans thousands of layouts of two or three
// stages each, most of them alike but for their embedding or head, and
// sequence parallelism and the interleaved schedule build a stage's rows
// twice: the memo builds them once per distinct stage model.
#include "plan/planbuild.h"

namespace headroom::detail {

namespace {

bool sameKey(const StageRowMemo::Entry& e, const BuildContext& ctx, SharedRows kind, bool piecesWanted)
{
    return e.kind == kind && (e.withPieces || !piecesWanted) && (e.withNotes || !ctx.notes) && e.tableLayers == ctx.table.layers &&
           e.tableDenseLayers == ctx.table.denseLayers && e.layerTensors == ctx.table.layer.size() &&
           e.denseLayerTensors == ctx.table.denseLayer.size() && e.model == ctx.model;
}

// Appends a memo entry's rows (and, when ctx keeps pieces, their pieces)
// after rows.size(), moving their piece and foreign-row indices there.
void appendEntry(const StageRowMemo::Entry& e, const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    if (ctx.notes)
        ctx.notes->insert(ctx.notes->end(), e.notes.begin(), e.notes.end());
    const auto rowBase = static_cast<std::uint32_t>(rows.size());
    if (!ctx.pieces) {
        for (TensorRow row : e.rows) {
            row.pieceBegin = row.pieceEnd = 0;
            rows.push_back(row);
        }
        return;
    }
    const auto pieceBase = static_cast<std::uint32_t>(ctx.pieces->size());
    for (TensorPiece piece : e.pieces) {
        if (piece.isForeign())
            piece.ofRow += rowBase;
        ctx.pieces->push_back(piece);
    }
    for (TensorRow row : e.rows) {
        if (row.pieceEnd > row.pieceBegin) {
            row.pieceBegin += pieceBase;
            row.pieceEnd += pieceBase;
        }
        rows.push_back(row);
    }
}

} // namespace

void addSharedRows(const BuildContext& ctx, std::vector<TensorRow>& rows, SharedRows kind, RowBuilder build)
{
    StageRowMemo* memo = ctx.rank ? ctx.rank->memo : nullptr;
    if (!memo) {
        build(ctx, rows);
        return;
    }
    const bool piecesWanted = ctx.pieces != nullptr;
    for (const StageRowMemo::Entry& e : memo->entries)
        if (sameKey(e, ctx, kind, piecesWanted)) {
            appendEntry(e, ctx, rows);
            return;
        }

    // Build once, with pieces (so that a build without them, such as the
    // interleaved peak search's, serves the stage's own build too), into
    // rows themselves so that foreign pieces index the right rows.
    StageRowMemo::Entry e;
    e.kind = kind;
    e.model = ctx.model;
    e.tableLayers = ctx.table.layers;
    e.tableDenseLayers = ctx.table.denseLayers;
    e.layerTensors = ctx.table.layer.size();
    e.denseLayerTensors = ctx.table.denseLayer.size();
    // The undivided build is made without pieces or notes (withModel).
    const bool undivided = kind == SharedRows::Undivided;
    e.withPieces = !undivided;
    e.withNotes = memo->withNotes && !undivided;
    std::vector<TensorPiece> scratch;
    BuildContext built = ctx;
    built.pieces = e.withPieces ? (piecesWanted ? ctx.pieces : &scratch) : nullptr;
    // The builders' notes are kept with the rows: a stage that copies them
    // says them too.
    built.notes = e.withNotes ? &e.notes : nullptr;
    const std::size_t rowBegin = rows.size();
    const std::size_t pieceBegin = built.pieces ? built.pieces->size() : 0;
    build(built, rows);

    for (std::size_t i = rowBegin; i < rows.size(); ++i) {
        TensorRow row = rows[i];
        if (row.pieceEnd > row.pieceBegin) {
            row.pieceBegin -= static_cast<std::uint32_t>(pieceBegin);
            row.pieceEnd -= static_cast<std::uint32_t>(pieceBegin);
        }
        e.rows.push_back(row);
    }
    bool foreignOutside = false;
    if (built.pieces)
        for (std::size_t k = pieceBegin; k < built.pieces->size(); ++k) {
            TensorPiece piece = (*built.pieces)[k];
            if (piece.isForeign()) {
                if (piece.ofRow < rowBegin || piece.ofRow >= rows.size())
                    foreignOutside = true; // refers to a row the entry does not hold: not shareable
                piece.ofRow -= static_cast<std::uint32_t>(rowBegin);
            }
            e.pieces.push_back(piece);
        }
    if (built.pieces == &scratch || !piecesWanted)
        for (std::size_t i = rowBegin; i < rows.size(); ++i)
            rows[i].pieceBegin = rows[i].pieceEnd = 0; // this build's caller keeps no pieces
    if (ctx.notes)
        ctx.notes->insert(ctx.notes->end(), e.notes.begin(), e.notes.end());
    if (!foreignOutside)
        memo->entries.push_back(std::move(e));
}

} // namespace headroom::detail
