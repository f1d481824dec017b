// SPDX-License-Identifier: GPL-3.0-or-later
// safetensors headers and model folders, built byte by byte in a temporary
// directory: 8-byte little-endian header length, JSON header, zeroed data.
#include "model/modelfolder.h"
#include "model/parametertable.h"
#include "model/safetensors.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <optional>

using namespace headroom;
using nlohmann::json;

namespace {

// A safetensors file from its header text: `length` overrides the stored
// header length, `dataBytes` zero bytes follow the header.
QByteArray safetensorsBytes(const QByteArray& header, quint64 dataBytes, std::optional<quint64> length = {})
{
    const quint64 n = length.value_or(quint64(header.size()));
    QByteArray out(8, '\0');
    for (int i = 0; i < 8; ++i)
        out[i] = char((n >> (8 * i)) & 0xff);
    return out + header + QByteArray(qsizetype(dataBytes), '\0');
}

// Lays tensors out back to back, as safetensors' serializer does.
class Shard {
public:
    Shard& add(const std::string& name, const std::string& dtype, const std::vector<std::uint64_t>& shape)
    {
        const std::uint64_t width = dtype == "F32" ? 4 : dtype == "BF16" || dtype == "F16" ? 2 : 1;
        std::uint64_t bytes = width;
        for (std::uint64_t d : shape)
            bytes *= d;
        m_header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {m_size, m_size + bytes}}};
        m_size += bytes;
        return *this;
    }
    QByteArray bytes() const { return safetensorsBytes(QByteArray::fromStdString(m_header.dump()), m_size); }

private:
    json m_header = {{"__metadata__", {{"format", "pt"}}}};
    std::uint64_t m_size = 0;
};

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// Tiny Llama: V 16, H 8, 2 heads of 4, 1 KV head, I 12, 1 layer, untied.
const char* kTinyConfig = R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1,
    "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 16, "intermediate_size": 12})";

} // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private slots:
    void readsHeader()
    {
        const QByteArray header = R"({"__metadata__": {"format": "pt"},
            "a": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]},
            "b": {"dtype": "F32", "shape": [], "data_offsets": [12, 16]},
            "c": {"dtype": "I64", "shape": [0, 5], "data_offsets": [16, 16]}}    )"; // trailing padding is legal
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.safetensors"));
        QVERIFY(writeFile(path, safetensorsBytes(header, 16)));
        const Result<SafetensorsHeader> h = readSafetensorsHeader(path.toStdString());
        QVERIFY2(h.ok(), h.ok() ? "" : h.error().detail.c_str());
        QCOMPARE(h->tensors.size(), 3u);
        QCOMPARE(h->metadata.at("format"), std::string("pt"));
        const SafetensorsTensor& a = h->tensors[0];
        QCOMPARE(a.name, std::string("a"));
        QCOMPARE(a.dtype, std::string("BF16"));
        QCOMPARE(a.shape, (std::vector<std::uint64_t>{2, 3}));
        QCOMPARE(a.elements, 6u);
        QCOMPARE(a.dataBytes, 12u);
        QCOMPARE(h->tensors[1].elements, 1u); // a scalar
        QVERIFY(h->tensors[1].shape.empty());
        QCOMPARE(h->tensors[2].elements, 0u);

        const Result<SafetensorsHeader> inMemory = parseSafetensorsHeader(safetensorsBytes(header, 16).toStdString());
        QVERIFY(inMemory.ok());
        QCOMPARE(inMemory->tensors.size(), 3u);
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QByteArray>("named");
        const QByteArray ok = R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}})";
        auto one = [](const char* tensor) { return QByteArray(R"({"w": )") + tensor + "}"; };
        QTest::newRow("truncated (< 8 bytes)") << QByteArray("\x05\x00\x00", 3) << QByteArray("fewer than the 8-byte");
        QTest::newRow("length past the file") << safetensorsBytes(ok, 16, quint64(ok.size() + 17))
                                              << QByteArray("runs past the end");
        QTest::newRow("length 2^63") << safetensorsBytes(ok, 16, quint64(1) << 63)
                                     << QByteArray("header length 9223372036854775808 exceeds");
        QTest::newRow("not JSON") << safetensorsBytes("{\"w\": [", 0) << QByteArray("not valid JSON");
        QTest::newRow("not an object") << safetensorsBytes("[1, 2]", 0) << QByteArray("JSON object");
        QTest::newRow("no dtype") << safetensorsBytes(one(R"({"shape": [1], "data_offsets": [0, 4]})"), 4)
                                  << QByteArray("tensor \"w\": no \"dtype\"");
        QTest::newRow("unknown dtype")
            << safetensorsBytes(one(R"({"dtype": "F128", "shape": [1], "data_offsets": [0, 16]})"), 16)
            << QByteArray("\"F128\"");
        QTest::newRow("no shape") << safetensorsBytes(one(R"({"dtype": "F32", "data_offsets": [0, 4]})"), 4)
                                  << QByteArray("\"shape\"");
        QTest::newRow("no data_offsets") << safetensorsBytes(one(R"({"dtype": "F32", "shape": [1]})"), 4)
                                         << QByteArray("\"data_offsets\"");
        QTest::newRow("offsets not matching shape")
            << safetensorsBytes(one(R"({"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 8]})"), 16)
            << QByteArray("span 8 bytes, but F32 [2,2] needs 16");
        QTest::newRow("offsets reversed")
            << safetensorsBytes(one(R"({"dtype": "U8", "shape": [0], "data_offsets": [8, 0]})"), 8)
            << QByteArray("[8,0]");
        QTest::newRow("negative shape entry")
            << safetensorsBytes(one(R"({"dtype": "F32", "shape": [-1, 4], "data_offsets": [0, 16]})"), 16)
            << QByteArray("entry -1");
        QTest::newRow("fractional shape entry")
            << safetensorsBytes(one(R"({"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]})"), 4)
            << QByteArray("entry 1.5");
        QTest::newRow("shape product overflows 64 bits")
            << safetensorsBytes(one(R"({"dtype": "U8", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]})"), 0)
            << QByteArray("more elements than 64 bits");
        QTest::newRow("bytes overflow 64 bits")
            << safetensorsBytes(one(R"({"dtype": "U64", "shape": [4611686018427387904], "data_offsets": [0, 0]})"), 0)
            << QByteArray("more than 2^64");
        QTest::newRow("data past the end (truncated download)") << safetensorsBytes(ok, 15)
                                                                << QByteArray("the file is truncated");
        QTest::newRow("metadata not strings")
            << safetensorsBytes(R"({"__metadata__": {"format": 1}})", 0) << QByteArray("\"__metadata__\"");
    }
    void malformed()
    {
        QFETCH(QByteArray, file);
        QFETCH(QByteArray, named);
        const Result<SafetensorsHeader> fromBytes = parseSafetensorsHeader(file.toStdString());
        QVERIFY(!fromBytes.ok());
        QCOMPARE(fromBytes.error().code, ErrorCode::MalformedSafetensors);
        QVERIFY2(fromBytes.error().detail.find(named.toStdString()) != std::string::npos,
                 fromBytes.error().detail.c_str());
        // The file reader gives the same verdict, prefixed with the path.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.safetensors"));
        QVERIFY(writeFile(path, file));
        const Result<SafetensorsHeader> fromFile = readSafetensorsHeader(path.toStdString());
        QVERIFY(!fromFile.ok());
        QCOMPARE(fromFile.error().code, ErrorCode::MalformedSafetensors);
        QVERIFY2(fromFile.error().detail.find(named.toStdString()) != std::string::npos, fromFile.error().detail.c_str());
        QVERIFY(fromFile.error().detail.find("bad.safetensors") != std::string::npos);
    }

    // The first bytes of a file, as a ranged download (engine/hub) has them:
    // the header end from the first 8, then the same tensors as the whole
    // file gives; the data offsets checked only against a known file size.
    void prefixOfAFile()
    {
        const QByteArray header = R"({"a": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]}})";
        const std::string file = safetensorsBytes(header, 12).toStdString();
        const std::string prefix = file.substr(0, 8 + std::size_t(header.size()));
        const Result<std::uint64_t> end = safetensorsHeaderEnd(file.substr(0, 8), file.size());
        QVERIFY(end.ok());
        QCOMPARE(end.value(), std::uint64_t(prefix.size()));
        const Result<SafetensorsHeader> known = parseSafetensorsPrefix(prefix, file.size());
        QVERIFY2(known.ok(), known.ok() ? "" : known.error().detail.c_str());
        QCOMPARE(known->tensors.size(), parseSafetensorsHeader(file)->tensors.size());
        QCOMPARE(known->tensors[0].elements, 6u);
        QVERIFY(parseSafetensorsPrefix(prefix, std::nullopt).ok());
        // A file 11 bytes short of its data: refused when its size is known.
        const Result<SafetensorsHeader> truncated = parseSafetensorsPrefix(prefix, prefix.size() + 1);
        QVERIFY(!truncated.ok());
        QCOMPARE(truncated.error().code, ErrorCode::MalformedSafetensors);
        // Fewer bytes than the header: said so, never read past them.
        QCOMPARE(parseSafetensorsPrefix(prefix.substr(0, 20), file.size()).error().code,
                 ErrorCode::MalformedSafetensors);
        QCOMPARE(safetensorsHeaderEnd("1234567", std::nullopt).error().code, ErrorCode::MalformedSafetensors);
    }

    void missingFile()
    {
        const Result<SafetensorsHeader> h = readSafetensorsHeader("/nonexistent/model.safetensors");
        QVERIFY(!h.ok());
        QCOMPARE(h.error().code, ErrorCode::FileNotFound);
    }

    void modelFolder()
    {
        QTemporaryDir root;
        const QString folder = root.filePath(QStringLiteral("tiny-llama"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(writeFile(folder + QStringLiteral("/config.json"), kTinyConfig));
        const std::string l = "model.layers.0.";
        // Shard 1: embedding 16*8 = 128, q 8*8 = 64, k and v 4*8 = 32 each,
        // o 64, input norm 8 (F32). 320 BF16 + 8 F32.
        Shard one;
        one.add("model.embed_tokens.weight", "BF16", {16, 8})
            .add(l + "self_attn.q_proj.weight", "BF16", {8, 8})
            .add(l + "self_attn.k_proj.weight", "BF16", {4, 8})
            .add(l + "self_attn.v_proj.weight", "BF16", {4, 8})
            .add(l + "self_attn.o_proj.weight", "BF16", {8, 8})
            .add(l + "input_layernorm.weight", "F32", {8});
        // Shard 2: gate, up 12*8 = 96 each, down 8*12 = 96, lm_head 128 (416
        // BF16); post-attention norm and final norm 8 + 8 (F32).
        Shard two;
        two.add(l + "mlp.gate_proj.weight", "BF16", {12, 8})
            .add(l + "mlp.up_proj.weight", "BF16", {12, 8})
            .add(l + "mlp.down_proj.weight", "BF16", {8, 12})
            .add(l + "post_attention_layernorm.weight", "F32", {8})
            .add("model.norm.weight", "F32", {8})
            .add("lm_head.weight", "BF16", {16, 8});
        QVERIFY(writeFile(folder + QStringLiteral("/model-00001-of-00002.safetensors"), one.bytes()));
        QVERIFY(writeFile(folder + QStringLiteral("/model-00002-of-00002.safetensors"), two.bytes()));
        QVERIFY(writeFile(folder + QStringLiteral("/model.safetensors.index.json"), "{}")); // not a shard

        const Result<ModelFolderInfo> info = importModelFolder(folder.toStdString());
        QVERIFY2(info.ok(), info.ok() ? "" : info.error().detail.c_str());
        QCOMPARE(info->shardCount, 2u);
        QCOMPARE(info->storedParameters, 760u); // 320 + 8 + 416 + 16
        QCOMPARE(info->elementsByDtype.size(), 2u);
        QCOMPARE(info->elementsByDtype.at("BF16"), 736u);
        QCOMPARE(info->elementsByDtype.at("F32"), 24u);
        QCOMPARE(info->spec.checkpointParameters, 760u);
        QCOMPARE(info->spec.checkpointDtype, std::string("BF16"));
        QCOMPARE(info->spec.origin, std::string("model-folder"));
        QCOMPARE(info->spec.id, std::string("tiny-llama"));
        // The stored tensors are exactly the table built from config.json.
        QCOMPARE(buildParameterTable(info->spec).totalElements(), info->storedParameters);
        // A trailing separator names the same folder.
        const Result<ModelFolderInfo> slash = importModelFolder((folder + QStringLiteral("/")).toStdString());
        QVERIFY(slash.ok());
        QCOMPARE(slash->spec.id, std::string("tiny-llama"));
    }

    void folderErrors()
    {
        QTemporaryDir root;
        const Result<ModelFolderInfo> missing = importModelFolder(root.filePath(QStringLiteral("nope")).toStdString());
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, ErrorCode::FileNotFound);

        const Result<ModelFolderInfo> noConfig = importModelFolder(root.path().toStdString());
        QVERIFY(!noConfig.ok());
        QCOMPARE(noConfig.error().code, ErrorCode::FileNotFound);
        QVERIFY(noConfig.error().detail.find("config.json") != std::string::npos);

        // Config only: imports, with nothing stored.
        QVERIFY(writeFile(root.filePath(QStringLiteral("config.json")), kTinyConfig));
        const Result<ModelFolderInfo> bare = importModelFolder(root.path().toStdString());
        QVERIFY(bare.ok());
        QCOMPARE(bare->shardCount, 0u);
        QCOMPARE(bare->storedParameters, 0u);
        QVERIFY(bare->spec.checkpointDtype.empty());

        // A broken shard fails the import and is named.
        QVERIFY(writeFile(root.filePath(QStringLiteral("broken.safetensors")), QByteArray("\x01", 1)));
        const Result<ModelFolderInfo> broken = importModelFolder(root.path().toStdString());
        QVERIFY(!broken.ok());
        QCOMPARE(broken.error().code, ErrorCode::MalformedSafetensors);
        QVERIFY(broken.error().detail.find("broken.safetensors") != std::string::npos);

        // A config.json error comes through with its own code.
        QVERIFY(writeFile(root.filePath(QStringLiteral("config.json")), R"({"model_type": "t5"})"));
        const Result<ModelFolderInfo> t5 = importModelFolder(root.path().toStdString());
        QVERIFY(!t5.ok());
        QCOMPARE(t5.error().code, ErrorCode::UnknownModelType);
    }
};

QTEST_APPLESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
