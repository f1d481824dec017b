// SPDX-License-Identifier: GPL-3.0-or-later
// A row's tensors as the caching allocator is asked for them
// (TensorRow::pieceBegin): runs of tensors that add up to the row, or, for a
// temporary of one event, a script of allocations and releases in PyTorch's
// order (TensorPiece::freeOf). Only the allocator stream reads them
// (allocatorstream.h).
#include "plan/planbuild.h"

#include <algorithm>

namespace headroom::detail {

void attachPieces(const BuildContext& ctx, TensorRow& row, std::size_t begin)
{
    if (!ctx.pieces)
        return;
    std::vector<TensorPiece>& pieces = *ctx.pieces;
    std::size_t kept = begin;
    UInt128 total = 0, tensors = 0;
    for (std::size_t p = begin; p < pieces.size(); ++p) {
        if (pieces[p].bytes == 0 || pieces[p].count == 0)
            continue;
        total += static_cast<UInt128>(pieces[p].bytes) * pieces[p].count;
        tensors += pieces[p].count;
        pieces[kept++] = pieces[p];
    }
    pieces.resize(kept);
    // A row's tensors are ids in the stream: a million is far more than any model has.
    if (kept == begin || total != row.bytes || tensors > (1U << 20)) {
        pieces.resize(begin);
        return;
    }
    row.pieceBegin = static_cast<std::uint32_t>(begin);
    row.pieceEnd = static_cast<std::uint32_t>(kept);
}

Bytes scriptPeak(const TensorPiece* first, const TensorPiece* last)
{
    std::vector<Bytes> made; // bytes of each tensor the script made; 0 once released
    UInt128 held = 0, most = 0;
    for (const TensorPiece* piece = first; piece != last; ++piece) {
        if (piece->isFree()) {
            if (piece->freeOf >= made.size() || made[piece->freeOf] == 0)
                return 0;
            held -= made[piece->freeOf];
            made[piece->freeOf] = 0;
            continue;
        }
        if (piece->isForeign()) // another row's tensors, counted in that row
            continue;
        // A tensor id each (allocatorstream.h): a script is a few dozen.
        if (piece->bytes == 0 || piece->count == 0 || made.size() + piece->count > (1U << 16))
            return 0;
        for (std::uint64_t c = 0; c < piece->count; ++c) {
            made.push_back(piece->bytes);
            held += piece->bytes;
            most = std::max(most, held);
        }
    }
    return most > ~Bytes{0} ? 0 : static_cast<Bytes>(most);
}

void attachScript(const BuildContext& ctx, TensorRow& row, std::size_t begin)
{
    if (!ctx.pieces)
        return;
    std::vector<TensorPiece>& pieces = *ctx.pieces;
    const Bytes most = row.allocAt == row.freeAt && pieces.size() > begin
                           ? scriptPeak(pieces.data() + begin, pieces.data() + pieces.size())
                           : 0;
    if (most == 0) {
        pieces.resize(begin);
        return;
    }
    row.bytes = most;
    row.pieceBegin = static_cast<std::uint32_t>(begin);
    row.pieceEnd = static_cast<std::uint32_t>(pieces.size());
}

} // namespace headroom::detail
