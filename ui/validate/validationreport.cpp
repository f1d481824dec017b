// SPDX-License-Identifier: GPL-3.0-or-later
#include "validate/validationreport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>

using namespace headroom;

namespace {

// Byte counts arrive as JSON numbers (doubles): exact up to 2^53 bytes (8 PiB),
// far beyond any device. Negative, fractional or non-numbers are refused.
std::optional<std::uint64_t> bytesOf(const QJsonValue& value)
{
    if (!value.isDouble())
        return std::nullopt;
    const double v = value.toDouble();
    if (!std::isfinite(v) || v < 0 || v != std::floor(v) || v > 9007199254740992.0)
        return std::nullopt;
    return static_cast<std::uint64_t>(v);
}

std::optional<double> numberOf(const QJsonValue& value)
{
    if (!value.isDouble() || !std::isfinite(value.toDouble()))
        return std::nullopt;
    return value.toDouble();
}

// One side ("planned" / "measured"). Empty string on success, else the problem.
QString readSide(const QJsonObject& object, ValidationSide& side)
{
    const auto peak = bytesOf(object.value(QLatin1String("peak_bytes")));
    if (!peak)
        return QStringLiteral("peak_bytes");
    side.peakBytes = *peak;
    side.peakEvent = object.value(QLatin1String("peak_event")).toString();
    const QJsonObject categories = object.value(QLatin1String("categories")).toObject();
    for (auto it = categories.begin(); it != categories.end(); ++it) {
        const auto category = ValidationJson::categoryFromKey(it.key());
        const auto bytes = bytesOf(it.value());
        // An unknown key is a newer child's category: ignored, not an error.
        if (!category)
            continue;
        if (!bytes)
            return QStringLiteral("categories.") + it.key();
        side.categories[static_cast<std::size_t>(*category)] = *bytes;
    }
    return QString();
}

} // namespace

std::optional<Category> ValidationJson::categoryFromKey(const QString& key)
{
    for (std::size_t c = 0; c < kCategoryCount; ++c)
        if (key == QLatin1String(categoryName(static_cast<Category>(c))))
            return static_cast<Category>(c);
    return std::nullopt;
}

std::optional<ValidationProgress> ValidationJson::parseProgress(const QByteArray& line)
{
    const QByteArray trimmed = line.trimmed();
    if (!trimmed.startsWith('{'))
        return std::nullopt;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(trimmed, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    const auto fraction = numberOf(object.value(QLatin1String("progress")));
    if (!fraction)
        return std::nullopt;
    ValidationProgress progress;
    progress.fraction = std::clamp(*fraction, 0.0, 1.0);
    progress.phase = object.value(QLatin1String("phase")).toString();
    progress.event = object.value(QLatin1String("event")).toString();
    progress.step = object.value(QLatin1String("step")).toInt();
    progress.steps = object.value(QLatin1String("steps")).toInt();
    return progress;
}

std::optional<ValidationReport> ValidationJson::parseReport(const QByteArray& text, QString* error)
{
    auto fail = [error](const QString& why) -> std::optional<ValidationReport> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    const QByteArray trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return fail(tr("the run printed no result"));
    // The result is the last line that is a JSON object: the contract puts it
    // at the end of stdout, so anything a library printed before it is skipped.
    QByteArray candidate = trimmed;
    QJsonParseError parseError{};
    QJsonDocument document = QJsonDocument::fromJson(candidate, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const qsizetype lastLine = trimmed.lastIndexOf('\n');
        if (lastLine >= 0) {
            candidate = trimmed.mid(lastLine + 1);
            document = QJsonDocument::fromJson(candidate, &parseError);
        }
    }
    if (parseError.error != QJsonParseError::NoError)
        //: %1 is the JSON parser's English description, %2 a character offset
        return fail(tr("the result is not valid JSON (%1 at offset %2)").arg(parseError.errorString()).arg(parseError.offset));
    if (!document.isObject())
        return fail(tr("the result is not a JSON object"));
    const QJsonObject object = document.object();
    const QString schema = object.value(QLatin1String("schema")).toString();
    if (schema != kSchema)
        return fail(tr("unexpected schema \"%1\" (expected %2)").arg(schema, kSchema));

    ValidationReport report;
    const QString status = object.value(QLatin1String("status")).toString();
    if (status == QLatin1String("ok"))
        report.status = ValidationReport::Status::Ok;
    else if (status == QLatin1String("out_of_memory"))
        report.status = ValidationReport::Status::OutOfMemory;
    else if (status == QLatin1String("error"))
        report.status = ValidationReport::Status::Error;
    else
        return fail(tr("unknown status \"%1\"").arg(status));
    report.message = object.value(QLatin1String("message")).toString();
    report.backend = object.value(QLatin1String("backend")).toString();
    report.device = object.value(QLatin1String("device")).toString();

    if (report.status != ValidationReport::Status::Error) {
        const QString plannedProblem = readSide(object.value(QLatin1String("planned")).toObject(), report.planned);
        if (!plannedProblem.isEmpty())
            //: %1 is a JSON field name such as planned.peak_bytes
            return fail(tr("missing or invalid %1").arg(QStringLiteral("planned.") + plannedProblem));
        // An out-of-memory stop may not have a complete measured side.
        const QJsonValue measured = object.value(QLatin1String("measured"));
        if (measured.isObject() || report.status == ValidationReport::Status::Ok) {
            const QString measuredProblem = readSide(measured.toObject(), report.measured);
            if (!measuredProblem.isEmpty())
                return fail(tr("missing or invalid %1").arg(QStringLiteral("measured.") + measuredProblem));
        }
    }

    for (const QJsonValue& value : object.value(QLatin1String("events")).toArray()) {
        const QJsonObject e = value.toObject();
        ValidationEvent event;
        event.label = e.value(QLatin1String("label")).toString();
        const auto planned = bytesOf(e.value(QLatin1String("planned_bytes")));
        if (!planned)
            return fail(tr("missing or invalid %1").arg(QStringLiteral("events[].planned_bytes")));
        event.plannedBytes = *planned;
        event.measuredBytes = bytesOf(e.value(QLatin1String("measured_bytes")));
        report.events.append(event);
    }
    report.stepSeconds = numberOf(object.value(QLatin1String("step_seconds")));
    report.tokensPerSecond = numberOf(object.value(QLatin1String("tokens_per_second")));
    report.extrapolated = object.value(QLatin1String("extrapolated")).toBool();
    const QJsonObject device = object.value(QLatin1String("device_level")).toObject();
    const QJsonObject check = device.value(QLatin1String("check")).toObject();
    report.deviceUsedMeasured = numberOf(check.value(QLatin1String("measured_bytes")));
    report.deviceUsedPlanned = numberOf(check.value(QLatin1String("planned_bytes")));
    report.deviceOverhead = numberOf(device.value(QLatin1String("overhead_bytes")));
    report.deviceWithinTolerance = check.value(QLatin1String("within_tolerance")).toBool();
    for (const QJsonValue& note : object.value(QLatin1String("notes")).toArray())
        report.notes.append(note.toString());
    return report;
}
