// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/cpu/rowbroadcast.h"

#include "runtime/cpu/parallel.h"

#include <vector>

namespace headroom::cpu {

template <typename Real>
void addRowToRows(Real* out, const Real* row, std::size_t rows, std::size_t C)
{
    parallelForRanges(rows, C, [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r)
            for (std::size_t c = 0; c < C; ++c)
                out[r * C + c] = static_cast<Real>(double(out[r * C + c]) + double(row[c]));
    });
}

template <typename Real>
void sumRowsInto(Real* drow, const Real* dout, std::size_t rows, std::size_t C)
{
    // One column per item: each owns its element of drow.
    parallelForRanges(C, rows, [&](std::size_t begin, std::size_t end) {
        for (std::size_t c = begin; c < end; ++c) {
            double sum = 0.0;
            for (std::size_t r = 0; r < rows; ++r)
                sum += double(dout[r * C + c]);
            drow[c] = static_cast<Real>(double(drow[c]) + sum);
        }
    });
}

template void addRowToRows<float>(float*, const float*, std::size_t, std::size_t);
template void addRowToRows<double>(double*, const double*, std::size_t, std::size_t);
template void sumRowsInto<float>(float*, const float*, std::size_t, std::size_t);
template void sumRowsInto<double>(double*, const double*, std::size_t, std::size_t);

} // namespace headroom::cpu
