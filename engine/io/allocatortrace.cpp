// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/allocatortrace.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace headroom {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Splits a line (comment already cut) into at most 5 words; the 5th means "too many".
std::size_t words(std::string_view line, std::string_view (&out)[5])
{
    std::size_t n = 0, i = 0;
    while (i < line.size() && n < 5) {
        while (i < line.size() && isSpace(line[i]))
            ++i;
        if (i == line.size())
            break;
        const std::size_t start = i;
        while (i < line.size() && !isSpace(line[i]))
            ++i;
        out[n++] = line.substr(start, i - start);
    }
    return n;
}

Error lineError(std::size_t line, const std::string& what)
{
    return makeError(ErrorCode::InvalidArgument, "allocator trace, line " + std::to_string(line) + ": " + what);
}

std::string shown(std::string_view text)
{
    constexpr std::size_t kMax = 40;
    // Appended piece by piece: GCC 12's -Wrestrict misreads "'" + std::string(...)
    // as an overlapping copy (a known false positive), and CI builds with -Werror.
    std::string out(1, '\'');
    out.append(text.substr(0, kMax));
    out.append(text.size() > kMax ? "...'" : "'");
    return out;
}

} // namespace

Result<AllocatorTrace> parseAllocatorTrace(std::string_view text)
{
    AllocatorTrace trace;
    std::unordered_map<std::string, std::uint32_t> live; // id as written -> dense number
    std::vector<std::uint32_t> unused;                   // dense numbers freed, for reuse
    std::uint32_t nextNumber = 0;
    std::size_t lineNumber = 0, pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        std::string_view w[5];
        const std::size_t n = words(line, w);
        if (n == 0)
            continue;
        if (w[0] == "a") {
            if (n != 3 && n != 4)
                return lineError(lineNumber, "expected 'a <id> <bytes> [s<stream>]', got " + shown(line));
            unsigned stream = 0;
            if (n == 4) {
                const std::string_view tag = w[3];
                const auto [sp, sec] = tag.size() > 1 && tag[0] == 's'
                                           ? std::from_chars(tag.data() + 1, tag.data() + tag.size(), stream)
                                           : std::from_chars_result{tag.data(), std::errc::invalid_argument};
                if (sec != std::errc() || sp != tag.data() + tag.size() || stream == 0 || stream > 255)
                    return lineError(lineNumber, "stream " + shown(tag) + " is not s1 to s255");
            }
            Bytes bytes = 0;
            const auto [ptr, ec] = std::from_chars(w[2].data(), w[2].data() + w[2].size(), bytes);
            if (ec == std::errc::result_out_of_range)
                return lineError(lineNumber, "size " + shown(w[2]) + " does not fit in 64 bits");
            if (ec != std::errc() || ptr != w[2].data() + w[2].size())
                return lineError(lineNumber, "size " + shown(w[2]) + " is not a whole number of bytes");
            std::uint32_t number = 0;
            if (!unused.empty()) {
                number = unused.back();
                unused.pop_back();
            } else {
                number = nextNumber++;
            }
            const auto [it, inserted] = live.emplace(std::string(w[1]), number);
            if (!inserted)
                return lineError(lineNumber, "allocation " + shown(w[1]) + " is already live");
            trace.events.push_back({AllocatorEvent::Kind::Alloc, number, bytes, static_cast<std::uint8_t>(stream)});
        } else if (w[0] == "f") {
            if (n != 2)
                return lineError(lineNumber, "expected 'f <id>', got " + shown(line));
            const auto it = live.find(std::string(w[1]));
            if (it == live.end())
                return lineError(lineNumber, "free of " + shown(w[1]) + ", which is not live");
            trace.events.push_back({AllocatorEvent::Kind::Free, it->second, 0});
            unused.push_back(it->second);
            live.erase(it);
        } else {
            return lineError(lineNumber, "unknown event " + shown(w[0]) + " (expected 'a' or 'f')");
        }
    }
    trace.lines = lineNumber;
    return trace;
}

Result<AllocatorTrace> readAllocatorTraceFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::FileNotFound, path);
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        return makeError(ErrorCode::IoError, path);
    return parseAllocatorTrace(text.str());
}

} // namespace headroom
