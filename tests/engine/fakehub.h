// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A Hugging Face Hub on 127.0.0.1 for the tests (no network in CI): a
// listening socket on an ephemeral port, one thread per connection, HTTP/1.1
// with "Connection: close". It answers as the Hub does (huggingface_hub's
// tests and file_download.py describe the answers):
//   GET /ORG/NAME/resolve/REVISION/FILE
//     a small file: 200, X-Repo-Commit, ETag "<git sha1>";
//     an LFS file (the shards): 302 to the CDN, with X-Repo-Commit,
//       X-Linked-Etag "<sha256>" and X-Linked-Size; the CDN is another host
//       name for the same server ("localhost"), so a client that carries the
//       Authorization header over is seen doing it;
//     a missing file: 404 X-Error-Code EntryNotFound (with X-Repo-Commit);
//     an unknown repository: 401 X-Error-Code RepoNotFound (the Hub's answer
//       without a token), an unknown revision: 404 RevisionNotFound.
//   GET /cdn/<sha256>: the file's bytes, honouring "Range: bytes=a-b" (206).
// Routes set by a test answer first (gated repositories, loops, slow or huge
// answers). Every request is logged, and the bytes sent per path counted, so
// a test can show that no weights were downloaded.
// Header-only: tests/engine/test_hub.cpp and tests/cli/test_cli_hub.cpp use it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fakehub {

struct Request {
    std::string method;                         // GET, or HEAD (huggingface_hub asks for metadata so)
    std::string path;                           // as sent, percent-encoded
    std::map<std::string, std::string> headers; // names lower-cased
    std::string header(const std::string& name) const
    {
        const auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    }
};

struct Response {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    // Zero bytes after `body` up to this size (a multi-gigabyte shard
    // without the memory): 0 means the body alone.
    std::uint64_t size = 0;
    int delayMs = 0; // wait before answering (a slow Hub)
    std::uint64_t totalSize() const { return std::max<std::uint64_t>(size, body.size()); }
};

using Handler = std::function<Response(const Request&)>;

// One file of a repository.
struct RepoFile {
    std::string bytes;        // the start of the file (all of it, unless size is larger)
    std::uint64_t size = 0;   // the whole file's size; 0: bytes.size()
    bool lfs = false;         // served through the CDN, as safetensors shards are
    bool ignoreRange = false; // a CDN that answers 200 with the whole file to a Range
    std::string etag;         // git sha1 or LFS sha256: any stable hex text
    std::uint64_t totalSize() const { return std::max<std::uint64_t>(size, bytes.size()); }
};

struct Repo {
    std::string commit; // 40 hex digits
    std::map<std::string, RepoFile> files;
};

class Server {
public:
    Server()
    {
        m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0; // ephemeral: tests run in parallel
        if (::bind(m_listen, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(m_listen, 64) != 0)
            return;
        socklen_t length = sizeof address;
        ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&address), &length);
        m_port = ntohs(address.sin_port);
        m_acceptor = std::thread([this] { acceptLoop(); });
    }

    ~Server() { stop(); }
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Closes the port (later connections are refused) and waits for every answer.
    void stop()
    {
        if (m_stopping.exchange(true))
            return;
        ::shutdown(m_listen, SHUT_RDWR);
        ::close(m_listen);
        if (m_acceptor.joinable())
            m_acceptor.join();
        std::vector<std::thread> workers;
        {
            std::lock_guard lock(m_mutex);
            workers.swap(m_workers);
        }
        for (std::thread& worker : workers)
            worker.join();
    }

    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    std::string cdnUrl() const { return "http://localhost:" + std::to_string(m_port) + "/cdn/"; }

    void addRepo(const std::string& name, Repo repo)
    {
        std::lock_guard lock(m_mutex);
        m_repos[name] = std::move(repo);
    }
    // Exact path: answers before the repositories do.
    void route(const std::string& path, Handler handler)
    {
        std::lock_guard lock(m_mutex);
        m_routes[path] = std::move(handler);
    }

    std::vector<Request> requests() const
    {
        std::lock_guard lock(m_mutex);
        return m_log;
    }
    std::size_t requestCount() const { return requests().size(); }
    // Body bytes written to the socket for paths starting with `prefix`.
    std::uint64_t bytesSent(const std::string& prefix) const
    {
        std::lock_guard lock(m_mutex);
        std::uint64_t total = 0;
        for (const auto& [path, bytes] : m_sent)
            if (path.rfind(prefix, 0) == 0)
                total += bytes;
        return total;
    }

private:
    void acceptLoop()
    {
        while (!m_stopping) {
            const int client = ::accept(m_listen, nullptr, nullptr);
            if (client < 0)
                return; // closed by stop()
            std::lock_guard lock(m_mutex);
            m_workers.emplace_back([this, client] {
                serve(client);
                ::close(client);
            });
        }
    }

    static std::string lowered(std::string text)
    {
        std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return text;
    }

    static std::optional<Request> readRequest(int client)
    {
        std::string text;
        char buffer[4096];
        while (text.find("\r\n\r\n") == std::string::npos && text.size() < 65536) {
            const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
            if (n <= 0)
                return std::nullopt;
            text.append(buffer, std::size_t(n));
        }
        Request request;
        const std::size_t lineEnd = text.find("\r\n");
        const std::string line = text.substr(0, lineEnd);
        const std::size_t first = line.find(' ');
        const std::size_t second = line.find(' ', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            return std::nullopt;
        request.method = line.substr(0, first);
        request.path = line.substr(first + 1, second - first - 1);
        std::size_t at = lineEnd + 2;
        while (at < text.size()) {
            const std::size_t end = text.find("\r\n", at);
            if (end == std::string::npos || end == at)
                break;
            const std::string header = text.substr(at, end - at);
            const std::size_t colon = header.find(':');
            if (colon != std::string::npos) {
                std::string value = header.substr(colon + 1);
                value.erase(0, value.find_first_not_of(' '));
                request.headers[lowered(header.substr(0, colon))] = value;
            }
            at = end + 2;
        }
        return request;
    }

    static std::string reason(int status)
    {
        switch (status) {
        case 200: return "OK";
        case 206: return "Partial Content";
        case 302: return "Found";
        case 307: return "Temporary Redirect";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 416: return "Range Not Satisfiable";
        default: return "Status";
        }
    }

    // "bytes=a-b" -> [a, b] clipped to the file.
    static std::optional<std::pair<std::uint64_t, std::uint64_t>> parseRange(const std::string& value,
                                                                             std::uint64_t size)
    {
        if (value.rfind("bytes=", 0) != 0)
            return std::nullopt;
        const std::size_t dash = value.find('-');
        if (dash == std::string::npos)
            return std::nullopt;
        const std::uint64_t first = std::stoull(value.substr(6, dash - 6));
        std::uint64_t last = dash + 1 < value.size() ? std::stoull(value.substr(dash + 1)) : size - 1;
        last = std::min(last, size - 1);
        if (size == 0 || first > last)
            return std::nullopt;
        return std::make_pair(first, last);
    }

    static Response fileAnswer(const RepoFile& file, const Request& request)
    {
        Response r;
        r.body = file.bytes;
        r.size = file.totalSize();
        const std::string range = request.header("range");
        if (range.empty() || file.ignoreRange)
            return r;
        const auto span = parseRange(range, file.totalSize());
        if (!span) {
            r.status = 416;
            r.body.clear();
            r.size = 0;
            r.headers.emplace_back("Content-Range", "bytes */" + std::to_string(file.totalSize()));
            return r;
        }
        r.status = 206;
        r.headers.emplace_back("Content-Range", "bytes " + std::to_string(span->first) + "-" +
                                                    std::to_string(span->second) + "/" +
                                                    std::to_string(file.totalSize()));
        // The part of the stored bytes in the range, then zeros.
        const std::uint64_t length = span->second - span->first + 1;
        r.body = span->first < file.bytes.size() ? file.bytes.substr(std::size_t(span->first), std::size_t(length))
                                                 : std::string();
        r.size = length;
        return r;
    }

    static std::string percentDecoded(const std::string& text)
    {
        std::string out;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '%' && i + 2 < text.size()) {
                out += char(std::stoi(text.substr(i + 1, 2), nullptr, 16));
                i += 2;
            } else {
                out += text[i];
            }
        }
        return out;
    }

    Response answer(const Request& request)
    {
        std::lock_guard lock(m_mutex);
        if (const auto route = m_routes.find(request.path); route != m_routes.end())
            return route->second(request);
        if (request.path.rfind("/cdn/", 0) == 0) {
            const std::string etag = request.path.substr(5);
            for (const auto& [name, repo] : m_repos)
                for (const auto& [file, content] : repo.files)
                    if (content.lfs && content.etag == etag)
                        return fileAnswer(content, request);
            return Response{404, {}, "no such object", 0, 0};
        }
        // /ORG/NAME/resolve/REVISION/FILE
        const std::size_t resolve = request.path.find("/resolve/");
        if (resolve == std::string::npos)
            return Response{404, {}, "not a Hub path", 0, 0};
        const std::string name = request.path.substr(1, resolve - 1);
        const std::string rest = request.path.substr(resolve + 9);
        const std::size_t slash = rest.find('/');
        const std::string revision = percentDecoded(rest.substr(0, slash));
        const std::string file = percentDecoded(slash == std::string::npos ? std::string() : rest.substr(slash + 1));
        const auto repo = m_repos.find(name);
        if (repo == m_repos.end())
            return Response{401,
                            {{"X-Error-Code", "RepoNotFound"}, {"X-Error-Message", "Repository not found"}},
                            "Repository not found",
                            0,
                            0};
        const Repo& r = repo->second;
        if (revision != "main" && revision != r.commit)
            return Response{404, {{"X-Error-Code", "RevisionNotFound"}}, "Invalid rev id", 0, 0};
        const auto found = r.files.find(file);
        if (found == r.files.end())
            return Response{
                404, {{"X-Error-Code", "EntryNotFound"}, {"X-Repo-Commit", r.commit}}, "Entry not found", 0, 0};
        const RepoFile& f = found->second;
        if (f.lfs)
            return Response{302,
                            {{"Location", cdnUrl() + f.etag},
                             {"X-Repo-Commit", r.commit},
                             {"X-Linked-Etag", "\"" + f.etag + "\""},
                             {"X-Linked-Size", std::to_string(f.totalSize())}},
                            "Found. Redirecting",
                            0,
                            0};
        Response ok = fileAnswer(f, request);
        ok.headers.emplace_back("X-Repo-Commit", r.commit);
        ok.headers.emplace_back("ETag", "\"" + f.etag + "\"");
        return ok;
    }

    bool sendAll(int client, const char* data, std::size_t size, const std::string& path)
    {
        while (size > 0) {
            const ssize_t n = ::send(client, data, size, MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            {
                std::lock_guard lock(m_mutex);
                m_sent[path] += std::uint64_t(n);
            }
            data += n;
            size -= std::size_t(n);
        }
        return true;
    }

    void serve(int client)
    {
        const std::optional<Request> request = readRequest(client);
        if (!request)
            return;
        {
            std::lock_guard lock(m_mutex);
            m_log.push_back(*request);
        }
        const Response r = answer(*request);
        for (int waited = 0; waited < r.delayMs && !m_stopping; waited += 20)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::string head = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\n";
        for (const auto& [name, value] : r.headers)
            head += name + ": " + value + "\r\n";
        head += "Content-Length: " + std::to_string(r.totalSize()) + "\r\nConnection: close\r\n\r\n";
        if (!sendAll(client, head.data(), head.size(), "(headers)") || request->method == "HEAD")
            return;
        if (!sendAll(client, r.body.data(), r.body.size(), request->path))
            return;
        static const std::string zeros(64 * 1024, '\0');
        for (std::uint64_t left = r.totalSize() - r.body.size(); left > 0 && !m_stopping;) {
            const std::size_t chunk = std::size_t(std::min<std::uint64_t>(left, zeros.size()));
            if (!sendAll(client, zeros.data(), chunk, request->path))
                return; // the client hung up: it had what it wanted
            left -= chunk;
        }
    }

    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    std::thread m_acceptor;
    mutable std::mutex m_mutex;
    std::vector<std::thread> m_workers;
    std::map<std::string, Repo> m_repos;
    std::map<std::string, Handler> m_routes;
    std::vector<Request> m_log;
    std::map<std::string, std::uint64_t> m_sent;
};

} // namespace fakehub
