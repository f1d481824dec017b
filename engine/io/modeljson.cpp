// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/modeljson.h"

#include "io/jsonfields.h"
#include "io/textfile.h"

#include "model/catalog.h"
#include "model/genericmodel.h"
#include "model/hfconfig.h"
#include "model/modelfolder.h"
#include "model/modelhead.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace headroom {

namespace {

using nlohmann::json;
// Written files keep the order of the format's documentation: people read
// and edit them.
using ordered = nlohmann::ordered_json;
namespace fs = std::filesystem;

// The strict field reader every format here shares (io/jsonfields.h).
using Reader = jsonfields::Fields;
using jsonfields::childPath;
using jsonfields::pathError;
using jsonfields::show;
using jsonfields::underPath;

// Positions and sliding windows are token counts: bounded as a scenario's
// sequence length is (scenariofile.cpp kMaxCount).
constexpr std::uint64_t kMaxTokens = 1'000'000'000;

// ---------------------------------------------------------------------------
// ModelSpec <-> {"spec": {...}}

bool parseFamilyName(const std::string& s, Family& out)
{
    for (int i = 0; i < 64; ++i) {
        const auto family = static_cast<Family>(i);
        const std::string name = familyName(family);
        if (name == "?")
            return false;
        if (name == s) {
            out = family;
            return true;
        }
    }
    return false;
}

const char* normKindName(NormKind kind) { return kind == NormKind::LayerNorm ? "layernorm" : "rmsnorm"; }
bool parseNormKind(const std::string& s, NormKind& out)
{
    if (s == "rmsnorm")
        out = NormKind::RmsNorm;
    else if (s == "layernorm")
        out = NormKind::LayerNorm;
    else
        return false;
    return true;
}

// The vision tower (ModelSpec::vision), written only when there is one;
// Llama 4's tower adds its kind and projector sizes (Gemma 3's is written as before).
ordered visionToJson(const VisionTowerSpec& v)
{
    ordered out{{"layers", v.layers}, {"hidden", v.hidden}, {"intermediate", v.intermediate},
                {"channels", v.channels}, {"image_size", v.imageSize}, {"patch_size", v.patchSize},
                {"pooling_head", v.poolingHead}};
    if (v.kind == VisionTowerKind::Llama4) {
        out["kind"] = "llama4";
        out["projector_input"] = v.projectorInput;
        out["projector_output"] = v.projectorOutput;
        out["output_dim"] = v.outputDim;
    }
    return out;
}

void visionFromJson(const json& node, const std::string& path, std::optional<Error>& error, VisionTowerSpec& v)
{
    if (!node.is_object()) {
        if (!error)
            error = pathError(ErrorCode::InvalidArgument, path, "must be a JSON object, got " + show(node));
        return;
    }
    Reader r(node, path, error);
    r.allowOnly({"layers", "hidden", "intermediate", "channels", "image_size", "patch_size", "pooling_head", "kind",
                 "projector_input", "projector_output", "output_dim"});
    for (const char* key : {"layers", "hidden", "intermediate", "channels", "image_size", "patch_size"})
        r.require(key);
    std::string kind = "siglip";
    r.string("kind", kind, false);
    if (kind == "llama4") {
        v.kind = VisionTowerKind::Llama4;
        for (const char* key : {"projector_input", "projector_output", "output_dim"})
            r.require(key);
        r.integer("projector_input", 1, kMaxModelDimension, v.projectorInput);
        r.integer("projector_output", 1, kMaxModelDimension, v.projectorOutput);
        r.integer("output_dim", 1, kMaxModelDimension, v.outputDim);
    } else if (kind != "siglip" && !error) {
        error = pathError(ErrorCode::InvalidArgument, childPath(path, "kind"),
                          "must be \"siglip\" or \"llama4\", got \"" + kind + "\"");
    }
    r.integer("layers", 1, kMaxModelLayers, v.layers);
    r.integer("hidden", 1, kMaxModelDimension, v.hidden);
    r.integer("intermediate", 1, 100'000'000, v.intermediate);
    r.integer("channels", 1, kMaxModelDimension, v.channels);
    r.integer("image_size", 1, kMaxModelDimension, v.imageSize);
    r.integer("patch_size", 1, kMaxModelDimension, v.patchSize);
    r.boolean("pooling_head", v.poolingHead);
    if (!error && v.imageSize % v.patchSize != 0)
        error = pathError(ErrorCode::InvalidArgument, childPath(path, "patch_size"),
                          "must divide image_size (" + std::to_string(v.imageSize) + "), got " + std::to_string(v.patchSize));
}

ordered specToJson(const ModelSpec& spec)
{
    ordered out{
        {"id", spec.id},
        {"model_type", spec.modelType},
        {"hf_class", spec.hfClass},
        {"family", familyName(spec.family)},
        {"layers", spec.layers},
        {"hidden", spec.hidden},
        {"heads", spec.heads},
        {"kv_heads", spec.kvHeads},
        {"head_dim", spec.headDim},
        {"intermediate", spec.intermediate},
        {"vocab", spec.vocab},
        {"max_positions", spec.maxPositions},
        {"type_vocab", spec.typeVocab},
        {"norm", normKindName(spec.norm)},
        {"hidden_act", spec.hiddenAct},
        {"gated_mlp", spec.gatedMlp},
        {"tie_embeddings", spec.tieEmbeddings},
        {"qkv_bias", spec.qkvBias},
        {"attn_out_bias", spec.attnOutBias},
        {"mlp_bias", spec.mlpBias},
        {"learned_positions", spec.learnedPositions},
        {"parallel_residual", spec.parallelResidual},
        {"rotary_fraction", spec.rotaryFraction},
        {"qk_norm", spec.qkNorm},
        {"experts", spec.experts},
        {"experts_per_token", spec.expertsPerToken},
        {"dropout", spec.dropout},
        {"use_cache", spec.useCache},
        {"final_logit_softcap", spec.finalLogitSoftcap},
        {"sliding_window", spec.slidingWindow},
        {"sliding_period", spec.slidingPeriod},
        {"approximate", spec.approximate},
        {"encoder", spec.encoder},
        {"origin", spec.origin},
        {"checkpoint_parameters", spec.checkpointParameters},
        {"checkpoint_dtype", spec.checkpointDtype},
    };
    if (!spec.revision.empty())
        out["revision"] = spec.revision;
    if (spec.hasVision())
        out["vision"] = visionToJson(spec.vision);
    if (spec.qkL2Norm) // Llama 4 only
        out["qk_l2_norm"] = true;
    if (spec.hasSharedExpert()) { // Llama 4, DeepSeek-V3: written when there is one
        out["shared_experts"] = spec.sharedExperts;
        out["shared_expert_intermediate"] = spec.sharedExpertIntermediate;
    }
    if (spec.isMla()) { // DeepSeek-V3 only
        out["q_lora_rank"] = spec.qLoraRank;
        out["kv_lora_rank"] = spec.kvLoraRank;
        out["qk_rope_head_dim"] = spec.qkRopeHeadDim;
        out["v_head_dim"] = spec.vHeadDim;
    }
    if (spec.hasDenseLayers()) {
        out["dense_layers"] = spec.denseLayers;
        out["dense_intermediate"] = spec.denseIntermediate;
        if (!spec.denseLayerIds.empty()) // else the first dense_layers
            out["dense_layer_ids"] = spec.denseLayerIds;
    }
    return out;
}

Result<ModelSpec> specFromJson(const json& node, const std::string& path)
{
    std::optional<Error> error;
    if (!node.is_object())
        return pathError(ErrorCode::InvalidArgument, path, "must be a JSON object, got " + show(node));
    Reader r(node, path, error);
    r.allowOnly({"id", "model_type", "hf_class", "family", "layers", "hidden", "heads", "kv_heads", "head_dim",
                 "intermediate", "vocab", "max_positions", "type_vocab", "norm", "hidden_act", "gated_mlp",
                 "tie_embeddings", "qkv_bias", "attn_out_bias", "mlp_bias", "learned_positions", "parallel_residual",
                 "rotary_fraction", "qk_norm", "experts", "experts_per_token", "dropout", "use_cache", "final_logit_softcap", "sliding_window", "sliding_period", "approximate", "encoder",
                 "origin", "revision", "checkpoint_parameters", "checkpoint_dtype", "vision", "shared_experts",
                 "shared_expert_intermediate", "qk_l2_norm", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim",
                 "v_head_dim", "dense_layers", "dense_intermediate", "dense_layer_ids"});
    for (const char* key : {"family", "layers", "hidden", "heads", "intermediate", "vocab"})
        r.require(key);

    ModelSpec spec;
    spec.id = "custom";
    spec.origin = "spec";
    r.string("id", spec.id, false);
    r.string("model_type", spec.modelType);
    r.string("hf_class", spec.hfClass);
    r.enumeration("family", parseFamilyName, familyName, spec.family);
    // The bounds of every model reader (modelspec.h): a model imported from
    // a config.json must read back from the scenario it is saved in.
    // intermediate and vocab allow more, as files saved before did.
    r.integer("layers", 1, kMaxModelLayers, spec.layers);
    r.integer("hidden", 1, kMaxModelDimension, spec.hidden);
    r.integer("heads", 1, kMaxModelDimension, spec.heads);
    spec.kvHeads = spec.heads;
    r.integer("kv_heads", 1, kMaxModelDimension, spec.kvHeads);
    r.integer("head_dim", 1, kMaxModelDimension, spec.headDim);
    r.integer("intermediate", 1, 100'000'000, spec.intermediate);
    r.integer("vocab", 1, 100'000'000, spec.vocab);
    r.integer("max_positions", 0, kMaxTokens, spec.maxPositions);
    r.integer("type_vocab", 0, kMaxModelDimension, spec.typeVocab);
    r.enumeration("norm", parseNormKind, normKindName, spec.norm);
    r.string("hidden_act", spec.hiddenAct, false);
    r.boolean("gated_mlp", spec.gatedMlp);
    r.boolean("use_cache", spec.useCache);
    r.boolean("final_logit_softcap", spec.finalLogitSoftcap);
    r.integer("sliding_window", 0, kMaxTokens, spec.slidingWindow);
    r.integer("sliding_period", 0, kMaxModelLayers, spec.slidingPeriod);
    r.boolean("tie_embeddings", spec.tieEmbeddings);
    r.boolean("qkv_bias", spec.qkvBias);
    r.boolean("attn_out_bias", spec.attnOutBias);
    r.boolean("mlp_bias", spec.mlpBias);
    r.boolean("learned_positions", spec.learnedPositions);
    r.boolean("parallel_residual", spec.parallelResidual);
    r.number("rotary_fraction", 0.0, true, 1.0, false, spec.rotaryFraction);
    r.boolean("qk_norm", spec.qkNorm);
    r.integer("experts", 0, kMaxModelDimension, spec.experts);
    r.integer("experts_per_token", 0, kMaxModelDimension, spec.expertsPerToken);
    r.boolean("qk_l2_norm", spec.qkL2Norm);
    r.integer("shared_experts", 0, kMaxModelDimension, spec.sharedExperts);
    r.integer("shared_expert_intermediate", 0, kMaxModelDimension, spec.sharedExpertIntermediate);
    r.integer("q_lora_rank", 0, kMaxModelDimension, spec.qLoraRank);
    r.integer("kv_lora_rank", 0, kMaxModelDimension, spec.kvLoraRank);
    r.integer("qk_rope_head_dim", 0, kMaxModelDimension, spec.qkRopeHeadDim);
    r.integer("v_head_dim", 0, kMaxModelDimension, spec.vHeadDim);
    r.integer("dense_layers", 0, kMaxModelLayers, spec.denseLayers);
    r.integer("dense_intermediate", 0, kMaxModelDimension, spec.denseIntermediate);
    // Which layers are dense, ascending (ModelSpec::denseLayerIds); absent: the first dense_layers.
    if (const json* ids = r.find("dense_layer_ids"); ids && !r.failed()) {
        const std::string where = childPath(path, "dense_layer_ids");
        if (!ids->is_array()) {
            r.fail(ErrorCode::InvalidArgument, where, "must be an array of layer indices, got " + ids->dump());
        } else {
            for (std::size_t k = 0; k < ids->size() && !r.failed(); ++k) {
                const json& id = (*ids)[k];
                if (!id.is_number_unsigned() || id.get<std::uint64_t>() >= kMaxModelLayers ||
                    (k > 0 && id.get<std::uint64_t>() <= spec.denseLayerIds.back()))
                    r.fail(ErrorCode::InvalidArgument, where + "[" + std::to_string(k) + "]",
                           "must be a layer index above the one before it, got " + id.dump());
                else
                    spec.denseLayerIds.push_back(id.get<std::uint64_t>());
            }
        }
    }
    // [0, 1] as config.json's dropouts (hfconfig.cpp probability); p = 1
    // drops everything, as torch.nn.functional.dropout allows.
    r.number("dropout", 0.0, false, 1.0, false, spec.dropout);
    r.boolean("approximate", spec.approximate);
    r.boolean("encoder", spec.encoder);
    r.string("origin", spec.origin);
    // A branch, tag or commit hash (the Hub's REGEX_COMMIT_HASH is 40 hex
    // digits; a branch name is at most a few hundred characters).
    r.boundedString("revision", 256, spec.revision);
    r.integer("checkpoint_parameters", 0, 1'000'000'000'000'000ull, spec.checkpointParameters);
    r.string("checkpoint_dtype", spec.checkpointDtype);
    if (const auto vision = node.find("vision"); vision != node.end() && !error)
        visionFromJson(*vision, childPath(path, "vision"), error, spec.vision);
    if (error)
        return *error;

    // Consistency the parameter table relies on.
    if (!r.has("head_dim")) {
        if (spec.hidden % spec.heads != 0)
            return pathError(ErrorCode::InvalidArgument, childPath(path, "head_dim"),
                             "missing, and heads (" + std::to_string(spec.heads) + ") does not divide hidden ("
                                 + std::to_string(spec.hidden) + ")");
        spec.headDim = spec.hidden / spec.heads;
    }
    // Grouped-query attention shares each KV head among heads / kv_heads query
    // heads; transformers refuses other counts, and so does hfconfig.cpp.
    if (spec.kvHeads > spec.heads || spec.heads % spec.kvHeads != 0)
        return pathError(ErrorCode::InvalidArgument, childPath(path, "kv_heads"),
                         "must divide heads (" + std::to_string(spec.heads) + "), got " + std::to_string(spec.kvHeads));
    if (spec.experts == 0 && spec.expertsPerToken != 0)
        return pathError(ErrorCode::InvalidArgument, childPath(path, "experts_per_token"),
                         "must be 0 for a dense model (experts is 0), got " + std::to_string(spec.expertsPerToken));
    if (spec.experts > 0 && (spec.expertsPerToken == 0 || spec.expertsPerToken > spec.experts))
        return pathError(ErrorCode::InvalidArgument, childPath(path, "experts_per_token"),
                         "must be between 1 and experts (" + std::to_string(spec.experts) + "), got "
                             + std::to_string(spec.expertsPerToken));
    if ((spec.sharedExperts == 0) != (spec.sharedExpertIntermediate == 0))
        return pathError(ErrorCode::InvalidArgument, childPath(path, "shared_expert_intermediate"),
                         "must be positive exactly when shared_experts is, got "
                             + std::to_string(spec.sharedExpertIntermediate));
    if ((spec.denseLayers == 0) != (spec.denseIntermediate == 0))
        return pathError(ErrorCode::InvalidArgument, childPath(path, "dense_intermediate"),
                         "must be positive exactly when dense_layers is, got " + std::to_string(spec.denseIntermediate));
    // Multi-head latent attention is DeepSeek-V3's layout, and its layout needs it.
    if ((spec.family == Family::DeepseekV3) != spec.isMla())
        return pathError(ErrorCode::InvalidArgument, childPath(path, "kv_lora_rank"),
                         spec.isMla() ? "is only read for the deepseek_v3 family" : "must be positive for the deepseek_v3 family");
    if (spec.isMla() && (spec.qkRopeHeadDim == 0 || spec.qkRopeHeadDim >= spec.headDim || spec.vHeadDim == 0))
        return pathError(ErrorCode::InvalidArgument, childPath(path, "qk_rope_head_dim"),
                         "must be positive and below head_dim (" + std::to_string(spec.headDim)
                             + ", the query/key head), with v_head_dim positive; got "
                             + std::to_string(spec.qkRopeHeadDim) + " and " + std::to_string(spec.vHeadDim));
    if (spec.family == Family::DeepseekV3 && !spec.isMoe())
        return pathError(ErrorCode::InvalidArgument, childPath(path, "experts"),
                         "must be positive for the deepseek_v3 family");
    if (spec.denseLayers > 0 && spec.family != Family::DeepseekV3 && spec.family != Family::Qwen3Moe &&
        spec.family != Family::Llama4)
        return pathError(ErrorCode::InvalidArgument, childPath(path, "dense_layers"),
                         "is only read for the deepseek_v3, qwen3_moe and llama4 families");
    if (!spec.denseLayerIds.empty() &&
        (spec.denseLayerIds.size() != spec.denseLayers || spec.denseLayerIds.back() >= spec.layers))
        return pathError(ErrorCode::InvalidArgument, childPath(path, "dense_layer_ids"),
                         "must list dense_layers (" + std::to_string(spec.denseLayers) + ") indices below layers (" +
                             std::to_string(spec.layers) + "), got " + std::to_string(spec.denseLayerIds.size()));

    return spec;
}

bool sameSpec(const ModelSpec& a, const ModelSpec& b)
{
    return a.id == b.id && a.modelType == b.modelType && a.hfClass == b.hfClass && a.family == b.family
        && a.layers == b.layers && a.hidden == b.hidden && a.heads == b.heads && a.kvHeads == b.kvHeads
        && a.headDim == b.headDim && a.intermediate == b.intermediate && a.vocab == b.vocab
        && a.maxPositions == b.maxPositions && a.typeVocab == b.typeVocab && a.norm == b.norm
        && a.hiddenAct == b.hiddenAct && a.gatedMlp == b.gatedMlp && a.tieEmbeddings == b.tieEmbeddings
        && a.useCache == b.useCache && a.finalLogitSoftcap == b.finalLogitSoftcap
        && a.slidingWindow == b.slidingWindow && a.slidingPeriod == b.slidingPeriod
        && a.qkvBias == b.qkvBias && a.attnOutBias == b.attnOutBias && a.mlpBias == b.mlpBias
        && a.learnedPositions == b.learnedPositions && a.parallelResidual == b.parallelResidual
        && a.rotaryFraction == b.rotaryFraction
        && a.qkNorm == b.qkNorm && a.vision.layers == b.vision.layers && a.vision.hidden == b.vision.hidden
        && a.vision.intermediate == b.vision.intermediate && a.vision.channels == b.vision.channels
        && a.vision.imageSize == b.vision.imageSize && a.vision.patchSize == b.vision.patchSize
        && a.vision.poolingHead == b.vision.poolingHead && a.vision.kind == b.vision.kind
        && a.vision.projectorInput == b.vision.projectorInput && a.vision.projectorOutput == b.vision.projectorOutput
        && a.vision.outputDim == b.vision.outputDim && a.sharedExperts == b.sharedExperts
        && a.sharedExpertIntermediate == b.sharedExpertIntermediate && a.qkL2Norm == b.qkL2Norm
        && a.qLoraRank == b.qLoraRank && a.kvLoraRank == b.kvLoraRank && a.qkRopeHeadDim == b.qkRopeHeadDim
        && a.vHeadDim == b.vHeadDim && a.denseLayers == b.denseLayers && a.denseIntermediate == b.denseIntermediate && a.denseLayerIds == b.denseLayerIds
        && a.experts == b.experts && a.expertsPerToken == b.expertsPerToken && a.dropout == b.dropout
        && a.head == b.head && a.numLabels == b.numLabels
        && a.approximate == b.approximate && a.encoder == b.encoder && a.origin == b.origin
        && a.checkpointParameters == b.checkpointParameters && a.checkpointDtype == b.checkpointDtype
        && a.revision == b.revision;
}


// ---------------------------------------------------------------------------
// The "model" node

Result<ModelSpec> modelSourceFromJson(const json& node, const std::string& path, const std::string& kind,
                                      const fs::path& baseDir);

// The model node's "head" ("language-model" | "sequence-classification") and
// "num_labels" (the classifier's outputs; 2 when absent, as transformers'
// PretrainedConfig). Without "head" the source decides (a config.json's
// architectures); "num_labels" needs the sequence-classification head.
std::optional<Error> applyHeadFields(Reader& r, ModelSpec& spec)
{
    std::optional<Error>& error = r.errorSlot();
    ModelHead head = spec.head;
    r.enumeration("head", parseModelHead, modelHeadName, head);
    std::uint64_t labels = head == spec.head ? spec.numLabels : 0;
    if (head == ModelHead::SequenceClassification && labels == 0)
        labels = 2;
    r.integer("num_labels", 1, kMaxLabels, labels);
    if (error)
        return error;
    if (r.has("num_labels") && head != ModelHead::SequenceClassification)
        return pathError(ErrorCode::InvalidArgument, r.pathOf("num_labels"),
                         "only the sequence-classification head has labels; add \"head\": \"sequence-classification\"");
    if (head == ModelHead::LanguageModel)
        labels = 0;
    if (auto headError = setModelHead(spec, head, labels))
        return pathError(headError->code, r.pathOf("head"), headError->detail);
    return std::nullopt;
}

Result<ModelSpec> modelSourceFromJson(const json& node, const std::string& path, const std::string& kind,
                                      const fs::path& baseDir)
{
    const std::string kindPath = childPath(path, kind);
    std::optional<Error> error;
    Reader r(node, path, error);

    if (kind == "preset") {
        std::string id;
        r.string("preset", id, false);
        if (error)
            return *error;
        auto spec = presetModel(id);
        if (!spec)
            return underPath(kindPath, spec.error());
        return std::move(spec).value();
    }
    if (kind == "config") {
        std::string id = "custom";
        r.string("id", id, false);
        if (error)
            return *error;
        const json& config = node.at("config");
        if (!config.is_object())
            return pathError(ErrorCode::InvalidArgument, kindPath,
                             "must be the JSON object of a config.json, got " + show(config));
        auto spec = modelSpecFromHfConfig(config, id);
        if (!spec)
            return underPath(kindPath, spec.error());
        return std::move(spec).value();
    }
    if (kind == "size") {
        // "13B" as the CLI accepts it, or a plain parameter count (13e9).
        const json& size = node.at("size");
        if (!size.is_string() && !size.is_number())
            return pathError(ErrorCode::InvalidArgument, kindPath,
                             "must be a size such as \"13B\" or a parameter count, got " + show(size));
        auto spec = size.is_string() ? genericModelBySize(size.get<std::string>())
                                     : genericModelByParameters(size.get<double>());
        if (!spec)
            return underPath(kindPath, spec.error());
        return std::move(spec).value();
    }
    if (kind == "model_dir") {
        std::string dir;
        r.string("model_dir", dir, false);
        if (error)
            return *error;
        // A relative folder is relative to the scenario file, so a project
        // folder holding both can move as a whole.
        fs::path folder = pathFromUtf8(dir);
        if (folder.is_relative() && !baseDir.empty())
            folder = baseDir / folder;
        auto info = importModelFolder(utf8FromPath(folder));
        if (!info)
            return underPath(kindPath, info.error());
        return std::move(info).value().spec;
    }
    return specFromJson(node.at("spec"), kindPath);
}

} // namespace

Result<ModelSpec> modelNodeFromJson(const json& node, const std::string& path, const fs::path& baseDir)
{
    if (!node.is_object())
        return pathError(ErrorCode::InvalidArgument, path,
                         "must be a JSON object with one of preset, config, size, model_dir, spec; got " + show(node));
    std::vector<std::string> kinds;
    for (const char* key : {"preset", "config", "size", "model_dir", "spec"})
        if (node.contains(key))
            kinds.emplace_back(key);
    if (kinds.empty())
        return pathError(ErrorCode::MissingField, path, "needs one of preset, config, size, model_dir, spec");
    if (kinds.size() > 1)
        return pathError(ErrorCode::InvalidArgument, path,
                         "give only one of preset, config, size, model_dir, spec; got both " + kinds[0] + " and "
                             + kinds[1]);
    const std::string& kind = kinds.front();

    std::optional<Error> error;
    Reader r(node, path, error);
    // "head" and "num_labels" choose the task head of any model source.
    if (kind == "config")
        r.allowOnly({"config", "id", "head", "num_labels"});  // "id" names a model read from a config.json
    else
        r.allowOnly({kind.c_str(), "head", "num_labels"});
    if (error)
        return *error;
    auto spec = modelSourceFromJson(node, path, kind, baseDir);
    if (!spec)
        return spec;
    if (auto headError = applyHeadFields(r, spec.value()))
        return *headError;
    return spec;
}

Result<ModelSpec> modelFromJson(const nlohmann::json& modelNode)
{
    return jsonfields::guarded<ModelSpec>("model", [&] { return modelNodeFromJson(modelNode, "model", fs::path()); });
}

ordered modelToJson(const ModelSpec& spec)
{
    ordered model;
    bool asPreset = false;
    // A preset is written by name only while it is exactly the catalog entry;
    // a preset the user edited is written out in full, or the edit is lost.
    if (spec.origin == "catalog") {
        try {
            auto preset = presetModel(spec.id);
            // A preset with a classifier head is the preset plus "head" and "num_labels".
            asPreset = preset.ok() && !setModelHead(preset.value(), spec.head, spec.numLabels)
                && sameSpec(preset.value(), spec);
        } catch (const std::exception&) {
            asPreset = false;
        }
    }
    if (asPreset)
        model = ordered{{"preset", spec.id}};
    else
        model = ordered{{"spec", specToJson(spec)}};
    // The default head is left out, so files without a classifier read as before.
    if (spec.head != ModelHead::LanguageModel) {
        model["head"] = modelHeadName(spec.head);
        model["num_labels"] = spec.numLabels;
    }
    return model;
}

} // namespace headroom
