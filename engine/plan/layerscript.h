// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tensors one event of a layer makes and drops, in order: a temporary
// row's script (TensorPiece: a size to make, or the index of one to release;
// attachScript in planbuild.h). Used for the layer forwards planned tensor by
// tensor (torchtitanrows.cpp, checkpointedforward.cpp).
#include "plan/plan.h"

#include <initializer_list>
#include <vector>

namespace headroom::detail {

class LayerScript {
public:
    std::uint32_t make(Bytes bytes)
    {
        m_pieces.push_back({bytes, 1});
        return m_made++;
    }
    // The next tensor of another row (TensorPiece::ofRow), made here.
    void place(std::uint32_t row, Bytes bytes) { m_pieces.push_back({bytes, 1, TensorPiece::kAllocation, row}); }
    void release(std::initializer_list<std::uint32_t> ids)
    {
        for (std::uint32_t id : ids)
            m_pieces.push_back({0, 0, id});
    }
    std::vector<TensorPiece>& pieces() { return m_pieces; }

private:
    std::vector<TensorPiece> m_pieces;
    std::uint32_t m_made = 0;
};

} // namespace headroom::detail
