// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled-in model catalog: every entry parses through the config.json
// path, and its parameter table adds up to the count transformers reports
// (the "parameters" field, obtained as its "parameters_source" says).
#include "model/catalog.h"
#include "model/parametertable.h"

#include <QtTest/QtTest>

using namespace headroom;

namespace {

QByteArray shortNameOf(const std::string& id)
{
    const std::size_t slash = id.rfind('/');
    return QByteArray::fromStdString(slash == std::string::npos ? id : id.substr(slash + 1));
}

int entriesWithShortName(const QByteArray& name)
{
    int count = 0;
    for (const CatalogModel& m : modelCatalog())
        count += shortNameOf(m.id).compare(name, Qt::CaseInsensitive) == 0;
    return count;
}

} // namespace

class TestCatalog : public QObject {
    Q_OBJECT

private slots:
    void noRejectedEntries()
    {
        std::string reasons;
        for (const std::string& r : catalogRejections())
            reasons += r + "\n";
        QVERIFY2(rejectedCatalogEntries() == 0, reasons.c_str());
    }

    void atLeastThirtyModels() { QVERIFY2(modelCatalog().size() >= 30, "the catalog should hold at least 30 models"); }

    void parameterCounts_data()
    {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < modelCatalog().size(); ++i)
            QTest::newRow(modelCatalog()[i].id.c_str()) << int(i);
    }
    void parameterCounts()
    {
        QFETCH(int, index);
        const CatalogModel& m = modelCatalog()[std::size_t(index)];
        QVERIFY(!m.name.empty());
        QVERIFY(!m.parametersSource.empty());
        QCOMPARE(m.spec.id, m.id);
        QCOMPARE(m.spec.origin, std::string("catalog"));
        QCOMPARE(qulonglong(buildParameterTable(m.spec).totalElements()), qulonglong(m.parameters));
    }

    void lookup_data()
    {
        QTest::addColumn<QByteArray>("id");
        for (const CatalogModel& m : modelCatalog())
            QTest::newRow(m.id.c_str()) << QByteArray::fromStdString(m.id);
    }
    void lookup()
    {
        QFETCH(QByteArray, id);
        const CatalogModel* exact = findCatalogModel(id.toStdString());
        QVERIFY(exact);
        QCOMPARE(QByteArray::fromStdString(exact->id), id);
        QCOMPARE(findCatalogModel(id.toUpper().toStdString()), exact);
        QCOMPARE(findCatalogModel(id.toLower().toStdString()), exact);
        const Result<ModelSpec> preset = presetModel(id.toLower().toStdString());
        QVERIFY(preset.ok());
        QCOMPARE(QByteArray::fromStdString(preset->id), id);
        // The part after '/' finds the model when no other entry shares it.
        const QByteArray name = shortNameOf(exact->id);
        if (entriesWithShortName(name) == 1) {
            QCOMPARE(findCatalogModel(name.toStdString()), exact);
            QCOMPARE(findCatalogModel(name.toUpper().toStdString()), exact);
        } else {
            QCOMPARE(findCatalogModel(name.toStdString()), nullptr);
            QCOMPARE(presetModel(name.toStdString()).error().code, ErrorCode::UnknownModel);
        }
    }

    void unknownModel()
    {
        for (const char* id : {"no-such/model", "no-such-model", "", "/"}) {
            QCOMPARE(findCatalogModel(id), nullptr);
            const Result<ModelSpec> r = presetModel(id);
            QVERIFY(!r.ok());
            QCOMPARE(r.error().code, ErrorCode::UnknownModel);
            std::string quoted = "\"";
            quoted.append(id).append("\"");
            QVERIFY2(r.error().detail.find(quoted) != std::string::npos, r.error().detail.c_str());
        }
    }

    // The parser itself, on small hand-made catalogs.
    void parsesAndRejects()
    {
        const char* config = R"({"model_type": "gpt2", "n_embd": 8, "n_layer": 1, "n_head": 2, "vocab_size": 4})";
        auto entry = [&](const char* id, const char* cfg) {
            // Ordinary literals: moc mis-tokenizes raw strings that begin or end with a quote.
            return std::string("{\"id\": \"") + id + "\", \"name\": \"N\", \"parameters\": 1, "
                 + "\"parameters_source\": \"hand\", \"config\": " + cfg + "}";
        };
        const std::string text = std::string(R"({"schema": "headroom.models/1", "models": [)") + entry("a/x", config)
                               + "," + entry("b/x", config) + "," + entry("c/y", config) + ","
                               + entry("C/Y", config) + "," + entry("d/z", R"({"model_type": "t5"})") + ","
                               + R"({"id": "e/w", "name": "N", "parameters": 1, "parameters_source": "s"}, 7]})";
        std::vector<std::string> rejections;
        const std::vector<CatalogModel> models = parseModelCatalog(text, rejections);
        QCOMPARE(models.size(), 3u); // a/x, b/x, c/y
        QCOMPARE(rejections.size(), 4u); // duplicate C/Y, t5, e/w without config, 7
        QVERIFY(rejections[0].find("C/Y") != std::string::npos);
        QVERIFY(rejections[1].find("d/z") != std::string::npos && rejections[1].find("t5") != std::string::npos);
        QVERIFY(rejections[2].find("e/w") != std::string::npos);
        QCOMPARE(models[0].spec.origin, std::string("catalog"));
        QCOMPARE(models[0].spec.id, std::string("a/x"));
        QCOMPARE(findCatalogModel(models, "A/X"), &models[0]);
        QCOMPARE(findCatalogModel(models, "x"), nullptr); // a/x and b/x: ambiguous
        QCOMPARE(findCatalogModel(models, "Y"), &models[2]);
        QCOMPARE(findCatalogModel(models, "q/y"), nullptr); // a full id is never matched by its tail

        for (const char* bad : {"", "[]", R"({"schema": "other/1", "models": []})", R"({"schema": "headroom.models/1"})"}) {
            std::vector<std::string> why;
            QVERIFY(parseModelCatalog(bad, why).empty());
            QCOMPARE(why.size(), 1u);
        }
    }
};

QTEST_APPLESS_MAIN(TestCatalog)
#include "test_catalog.moc"
