// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Engine text as translated sentences. The engine returns a code and an
// English detail, and plans carry English notes; the code chooses the
// sentence (STYLE.md: "The UI turns codes into tr() messages") and a table
// of the engine's known phrasings (ui/text/errortext.cpp) turns details and notes
// into tr() strings, keeping the numbers and names they carry. Text the
// table does not know is shown as the engine wrote it.
#include "core/result.h"

#include <QCoreApplication>
#include <QString>

#include <string>

class ErrorText {
    Q_DECLARE_TR_FUNCTIONS(ErrorText)

public:
    // One sentence for the code, then what is wrong.
    static QString message(const headroom::Error& error);
    static QString summary(headroom::ErrorCode code);
    // A plan note (Plan::notes) in the UI language; unknown notes verbatim.
    static QString note(const std::string& note);
    // An error detail in the UI language, or an empty string when the
    // table does not know its phrasing.
    static QString knownDetail(const std::string& detail);
    // A fit-search technique (engine/plan/fitsearch.h standardTechniques())
    // by its id; the engine's label for an id the table does not know.
    static QString technique(const std::string& id, const std::string& engineLabel);
    // "train.micro_batch" -> "Micro-batch": the scenario field as the panel labels it.
    static QString fieldName(const QString& key);
};
