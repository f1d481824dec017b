// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What one transformer layer saves for backward, tensor by tensor, as PyTorch
// autograd saves them for the Hugging Face implementation of each family
// (memory-model.md §1; Korthikanti et al. 2022, arXiv:2205.05198 §4.1, for
// the itemisation). activationrows.cpp turns these into the tensor table's
// rows (kept and checkpointed layers, offload) and adds the temporaries, the
// head and the loss.
#include "plan/planbuild.h"

#include <cstring>
#include <vector>

namespace headroom::detail {

// One layer's saved tensors. A tensor saved by several ops is one tensor:
// items are keyed, and a key is counted once.
struct SavedItem {
    const char* key;
    const char* source;
    Bytes bytes;
};

class SavedSet {
public:
    // A layer saves a few dozen tensors: one allocation instead of a
    // reallocation at every doubling (plans are made thousands at a time).
    SavedSet() { m_items.reserve(40); }
    // The key of the saved tensor that is the layer's input itself (not a
    // copy): a checkpointed layer holds it as its boundary and recomputes
    // from it, so it is not recomputed a second time.
    const char* layerInputKey = nullptr;
    // BERT: how many items were saved up to the end of attention (the rest
    // are allocated after its scores are freed).
    std::size_t savedThroughAttention = 0;
    void save(const char* key, Bytes bytes, const char* source)
    {
        if (bytes == 0)
            return;
        for (const SavedItem& item : m_items)
            // Keys are literals of this file, usually merged by the compiler: compare
            // pointers first, and text only when the first characters agree.
            if (item.key == key || (item.key[0] == key[0] && std::strcmp(item.key, key) == 0))
                return;
        m_items.push_back({key, source, bytes});
    }
    const std::vector<SavedItem>& items() const { return m_items; }

private:
    std::vector<SavedItem> m_items;
};

struct Dims {
    Bytes T, b, s, h, i, a, kv, d, V, p, r;  // r: residual stream bytes
};

// Saves of a normalisation layer (RMSNorm or LayerNorm) under the given keys.
void saveNorm(SavedSet& s, const BuildContext& ctx, const Dims& d, const char* inKey, const char* normedKey,
              const char* statKey, bool sublayerInput = false);

// The attention kernel whose saves a layer has: the scenario's choice, or for
// sdpa the kernel CUDA picks (flash, memory-efficient as Sdpa, math as Eager).
Attention savedAttentionKind(const BuildContext& ctx, const Dims& d);

// One layer's saved tensors for this scenario.
SavedSet layerSaves(const BuildContext& ctx, const Dims& d);

} // namespace headroom::detail
