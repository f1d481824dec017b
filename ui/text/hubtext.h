// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Hugging Face Hub's errors and notes (engine/hub) as translated
// sentences, as ErrorText does for the planner's: a table of the engine's
// phrasings (hubtext.cpp) keeps the names, URLs and numbers they carry. Kept
// apart from errortext.cpp: a family of its own, with its own test
// (test_ui_hub checks that what the engine emits today is matched).
#include "core/result.h"

#include <QCoreApplication>
#include <QString>

#include <string>

class HubText {
    Q_DECLARE_TR_FUNCTIONS(HubText)

public:
    // The code's sentence (ErrorText::summary), then the detail in the UI
    // language when its phrasing is known, else as the engine wrote it.
    static QString message(const headroom::Error& error);
    // A Hub detail in the UI language; empty when the phrasing is unknown.
    static QString knownDetail(const std::string& detail);
    // A note of HubModelInfo in the UI language; verbatim when unknown.
    static QString note(const std::string& note);
};
