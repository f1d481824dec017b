// SPDX-License-Identifier: GPL-3.0-or-later
// The order of reads follows what transformers itself reads for a model
// (config.json, then model.safetensors.index.json, else model.safetensors),
// and the cache rules follow huggingface_hub's hf_hub_download: a branch or
// tag is asked of the Hub (it may have moved), a commit hash is answered by
// the cache when it can be, and when the Hub cannot be reached the files
// cached for the revision are used.
#include "hub/hubclient.h"

#include "hub/hubcache.h"
#include "hub/hubresponse.h"
#include "model/hfconfig.h"
#include "model/safetensors.h"

#include <filesystem>
#include <optional>

namespace headroom {

namespace {

constexpr const char* kConfigFile = "config.json";
constexpr const char* kIndexFile = "model.safetensors.index.json";
constexpr const char* kSingleFile = "model.safetensors";

enum class Presence {
    Present,
    Absent,  // the Hub said 404, or the cache holds its .no_exist mark
    Unknown, // offline, and the cache does not say
};

struct JsonFile {
    Presence presence = Presence::Unknown;
    std::string text;
};

struct ShardHeader {
    Presence presence = Presence::Unknown;
    SafetensorsHeader header;
};

Error withPrefix(const std::string& prefix, const Error& e) { return makeError(e.code, prefix + e.detail); }

class HubImport {
public:
    HubImport(const HubModelRef& ref, const HubSettings& settings, HttpTransport* transport,
             const HubFetchControl& control)
        : m_ref(ref)
        , m_settings(settings)
        , m_transport(transport)
        , m_control(control)
        , m_cache(settings.cacheDir, ref.repo)
        , m_useNetwork(transport && !settings.offline)
    {
        m_info.ref = ref;
    }

    Result<HubModelInfo> run();

private:
    Result<JsonFile> jsonFile(const std::string& file, bool required);
    Result<JsonFile> cachedJson(const std::string& file, bool required, const Error* networkError);
    Result<JsonFile> fallBackToCache(const std::string& file, bool required, const Error& error);
    Result<ShardHeader> shardHeader(const std::string& shard, bool optional);
    Result<ShardHeader> fetchShardHeader(const std::string& shard, bool optional);
    Result<HttpResponse> get(const std::string& file, std::optional<std::uint64_t> rangeEnd, std::uint64_t maxBytes);

    HubRequestContext context(const std::string& file) const
    {
        return {m_settings.endpoint,   m_ref.repo, m_ref.revision, file, !m_settings.token.empty(),
                m_settings.tokenSource};
    }
    std::string where(const std::string& file) const { return m_ref.repo + ": " + file; }
    bool cancelled() const { return m_control.cancel && m_control.cancel->load(); }
    void progress(const std::string& file)
    {
        if (m_control.onProgress)
            m_control.onProgress({file, m_done, m_total});
    }
    void keepNote(const std::optional<Error>& error)
    {
        if (error)
            m_info.notes.push_back(error->detail);
    }
    Error offline(const std::string& what) const
    {
        return makeError(ErrorCode::HubOffline, "HF_HUB_OFFLINE is set and " + what +
                                                    " is not in the Hugging Face cache " + m_settings.cacheDir);
    }

    const HubModelRef& m_ref;
    const HubSettings& m_settings;
    HttpTransport* m_transport;
    const HubFetchControl& m_control;
    HubCache m_cache;
    bool m_useNetwork;
    std::string m_commit; // known once config.json is read (or given as the revision)
    HubModelInfo m_info;
    std::size_t m_done = 0;
    std::size_t m_total = 2; // config.json and the index, until the index names the shards
};

Result<HttpResponse> HubImport::get(const std::string& file, std::optional<std::uint64_t> rangeEnd,
                                   std::uint64_t maxBytes)
{
    HttpRequest request;
    // By commit once it is known: every file then comes from the same commit,
    // even if the branch moves while we read.
    request.url = hubResolveUrl(m_settings.endpoint, m_ref.repo, m_commit.empty() ? m_ref.revision : m_commit, file);
    if (!m_settings.token.empty())
        request.headers.push_back("Authorization: Bearer " + m_settings.token);
    if (rangeEnd)
        request.range = std::make_pair(std::uint64_t{0}, *rangeEnd - 1);
    request.maxBodyBytes = maxBytes;
    request.stopAtLimit = rangeEnd.has_value();
    request.timeoutSeconds = m_settings.timeoutSeconds;
    request.totalTimeoutSeconds = m_settings.totalTimeoutSeconds;
    request.maxRedirects = m_settings.maxRedirects;
    TransferControl transfer;
    transfer.cancel = m_control.cancel;
    return m_transport->get(request, transfer);
}

Result<JsonFile> HubImport::cachedJson(const std::string& file, bool required, const Error* networkError)
{
    if (!m_commit.empty()) {
        if (auto path = m_cache.snapshotFile(m_commit, file)) {
            Result<std::string> text = readFileUpTo(*path, m_settings.maxJsonBytes);
            if (!text)
                return text.error();
            return JsonFile{Presence::Present, std::move(text).value()};
        }
        if (m_cache.knownMissing(m_commit, file))
            return JsonFile{Presence::Absent, {}};
    }
    if (networkError)
        return *networkError;
    if (m_commit.empty())
        return offline(m_ref.repo + " at revision '" + m_ref.revision + "'");
    if (required)
        return offline(file + " of " + m_ref.repo);
    return JsonFile{};
}

Result<JsonFile> HubImport::fallBackToCache(const std::string& file, bool required, const Error& error)
{
    // The Hub cannot be reached, or is down (5xx, 429): the files cached for
    // the revision, as hf_hub_download falls back to them. Not for 401/403/404:
    // those are answers about the model, and the user should see them.
    const bool unreachable = error.code == ErrorCode::NetworkError || error.code == ErrorCode::NetworkTimeout;
    if (!unreachable || !m_commit.empty())
        return error;
    const std::optional<std::string> commit = m_cache.commitOf(m_ref.revision);
    if (!commit)
        return error;
    m_commit = *commit;
    Result<JsonFile> cached = cachedJson(file, required, &error);
    if (!cached || cached->presence != Presence::Present) {
        m_commit.clear();
        return error;
    }
    m_useNetwork = false;
    m_info.notes.push_back("the Hub could not be reached (" + error.detail + "); the cached files of commit " + m_commit
                           + " are used");
    return cached;
}

Result<JsonFile> HubImport::jsonFile(const std::string& file, bool required)
{
    if (!m_useNetwork)
        return cachedJson(file, required, nullptr);
    if (!m_commit.empty()) {
        // A commit never changes: what the cache holds for it is the answer.
        Result<JsonFile> cached = cachedJson(file, false, nullptr);
        if (!cached || cached->presence != Presence::Unknown)
            return cached;
    }
    Result<HttpResponse> response = get(file, std::nullopt, m_settings.maxJsonBytes);
    if (!response)
        return fallBackToCache(file, required, response.error());
    if (!required && isMissingEntry(*response)) {
        if (!m_commit.empty())
            keepNote(m_cache.markMissing(m_commit, file));
        return JsonFile{Presence::Absent, {}};
    }
    if (auto error = hubStatusError(*response, context(file)))
        return fallBackToCache(file, required, *error);
    const std::optional<std::string> commit = repoCommit(*response);
    if (!commit)
        return makeError(ErrorCode::NetworkError,
                         where(file) + ": the answer of " + m_settings.endpoint +
                             " has no X-Repo-Commit header with a commit hash: is HF_ENDPOINT a Hugging Face Hub?");
    if (m_commit.empty()) {
        m_commit = *commit;
        keepNote(m_cache.storeRef(m_ref.revision, m_commit));
    }
    const std::optional<std::string> etag = fileEtag(*response);
    if (!etag)
        return makeError(ErrorCode::NetworkError, where(file) + ": the answer of " + m_settings.endpoint +
                                                      " has no usable ETag header: is HF_ENDPOINT a Hugging Face Hub?");
    keepNote(m_cache.storeFile(m_commit, file, *etag, response->body));
    m_info.fetched.push_back(file);
    return JsonFile{Presence::Present, std::move(response->body)};
}

Result<ShardHeader> HubImport::shardHeader(const std::string& shard, bool optional)
{
    if (auto path = m_cache.snapshotFile(m_commit, shard)) { // the user has the weights
        Result<SafetensorsHeader> header = readSafetensorsHeader(path->string());
        if (!header)
            return header.error();
        return ShardHeader{Presence::Present, std::move(header).value()};
    }
    if (auto path = m_cache.cachedHeader(m_commit, shard)) {
        Result<std::string> bytes = readFileUpTo(*path, m_settings.maxJsonBytes + 8);
        // Checked when it was fetched, so the data it describes is not here to check against.
        Result<SafetensorsHeader> header =
            bytes ? parseSafetensorsPrefix(bytes.value(), std::nullopt) : Result<SafetensorsHeader>(bytes.error());
        if (header)
            return ShardHeader{Presence::Present, std::move(header).value()};
        if (!m_useNetwork) // a damaged cache entry is fetched again when it can be
            return withPrefix(path->string() + ": ", header.error());
    }
    if (m_cache.knownMissing(m_commit, shard))
        return ShardHeader{Presence::Absent, {}};
    if (!m_useNetwork) {
        if (optional)
            return ShardHeader{};
        return offline("the safetensors header of " + shard + " of " + m_ref.repo);
    }
    return fetchShardHeader(shard, optional);
}

Result<ShardHeader> HubImport::fetchShardHeader(const std::string& shard, bool optional)
{
    const std::string prefix = where(shard) + ": ";
    // One ranged answer: its status checked, its body starting at byte 0.
    const auto ranged = [&](std::uint64_t end) -> Result<HttpResponse> {
        Result<HttpResponse> response = get(shard, end, end);
        if (!response)
            return response.error();
        if (optional && isMissingEntry(*response))
            return *response;
        if (auto error = hubStatusError(*response, context(shard)))
            return *error;
        if (response->status() == 206) {
            const auto range = parseContentRange(response->final().header("content-range").value_or(""));
            if (!range || range->first != 0)
                return makeError(ErrorCode::NetworkError,
                                 prefix + "the answer to a range request from byte 0 has no Content-Range from byte 0");
        } else if (response->status() != 200) {
            return makeError(ErrorCode::NetworkError, prefix + "HTTP " + std::to_string(response->status()) +
                                                          " is not an answer to a range request");
        }
        return response;
    };

    Result<HttpResponse> first = ranged(kFirstHeaderRange);
    if (!first)
        return first.error();
    if (isMissingEntry(*first)) {
        keepNote(m_cache.markMissing(m_commit, shard));
        return ShardHeader{Presence::Absent, {}};
    }
    const std::optional<std::uint64_t> fileSize = rangedFileSize(*first);
    const Result<std::uint64_t> end = safetensorsHeaderEnd(first->body, fileSize);
    if (!end)
        return withPrefix(prefix, end.error());
    if (*end - 8 > m_settings.maxJsonBytes)
        return makeError(ErrorCode::ResponseTooLarge, prefix + "the safetensors header is " + std::to_string(*end - 8) +
                                                          " bytes, over the limit of " +
                                                          std::to_string(m_settings.maxJsonBytes));
    std::string bytes = std::move(first->body);
    if (bytes.size() < *end) { // a long header: ask for all of it
        Result<HttpResponse> second = ranged(*end);
        if (!second)
            return second.error();
        if (isMissingEntry(*second))
            return makeError(ErrorCode::HubNotFound, prefix + "the file went away between two requests");
        bytes = std::move(second->body);
    }
    if (bytes.size() < *end)
        return makeError(ErrorCode::MalformedSafetensors, prefix + "the answer ended after " +
                                                              std::to_string(bytes.size()) + " of the header's " +
                                                              std::to_string(*end) + " bytes");
    bytes.resize(static_cast<std::size_t>(*end));
    Result<SafetensorsHeader> header = parseSafetensorsPrefix(bytes, fileSize);
    if (!header)
        return withPrefix(prefix, header.error());
    keepNote(m_cache.storeHeader(m_commit, shard, bytes));
    m_info.fetched.push_back(shard + " (header)");
    return ShardHeader{Presence::Present, std::move(header).value()};
}

Result<HubModelInfo> HubImport::run()
{
    if (!m_transport && !m_settings.offline)
        return makeError(ErrorCode::HubUnavailable,
                         "this build of Headroom has no Hugging Face Hub access (built without libcurl): set "
                         "HF_HUB_OFFLINE=1 to use the files already in the Hugging Face cache, or give a config.json "
                         "or a model folder");
    if (isCommitHash(m_ref.revision) || !m_useNetwork)
        m_commit = m_cache.commitOf(m_ref.revision).value_or("");

    if (cancelled())
        return makeError(ErrorCode::Cancelled, "cancelled");
    progress(kConfigFile);
    Result<JsonFile> config = jsonFile(kConfigFile, true);
    if (!config)
        return config.error();
    Result<ModelSpec> spec = modelSpecFromHfConfigText(config->text, m_ref.repo);
    if (!spec)
        return withPrefix(m_ref.repo + ": ", spec.error());
    m_info.model.spec = std::move(spec).value();
    m_info.model.spec.origin = "hub";
    ++m_done;

    if (cancelled())
        return makeError(ErrorCode::Cancelled, "cancelled");
    progress(kIndexFile);
    Result<JsonFile> index = jsonFile(kIndexFile, false);
    if (!index)
        return index.error();
    std::vector<std::string> shards{kSingleFile};
    const bool sharded = index->presence == Presence::Present;
    if (sharded) {
        Result<std::vector<std::string>> listed = shardsFromIndex(index->text, where(kIndexFile), kMaxHubShards);
        if (!listed)
            return listed.error();
        shards = std::move(listed).value();
    }
    ++m_done;
    m_total = m_done + shards.size();

    bool allRead = true;
    for (const std::string& shard : shards) {
        if (cancelled())
            return makeError(ErrorCode::Cancelled, "cancelled");
        progress(shard);
        // Listed in the index: it must be there. model.safetensors alone may not be.
        Result<ShardHeader> header = shardHeader(shard, !sharded);
        if (!header)
            return header.error();
        if (header->presence == Presence::Present)
            addStoredShard(m_info.model, header->header);
        else if (header->presence == Presence::Absent)
            m_info.notes.push_back(m_ref.repo + " has no safetensors weights: the parameter count comes from "
                                                "config.json alone");
        else
            m_info.notes.push_back("HF_HUB_OFFLINE is set and the safetensors headers of " + m_ref.repo +
                                   " are not in the cache: the parameter count comes from config.json alone");
        allRead = allRead && header->presence == Presence::Present;
        ++m_done;
    }
    if (auto error = finishStoredCounts(m_info.model, "the shards of " + m_ref.repo))
        return *error;
    m_info.countsKnown = allRead;
    m_info.commit = m_commit;
    m_info.model.spec.revision = m_commit.empty() ? m_ref.revision : m_commit;
    progress("");
    return std::move(m_info);
}

} // namespace

std::string redacted(std::string text, const std::string& secret)
{
    if (secret.empty())
        return text;
    for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at))
        text.replace(at, secret.size(), "[token]");
    return text;
}

Result<HubModelInfo> fetchHubModel(const HubModelRef& ref, const HubSettings& settings, HttpTransport* transport,
                                   const HubFetchControl& control)
{
    Result<HubModelInfo> result = [&]() -> Result<HubModelInfo> {
        try {
            return HubImport(ref, settings, transport, control).run();
        } catch (const std::exception& e) { // bad_alloc, a file system exception: never thrown onwards
            return makeError(ErrorCode::IoError, ref.repo + ": " + e.what());
        }
    }();
    // Nothing below builds text from the token, but a server may echo what
    // it was sent: no detail or note leaves with it.
    if (!result)
        return makeError(result.error().code, redacted(result.error().detail, settings.token));
    for (std::string& note : result.value().notes)
        note = redacted(std::move(note), settings.token);
    return result;
}

Result<HubModelInfo> importHubModel(std::string_view id, const HubFetchControl& control)
{
    Result<HubModelRef> ref = parseHubModelId(id);
    if (!ref)
        return ref.error();
    const HubSettings settings = hubSettingsFromEnvironment();
    const std::unique_ptr<HttpTransport> transport = makeDefaultTransport();
    return fetchHubModel(ref.value(), settings, transport.get(), control);
}

} // namespace headroom
