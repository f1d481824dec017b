// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/hubtext.h"

#include "text/errortext.h"

#include <QRegularExpression>

#include <functional>
#include <vector>

namespace {

// One phrasing of engine/hub: a pattern over its English text and the
// translated sentence built from what it captured. The patterns quote the
// engine's strings: hubresponse.cpp hubStatusError, hubclient.cpp,
// curltransport.cpp, hubid.cpp parseHubModelId.
struct Phrase {
    QRegularExpression pattern;
    std::function<QString(const QRegularExpressionMatch&)> text;
};

QRegularExpression anchored(const char* pattern)
{
    return QRegularExpression(QLatin1Char('^') + QLatin1String(pattern) + QLatin1Char('$'));
}

QString c(const QRegularExpressionMatch& m, int n) { return m.captured(n); }

const std::vector<Phrase>& detailPhrases()
{
    static const std::vector<Phrase> phrases = {
        {anchored(
             R"((\S+) is gated: accept its licence at (\S+), then give Headroom your access token with HF_TOKEN or huggingface-cli login)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id (ORG/NAME), %2 the web page of the model on the Hub
             return HubText::tr("%1 is gated: accept its licence at %2, then give Headroom your access token with "
                                "HF_TOKEN or huggingface-cli login.")
                 .arg(c(m, 1), c(m, 2));
         }},
        {anchored(
             R"((\S+) is gated and the token from (.+) has no access to it: accept its licence at (\S+) with that account)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 where the token came from (HF_TOKEN or a file), %3 the model's web page
             return HubText::tr("%1 is gated and the token from %2 has no access to it: accept its licence at %3 with "
                                "that account.")
                 .arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(
             R"(the Hub refused the token from (.+) \(invalid credentials\): set HF_TOKEN to a valid token or run huggingface-cli login again)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 where the token came from (HF_TOKEN or a file)
             return HubText::tr("The Hub refused the token from %1 (invalid credentials): set HF_TOKEN to a valid "
                                "token or run huggingface-cli login again.")
                 .arg(c(m, 1));
         }},
        {anchored(
             R"(the token from (.+) gives no access to (\S+): if it is gated or private, accept its licence or ask for access at (\S+) with that account)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 where the token came from, %2 a model id, %3 the model's web page
             return HubText::tr("The token from %1 gives no access to %2: if it is gated or private, accept its "
                                "licence or ask for access at %3 with that account.")
                 .arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(
             R"((\S+) needs an access token, or does not exist: if it is gated or private, accept its licence at (\S+), then give Headroom your access token with HF_TOKEN or huggingface-cli login)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 the model's web page
             return HubText::tr(
                        "%1 needs an access token, or does not exist: if it is gated or private, accept its licence at "
                        "%2, then give Headroom your access token with HF_TOKEN or huggingface-cli login.")
                 .arg(c(m, 1), c(m, 2));
         }},
        {anchored(R"((\S+) has no revision '(.*)')"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 a branch, tag or commit
             return HubText::tr("%1 has no revision “%2”.").arg(c(m, 1), c(m, 2));
         }},
        {anchored(R"(no model (\S+) at (\S+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 the Hub's address
             return HubText::tr("There is no model %1 at %2.").arg(c(m, 1), c(m, 2));
         }},
        {anchored(R"((\S+) has no (\S+) at revision '(.*)')"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 a file name, %3 a branch, tag or commit
             return HubText::tr("%1 has no %2 at revision “%3”.").arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(R"((\S+) asks to slow down \(HTTP 429\) for (\S+) of (\S+): try again in a minute)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the Hub's address, %2 a file name, %3 a model id
             return HubText::tr("%1 asks to slow down (HTTP 429) for %2 of %3: try again in a minute.")
                 .arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(R"((\S+) answered HTTP (\d+) for (\S+) of (\S+): the Hub may be down; try again later)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the Hub's address, %2 an HTTP status, %3 a file name, %4 a model id
             return HubText::tr("%1 answered HTTP %2 for %3 of %4: the Hub may be down; try again later.")
                 .arg(c(m, 1), c(m, 2), c(m, 3), c(m, 4));
         }},
        {anchored(R"((\S+) answered HTTP (\d+) for (\S+) of (\S+), which the Hub does not answer)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the Hub's address, %2 an HTTP status, %3 a file name, %4 a model id
             return HubText::tr("%1 answered HTTP %2 for %3 of %4, which the Hugging Face Hub does not answer.")
                 .arg(c(m, 1), c(m, 2), c(m, 3), c(m, 4));
         }},
        {anchored(R"(HF_HUB_OFFLINE is set and (\S+) at revision '(.*)' is not in the Hugging Face cache (.+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 a branch, tag or commit, %3 a folder
             return HubText::tr("HF_HUB_OFFLINE is set and %1 at revision “%2” is not in the Hugging Face cache %3.")
                 .arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(
             R"(HF_HUB_OFFLINE is set and the safetensors header of (\S+) of (\S+) is not in the Hugging Face cache (.+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a file name, %2 a model id, %3 a folder
             return HubText::
                 tr("HF_HUB_OFFLINE is set and the safetensors header of %1 of %2 is not in the Hugging Face cache %3.")
                     .arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(R"(HF_HUB_OFFLINE is set and (\S+) of (\S+) is not in the Hugging Face cache (.+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a file name, %2 a model id, %3 a folder
             return HubText::tr("HF_HUB_OFFLINE is set and %1 of %2 is not in the Hugging Face cache %3.")
                 .arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(
             R"((\S+): (\S+): the answer of (\S+) has no X-Repo-Commit header with a commit hash: is HF_ENDPOINT a Hugging Face Hub\?)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 a file name, %3 the server's address
             return HubText::tr("%1: the answer for %2 from %3 has no commit hash (X-Repo-Commit): is HF_ENDPOINT a "
                                "Hugging Face Hub?")
                 .arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(
             R"((\S+): (\S+): the answer of (\S+) has no usable ETag header: is HF_ENDPOINT a Hugging Face Hub\?)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 a file name, %3 the server's address
             return HubText::tr("%1: the answer for %2 from %3 has no usable ETag: is HF_ENDPOINT a Hugging Face Hub?")
                 .arg(c(m, 1), c(m, 2), c(m, 3));
         }},
        {anchored(R"(this build of Headroom has no Hugging Face Hub access \(built without libcurl\).*)"),
         [](const QRegularExpressionMatch&) {
             return HubText::tr("This build of Headroom has no Hugging Face Hub access (it was built without libcurl): "
                                "set HF_HUB_OFFLINE=1 to use the files already in the Hugging Face cache, or import a "
                                "config.json or a model folder.");
         }},
        {anchored(R"((\S+): (\S+): the safetensors header is (\d+) bytes, over the limit of (\d+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id, %2 a file name, %3 and %4 byte counts
             return HubText::tr("%1: the safetensors header of %2 is %3 bytes, over the limit of %4.")
                 .arg(c(m, 1), c(m, 2), c(m, 3), c(m, 4));
         }},
        {anchored(R"(cancelled)"), [](const QRegularExpressionMatch&) { return HubText::tr("Cancelled."); }},
        {anchored(R"((\S+): the answer is larger than the limit of (\d+) bytes)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a web address, %2 a byte count
             return HubText::tr("%1: the answer is larger than the limit of %2 bytes.").arg(c(m, 1), c(m, 2));
         }},
        {anchored(R"((\S+): no answer within (\d+) s \(HF_HUB_DOWNLOAD_TIMEOUT sets the limit\))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a web address, %2 seconds
             return HubText::tr("%1: no answer within %2 s (HF_HUB_DOWNLOAD_TIMEOUT sets the limit).")
                 .arg(c(m, 1), c(m, 2));
         }},
        {anchored(R"((\S+): more than (\d+) redirects \(a redirect loop\))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a web address, %2 a count
             return HubText::tr("%1: more than %2 redirects (a redirect loop).").arg(c(m, 1), c(m, 2));
         }},
        {anchored(R"((\S+): cannot connect \((.*)\); check the network, HF_ENDPOINT and any proxy settings)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a web address, %2 libcurl's reason, in English
             return HubText::tr("%1: cannot connect (%2); check the network, HF_ENDPOINT and any proxy settings.")
                 .arg(c(m, 1), c(m, 2));
         }},
        {anchored(R"('(.*)' is not a Hub model id: .*)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 what the user typed
             return HubText::tr("“%1” is not a Hugging Face model id: write ORG/NAME (letters, digits, “-”, “_” and "
                                "“.”), optionally followed by @ and a branch, tag or commit.")
                 .arg(c(m, 1));
         }},
    };
    return phrases;
}

const std::vector<Phrase>& notePhrases()
{
    static const std::vector<Phrase> phrases = {
        {anchored(R"((\S+) has no safetensors weights: the parameter count comes from config.json alone)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id
             return HubText::tr("%1 has no safetensors weights: the parameter count comes from config.json alone.")
                 .arg(c(m, 1));
         }},
        {anchored(
             R"(HF_HUB_OFFLINE is set and the safetensors headers of (\S+) are not in the cache: the parameter count comes from config.json alone)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model id
             return HubText::tr("HF_HUB_OFFLINE is set and the safetensors headers of %1 are not in the cache: the "
                                "parameter count comes from config.json alone.")
                 .arg(c(m, 1));
         }},
        {anchored(R"(the Hub could not be reached \((.*)\); the cached files of commit (\S+) are used)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 why (in English), %2 a commit hash
             return HubText::tr("The Hub could not be reached (%1); the cached files of commit %2 are used.")
                 .arg(c(m, 1), c(m, 2));
         }},
        {anchored(R"(cannot write the Hugging Face cache: (.*))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the file and the reason, in English
             return HubText::tr("The Hugging Face cache could not be written (the plan is not affected): %1")
                 .arg(c(m, 1));
         }},
    };
    return phrases;
}

QString lookUp(const std::vector<Phrase>& phrases, const std::string& text)
{
    const QString english = QString::fromStdString(text);
    for (const Phrase& phrase : phrases) {
        const QRegularExpressionMatch match = phrase.pattern.match(english);
        if (match.hasMatch())
            return phrase.text(match);
    }
    return QString();
}

} // namespace

QString HubText::knownDetail(const std::string& detail) { return lookUp(detailPhrases(), detail); }

QString HubText::note(const std::string& note)
{
    const QString known = lookUp(notePhrases(), note);
    return known.isEmpty() ? QString::fromStdString(note) : known;
}

QString HubText::message(const headroom::Error& error)
{
    const QString known = knownDetail(error.detail);
    if (known.isEmpty())
        return ErrorText::message(error);
    //: %1 is a one-sentence summary, %2 names what is wrong
    return tr("%1 %2").arg(ErrorText::summary(error.code), known);
}
