// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/modelhead.h"

#include <string>

namespace headroom {

const char* modelHeadName(ModelHead head)
{
    switch (head) {
    case ModelHead::LanguageModel: return "language-model";
    case ModelHead::SequenceClassification: return "sequence-classification";
    }
    return "?";
}

bool parseModelHead(const std::string& name, ModelHead& out)
{
    for (ModelHead head : {ModelHead::LanguageModel, ModelHead::SequenceClassification})
        if (name == modelHeadName(head)) {
            out = head;
            return true;
        }
    return false;
}

std::optional<Error> setModelHead(ModelSpec& spec, ModelHead head, std::uint64_t numLabels)
{
    if (head == ModelHead::LanguageModel) {
        if (numLabels != 0)
            return makeError(ErrorCode::InvalidArgument,
                             "num_labels " + std::to_string(numLabels)
                                 + " needs the sequence-classification head; the language-model head has no labels");
        // transformers' class names (modeling_bert.py BertForMaskedLM); other
        // families keep the causal-LM class their importer set.
        if (spec.family == Family::Bert)
            spec.hfClass = "BertForMaskedLM";
    } else {
        if (spec.family != Family::Bert)
            return makeError(ErrorCode::UnsupportedCombination,
                             std::string("the sequence-classification head is planned for BERT models only, not for ")
                                 + familyName(spec.family));
        if (numLabels < 1 || numLabels > kMaxLabels)
            return makeError(ErrorCode::InvalidArgument,
                             "num_labels must be between 1 and " + std::to_string(kMaxLabels) + ", got "
                                 + std::to_string(numLabels));
        spec.hfClass = "BertForSequenceClassification";
    }
    spec.head = head;
    spec.numLabels = numLabels;
    return std::nullopt;
}

} // namespace headroom
