// SPDX-License-Identifier: GPL-3.0-or-later
#include "hub/httptransport.h"

#if defined(HEADROOM_HAVE_CURL)
#include "hub/curltransport.h"
#endif

namespace headroom {

std::optional<std::string> HttpHead::header(std::string_view name) const
{
    for (const auto& [key, value] : headers)
        if (key == name)
            return value;
    return std::nullopt;
}

std::optional<std::string> HttpResponse::anyHeader(std::string_view name) const
{
    for (const HttpHead& head : chain)
        if (auto value = head.header(name))
            return value;
    return std::nullopt;
}

std::unique_ptr<HttpTransport> makeDefaultTransport()
{
#if defined(HEADROOM_HAVE_CURL)
    return std::make_unique<CurlTransport>();
#else
    return nullptr;
#endif
}

bool buildHasHubAccess()
{
#if defined(HEADROOM_HAVE_CURL)
    return true;
#else
    return false;
#endif
}

} // namespace headroom
