// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `headroom-cli validate --json --progress` tells the app
// (VALIDATE-PROTOCOL.md): progress lines on stderr and one result object on
// stdout, read into plain structs. The app computes nothing here: every
// number is the child's.
#include "plan/plan.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <QVector>

#include <array>
#include <cstdint>
#include <optional>

// One stderr line: {"progress":0.42,"phase":"backward","event":"backward layer 3","step":1,"steps":3}.
struct ValidationProgress {
    double fraction = 0;  // in [0, 1]
    QString phase;        // setup, warmup, forward, loss, backward, optimizer, done
    QString event;        // the engine's event label, may be empty
    int step = 0;
    int steps = 0;
};

// Planned or measured side of a result.
struct ValidationSide {
    std::uint64_t peakBytes = 0;
    QString peakEvent;
    // Indexed by headroom::Category; a category the child did not report is absent.
    std::array<std::optional<std::uint64_t>, headroom::kCategoryCount> categories{};
};

struct ValidationEvent {
    QString label;
    std::uint64_t plannedBytes = 0;
    std::optional<std::uint64_t> measuredBytes;  // absent after an out-of-memory stop
};

struct ValidationReport {
    enum class Status { Ok, OutOfMemory, Error };
    Status status = Status::Ok;
    QString message;  // the child's words when not ok
    QString backend;
    QString device;
    ValidationSide planned;
    ValidationSide measured;
    QVector<ValidationEvent> events;
    std::optional<double> stepSeconds;
    std::optional<double> tokensPerSecond;
    bool extrapolated = false;
    // Device level (the CUDA engine): the memory the device used for the run,
    // against the plan's peak plus the measured context, workspace and arena.
    std::optional<double> deviceUsedMeasured, deviceUsedPlanned, deviceOverhead;
    bool deviceWithinTolerance = false;
    QStringList notes;
};

class ValidationJson {
    Q_DECLARE_TR_FUNCTIONS(ValidationJson)

public:
    inline static const QString kSchema = QStringLiteral("headroom.validation/1");

    // A progress line, or nothing when the line is human text (the contract
    // allows other stderr lines) or not a progress object.
    static std::optional<ValidationProgress> parseProgress(const QByteArray& line);
    // The result object. On failure: nothing, and *error says what is wrong (translated).
    static std::optional<ValidationReport> parseReport(const QByteArray& text, QString* error);
    // The category for a contract key ("optimizer-state"), by the engine's categoryName().
    static std::optional<headroom::Category> categoryFromKey(const QString& key);
};
