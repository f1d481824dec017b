// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// HttpTransport over libcurl, built only with HEADROOM_HAVE_CURL. libcurl
// does what we would otherwise write and get wrong: HTTPS with the system's
// certificates, redirects with a limit (and without carrying the
// Authorization header to another host), the proxy variables, ranges,
// timeouts and cancellation.
#include "hub/httptransport.h"

namespace headroom {

class CurlTransport final : public HttpTransport {
public:
    CurlTransport();
    Result<HttpResponse> get(const HttpRequest& request, const TransferControl& control) override;
};

} // namespace headroom
