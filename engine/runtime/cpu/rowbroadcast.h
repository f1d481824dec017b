// SPDX-License-Identifier: GPL-3.0-or-later
// One row added to every row of a matrix, and its backward, the column sums.
// BERT's token type embedding (modeling_bert.py BertEmbeddings.forward:
// embeddings = inputs_embeds + token_type_embeddings(token_type_ids), with
// token_type_ids the registered all-zero buffer when the caller passes none)
// adds row 0 of the token type table to every token.
#pragma once

#include <cstddef>

namespace headroom::cpu {

// out (rows, C) += row (C), broadcast over the rows.
template <typename Real>
void addRowToRows(Real* out, const Real* row, std::size_t rows, std::size_t C);

// drow (C) += sum over r of dout (rows, C), accumulated in double.
template <typename Real>
void sumRowsInto(Real* drow, const Real* dout, std::size_t rows, std::size_t C);

} // namespace headroom::cpu
