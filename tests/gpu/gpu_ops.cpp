// SPDX-License-Identifier: GPL-3.0-or-later
// Every call of the CUDA Ops (engine/cuda/cudaops.h) against the same call
// of the CPU Ops (runtime/cpu/cpuops.cpp) on the same random tensors, in the
// dtypes the step program gives them: activations in fp32, bf16 and fp16,
// fp32 master weights, statistics and gradients beside them, element
// offsets (At) where the program uses them. Where gpu_step says a whole step
// disagrees, this says which call.
#include "gpu_test.h"

#include "cuda/cudaops.h"
#include "cuda/devicestorage.h"
#include "runtime/cpu/nf4.h"
#include "runtime/ops.h"

#include <functional>

namespace rt = headroom::rt;
using rt::At;
using rt::Tensor;

namespace {

rt::DType hostType(gpu_test::DType d)
{
    switch (d) {
    case gpu_test::DType::f32: return rt::DType::F32;
    case gpu_test::DType::bf16: return rt::DType::BF16;
    case gpu_test::DType::f16: return rt::DType::F16;
    }
    return rt::DType::F32;
}

// One tensor on each side, filled with the same values.
struct Twin {
    Tensor cpu, gpu;
};

class Harness {
public:
    Harness(gpu_test::Suite& suite, const headroom::Scenario& scenario)
        : m_suite(suite), m_host(1), m_device(1), m_storage(*suite.context),
          m_cpuOps(rt::makeCpuOps()), m_gpuOps(headroom::cuda::makeCudaOps(*suite.context, scenario))
    {
        m_device.setStorage(&m_storage);
        m_host.beginEvent(0);
        m_device.beginEvent(0);
    }
    ~Harness()
    {
        m_twins.clear();
        m_host.endEvent();
        m_device.endEvent();
    }
    rt::Ops& cpu() { return *m_cpuOps; }
    rt::Ops& gpu() { return *m_gpuOps; }

    // n elements of dtype, random in [lo, hi] (rounded to the dtype) or zero.
    Twin& make(rt::DType dtype, std::size_t n, bool random = true, float lo = -1.0f, float hi = 1.0f)
    {
        auto twin = std::make_unique<Twin>();
        twin->cpu = rt::makeTensor(m_host, "t", headroom::Category::Temporaries, dtype, n);
        twin->gpu = rt::makeTensor(m_device, "t", headroom::Category::Temporaries, dtype, n);
        if (random && dtype != rt::DType::I32 && dtype != rt::DType::U8) {
            std::vector<float> v = m_suite.random(n, lo, hi);
            m_cpuOps->upload(twin->cpu, v);
            m_gpuOps->upload(twin->gpu, v);
        }
        m_twins.push_back(std::move(twin));
        return *m_twins.back();
    }
    Twin& tokens(std::size_t n, std::size_t vocab)
    {
        Twin& t = make(rt::DType::I32, n, false);
        std::vector<std::int32_t> v(n);
        for (auto& x : v)
            x = static_cast<std::int32_t>(m_suite.rng() % vocab);
        m_cpuOps->uploadRaw(t.cpu, v.data(), n * 4);
        m_gpuOps->uploadRaw(t.gpu, v.data(), n * 4);
        return t;
    }
    Twin& raw(rt::DType dtype, const std::vector<std::uint8_t>& bytes, std::size_t n)
    {
        Twin& t = make(dtype, n, false);
        m_cpuOps->uploadRaw(t.cpu, bytes.data(), bytes.size());
        m_gpuOps->uploadRaw(t.gpu, bytes.data(), bytes.size());
        return t;
    }
    void expect(const std::string& what, const Twin& t, double tol)
    {
        m_suite.close(what, m_gpuOps->download(t.gpu), m_cpuOps->download(t.cpu), tol);
    }
    // Runs one call on both sides: f(ops, side) with side 0 = CPU, 1 = GPU.
    void both(const std::function<void(rt::Ops&, int)>& f)
    {
        f(*m_cpuOps, 0);
        f(*m_gpuOps, 1);
    }

private:
    gpu_test::Suite& m_suite;
    rt::TrackingAllocator m_host, m_device;
    headroom::cuda::DeviceStorage m_storage;
    std::unique_ptr<rt::Ops> m_cpuOps, m_gpuOps;
    std::vector<std::unique_ptr<Twin>> m_twins;
};

const Tensor& side(const Twin& t, int s) { return s == 0 ? t.cpu : t.gpu; }

void activations(gpu_test::Suite& suite, gpu_test::DType dt)
{
    headroom::Scenario scenario;
    scenario.train.microBatch = 2;
    scenario.train.seqLen = 24;
    scenario.model.hidden = 64;
    scenario.model.intermediate = 96;
    scenario.model.heads = 4;
    scenario.model.kvHeads = 2;
    scenario.model.headDim = 16;
    scenario.train.peft.method = headroom::PeftMethod::Lora;
    scenario.train.peft.rank = 4;
    Harness h(suite, scenario);
    const std::string tag = std::string(" ") + headroom::cuda::dtypeName(dt);
    const rt::DType act = hostType(dt), f32 = rt::DType::F32;
    const double tol = gpu_test::tolerance(dt, 4.0);
    constexpr std::size_t B = 2, T = 24, N = B * T, C = 64, I = 96, V = 101, NH = 4, NKV = 2, HD = 16, R = 4;

    {   // upload/download round trip, cast, add, zero
        Twin& a = h.make(act, 1000);
        h.expect("upload/download" + tag, a, 0.0);
        Twin& w = h.make(f32, 1000);
        Twin& c = h.make(act, 1000, false);
        h.both([&](rt::Ops& o, int s) { o.cast(side(c, s), side(w, s)); });
        h.expect("cast" + tag, c, 0.0);
        h.both([&](rt::Ops& o, int s) { o.addInPlace(side(c, s), side(a, s), 1000); });
        h.expect("addInPlace" + tag, c, tol);
        h.both([&](rt::Ops& o, int s) { o.zero(At(side(c, s), 100), 200); });
        h.expect("zero at an offset" + tag, c, tol);
    }
    {   // embedding with fp32 tables (mixed precision) and learned positions
        Twin& tok = h.tokens(N, V);
        Twin& wte = h.make(f32, V * C);
        Twin& wpe = h.make(f32, T * C);
        Twin& out = h.make(act, N * C, false);
        h.both([&](rt::Ops& o, int s) { o.embeddingForward(side(out, s), side(tok, s), side(wte, s), side(wpe, s), B, T, C, V); });
        h.expect("embedding forward" + tag, out, tol);
        Twin& dwte = h.make(f32, V * C, false);
        Twin& dwpe = h.make(f32, T * C, false);
        Twin& dy = h.make(act, N * C);
        h.both([&](rt::Ops& o, int s) { o.embeddingBackward(side(dwte, s), side(dwpe, s), side(dy, s), side(tok, s), B, T, C, V); });
        h.expect("embedding backward wte" + tag, dwte, tol);
        h.expect("embedding backward wpe" + tag, dwpe, tol);
    }
    {   // norms with fp32 weights
        Twin& x = h.make(act, N * C);
        Twin& w = h.make(f32, C, true, 0.5f, 1.5f);
        Twin& b = h.make(f32, C);
        Twin& y = h.make(act, N * C, false);
        Twin& rstd = h.make(f32, N, false);
        h.both([&](rt::Ops& o, int s) { o.rmsnormForward(side(y, s), side(rstd, s), side(x, s), side(w, s), N, C, 1e-6); });
        h.expect("rmsnorm forward" + tag, y, tol);
        Twin& dy = h.make(act, N * C);
        Twin& dx = h.make(act, N * C, false);
        Twin& dw = h.make(f32, C, false);
        h.both([&](rt::Ops& o, int s) {
            o.rmsnormBackward(side(dx, s), side(dw, s), side(dy, s), side(x, s), side(w, s), side(rstd, s), N, C);
        });
        h.expect("rmsnorm backward dx" + tag, dx, tol);
        h.expect("rmsnorm backward dw" + tag, dw, tol);
        Twin& stats = h.make(f32, 2 * N, false);
        Twin& y2 = h.make(act, N * C, false);
        h.both([&](rt::Ops& o, int s) {
            o.layernormForward(side(y2, s), side(stats, s), side(x, s), side(w, s), side(b, s), N, C, 1e-5);
        });
        h.expect("layernorm forward" + tag, y2, tol);
        Twin& dx2 = h.make(act, N * C, false);
        Twin& dw2 = h.make(f32, C, false);
        Twin& db2 = h.make(f32, C, false);
        h.both([&](rt::Ops& o, int s) {
            o.layernormBackward(side(dx2, s), side(dw2, s), side(db2, s), side(dy, s), side(x, s), side(w, s),
                                side(stats, s), N, C);
        });
        h.expect("layernorm backward dx" + tag, dx2, tol);
        h.expect("layernorm backward dw" + tag, dw2, tol);
        h.expect("layernorm backward db" + tag, db2, tol);
    }
    {   // linear: a row block of a fused weight (GPT-2's c_attn) with an fp32 bias block
        Twin& x = h.make(act, N * C);
        Twin& w = h.make(act, 3 * C * C, true, -0.2f, 0.2f);
        Twin& b = h.make(f32, 3 * C);
        Twin& y = h.make(act, N * C, false);
        h.both([&](rt::Ops& o, int s) {
            o.matmulForward(side(y, s), side(x, s), At(side(w, s), C * C), At(side(b, s), C), N, C, C);
        });
        h.expect("matmul forward, row block + bias" + tag, y, tol);
        Twin& dy = h.make(act, N * C);
        Twin& dx = h.make(act, N * C);
        Twin& dw = h.make(f32, 3 * C * C);
        Twin& db = h.make(f32, 3 * C);
        h.both([&](rt::Ops& o, int s) {
            o.matmulBackward(side(dx, s), At(side(dw, s), C * C), At(side(db, s), C), side(dy, s), side(x, s),
                             At(side(w, s), C * C), N, C, C);
        });
        h.expect("matmul backward dx (accumulates)" + tag, dx, tol);
        h.expect("matmul backward dw block" + tag, dw, tol);
        h.expect("matmul backward db block" + tag, db, tol);
    }
    {   // RoPE in place and its backward
        Twin& cosT = h.make(f32, T * HD / 2, false);
        Twin& sinT = h.make(f32, T * HD / 2, false);
        h.both([&](rt::Ops& o, int s) { o.ropeTable(side(cosT, s), side(sinT, s), T, HD, 10000.0); });
        h.expect("rope table cos", cosT, 1e-6);
        Twin& q = h.make(act, N * NH * HD);
        h.both([&](rt::Ops& o, int s) { o.ropeForward(side(q, s), side(cosT, s), side(sinT, s), B, T, NH, HD, HD); });
        h.expect("rope forward in place" + tag, q, tol);
        Twin& dq = h.make(act, N * NH * HD, false);
        Twin& dy = h.make(act, N * NH * HD);
        h.both([&](rt::Ops& o, int s) { o.ropeBackward(side(dq, s), side(dy, s), side(cosT, s), side(sinT, s), B, T, NH, HD, HD); });
        h.expect("rope backward" + tag, dq, tol);
    }
    {   // attention, eager and fused, GQA
        const headroom::cpu::AttentionShape shape{B, T, NH, NKV, HD};
        const double scale = 0.25;
        Twin& q = h.make(act, N * NH * HD);
        Twin& k = h.make(act, N * NKV * HD);
        Twin& v = h.make(act, N * NKV * HD);
        Twin& dout = h.make(act, N * NH * HD);
        Twin& out = h.make(act, N * NH * HD, false);
        Twin& probs = h.make(act, B * NH * T * T, false);
        h.both([&](rt::Ops& o, int s) {
            o.attentionForward(side(out, s), side(probs, s), side(q, s), side(k, s), side(v, s), shape, scale);
        });
        h.expect("eager attention out" + tag, out, tol);
        h.expect("eager attention probs" + tag, probs, tol);
        Twin& dq = h.make(act, N * NH * HD, false);
        Twin& dk = h.make(act, N * NKV * HD, false);
        Twin& dv = h.make(act, N * NKV * HD, false);
        Twin& dprobs = h.make(act, B * NH * T * T, false);
        h.both([&](rt::Ops& o, int s) {
            o.attentionBackward(side(dq, s), side(dk, s), side(dv, s), side(dout, s), side(probs, s), side(q, s),
                                side(k, s), side(v, s), side(dprobs, s), shape, scale);
        });
        h.expect("eager attention dq" + tag, dq, 2 * tol);
        h.expect("eager attention dk" + tag, dk, 2 * tol);
        h.expect("eager attention dv" + tag, dv, 2 * tol);
        Twin& out2 = h.make(act, N * NH * HD, false);
        Twin& lse = h.make(f32, B * NH * T, false);
        h.both([&](rt::Ops& o, int s) {
            o.flashAttentionForward(side(out2, s), side(lse, s), side(q, s), side(k, s), side(v, s), shape, scale);
        });
        h.expect("fused attention out" + tag, out2, tol);
        h.expect("fused attention lse" + tag, lse, tol);
        Twin& fq = h.make(act, N * NH * HD, false);
        Twin& fk = h.make(act, N * NKV * HD, false);
        Twin& fv = h.make(act, N * NKV * HD, false);
        Twin& delta = h.make(f32, B * NH * T, false);
        h.both([&](rt::Ops& o, int s) {
            o.flashAttentionBackward(side(fq, s), side(fk, s), side(fv, s), side(dout, s), side(out2, s), side(lse, s),
                                     side(q, s), side(k, s), side(v, s), side(delta, s), shape, scale);
        });
        h.expect("fused attention dq" + tag, fq, 2 * tol);
        h.expect("fused attention dk" + tag, fk, 2 * tol);
        h.expect("fused attention dv" + tag, fv, 2 * tol);
    }
    {   // attention with dropout: eager keeps mask and dropped probabilities, fused draws the mask again
        headroom::cpu::AttentionShape shape{B, T, NH, NKV, HD};
        shape.dropout = 0.25f;
        shape.dropoutStream = 0x5eed;
        const double scale = 0.25;
        const std::size_t scores = B * NH * T * T;
        Twin& q = h.make(act, N * NH * HD);
        Twin& k = h.make(act, N * NKV * HD);
        Twin& v = h.make(act, N * NKV * HD);
        Twin& dout = h.make(act, N * NH * HD);
        Twin& out = h.make(act, N * NH * HD, false);
        Twin& probs = h.make(act, scores, false);
        Twin& mask = h.make(rt::DType::U8, scores, false);
        Twin& dropped = h.make(act, scores, false);
        h.both([&](rt::Ops& o, int s) {
            o.attentionForward(side(out, s), side(probs, s), side(q, s), side(k, s), side(v, s), shape, scale,
                               side(mask, s), side(dropped, s));
        });
        h.expect("eager attention dropout out" + tag, out, tol);
        h.expect("eager attention dropout dropped probabilities" + tag, dropped, tol);
        Twin& dq = h.make(act, N * NH * HD, false);
        Twin& dk = h.make(act, N * NKV * HD, false);
        Twin& dv = h.make(act, N * NKV * HD, false);
        Twin& dprobs = h.make(act, scores, false);
        h.both([&](rt::Ops& o, int s) {
            o.attentionBackward(side(dq, s), side(dk, s), side(dv, s), side(dout, s), side(probs, s), side(q, s),
                                side(k, s), side(v, s), side(dprobs, s), shape, scale, side(mask, s),
                                side(dropped, s));
        });
        h.expect("eager attention dropout dq" + tag, dq, 2 * tol);
        h.expect("eager attention dropout dk" + tag, dk, 2 * tol);
        h.expect("eager attention dropout dv" + tag, dv, 2 * tol);
        Twin& out2 = h.make(act, N * NH * HD, false);
        Twin& lse = h.make(f32, B * NH * T, false);
        h.both([&](rt::Ops& o, int s) {
            o.flashAttentionForward(side(out2, s), side(lse, s), side(q, s), side(k, s), side(v, s), shape, scale);
        });
        h.expect("fused attention dropout out" + tag, out2, tol);
        Twin& fq = h.make(act, N * NH * HD, false);
        Twin& fk = h.make(act, N * NKV * HD, false);
        Twin& fv = h.make(act, N * NKV * HD, false);
        Twin& delta = h.make(f32, B * NH * T, false);
        h.both([&](rt::Ops& o, int s) {
            o.flashAttentionBackward(side(fq, s), side(fk, s), side(fv, s), side(dout, s), side(out2, s), side(lse, s),
                                     side(q, s), side(k, s), side(v, s), side(delta, s), shape, scale);
        });
        h.expect("fused attention dropout dq" + tag, fq, 2 * tol);
        h.expect("fused attention dropout dk" + tag, fk, 2 * tol);
        h.expect("fused attention dropout dv" + tag, fv, 2 * tol);
    }
    {   // hidden dropout: the mask (seen through the values it leaves) and the backward through it
        Twin& x = h.make(act, N * C);
        Twin& mask = h.make(rt::DType::U8, N * C, false);
        h.both([&](rt::Ops& o, int s) { o.dropoutForward(side(x, s), side(mask, s), N * C, 0.1f, 0xd20b); });
        h.expect("dropout forward" + tag, x, tol);
        Twin& dy = h.make(act, N * C);
        Twin& dx = h.make(act, N * C, false);
        h.both([&](rt::Ops& o, int s) { o.dropoutBackward(side(dx, s), side(dy, s), side(mask, s), N * C, 0.1f); });
        h.expect("dropout backward" + tag, dx, tol);
        h.both([&](rt::Ops& o, int s) { o.dropoutBackward(side(dy, s), side(dy, s), side(mask, s), N * C, 0.1f); });
        h.expect("dropout backward in place" + tag, dy, tol);
    }
    {   // activations
        Twin& g = h.make(act, N * I, true, -3.0f, 3.0f);
        Twin& u = h.make(act, N * I);
        Twin& a = h.make(act, N * I, false);
        h.both([&](rt::Ops& o, int s) { o.swigluForward(side(a, s), side(g, s), side(u, s), N * I); });
        h.expect("swiglu forward" + tag, a, tol);
        Twin& dy = h.make(act, N * I);
        Twin& dg = h.make(act, N * I, false);
        Twin& du = h.make(act, N * I, false);
        h.both([&](rt::Ops& o, int s) { o.swigluBackward(side(dg, s), side(du, s), side(dy, s), side(g, s), side(u, s), N * I); });
        h.expect("swiglu backward dgate" + tag, dg, tol);
        h.expect("swiglu backward dup" + tag, du, tol);
        for (bool tanh : {false, true}) {
            Twin& y = h.make(act, N * I, false);
            Twin& dx = h.make(act, N * I, false);
            h.both([&](rt::Ops& o, int s) {
                o.geluForward(side(y, s), side(g, s), N * I, tanh);
                o.geluBackward(side(dx, s), side(dy, s), side(g, s), N * I, tanh);
            });
            h.expect(std::string(tanh ? "gelu tanh" : "gelu erf") + " forward" + tag, y, tol);
            h.expect(std::string(tanh ? "gelu tanh" : "gelu erf") + " backward" + tag, dx, tol);
        }
    }
    {   // BERT: the pooler's tanh (in place, backward from the output) and the token type row
        Twin& y = h.make(act, B * C, true, -3.0f, 3.0f);
        Twin& dy = h.make(act, B * C);
        Twin& dx = h.make(act, B * C, false);
        h.both([&](rt::Ops& o, int s) {
            o.tanhForward(side(y, s), side(y, s), B * C);
            o.tanhBackward(side(dx, s), side(dy, s), side(y, s), B * C);
        });
        h.expect("tanh forward in place" + tag, y, tol);
        h.expect("tanh backward" + tag, dx, tol);
        Twin& x = h.make(act, N * C);
        Twin& row = h.make(f32, C);
        Twin& drow = h.make(f32, C);
        h.both([&](rt::Ops& o, int s) {
            o.addRowToRows(side(x, s), side(row, s), N, C);
            o.sumRowsInto(side(drow, s), side(x, s), N, C);
        });
        h.expect("addRowToRows" + tag, x, tol);
        h.expect("sumRowsInto" + tag, drow, tol * double(N));
    }
    {   // LoRA on one linear: fp32 adapters, activations in the dtype
        Twin& x = h.make(act, N * C);
        Twin& A = h.make(f32, R * C, true, -0.1f, 0.1f);
        Twin& Bm = h.make(f32, I * R, true, -0.1f, 0.1f);
        Twin& saved = h.make(act, N * R, false);
        Twin& y = h.make(act, N * I);
        h.both([&](rt::Ops& o, int s) {
            o.loraForward(side(saved, s), side(y, s), side(x, s), side(A, s), side(Bm, s), N, C, R, I, 2.0f);
        });
        h.expect("lora forward saved" + tag, saved, tol);
        h.expect("lora forward y (adds)" + tag, y, tol);
        Twin& dy = h.make(act, N * I);
        Twin& dx = h.make(act, N * C);
        Twin& dA = h.make(f32, R * C, false);
        Twin& dB = h.make(f32, I * R, false);
        Twin& dSaved = h.make(act, N * R, false);
        h.both([&](rt::Ops& o, int s) {
            o.loraBackward(side(dx, s), side(dA, s), side(dB, s), side(dy, s), side(x, s), side(saved, s), side(A, s),
                           side(Bm, s), side(dSaved, s), N, C, R, I, 2.0f);
        });
        h.expect("lora backward dx (accumulates)" + tag, dx, 2 * tol);
        h.expect("lora backward dA" + tag, dA, 2 * tol);
        h.expect("lora backward dB" + tag, dB, 2 * tol);
    }
    {   // cross-entropy on a slice of rows (chunked loss)
        Twin& logits = h.make(act, N * V, true, -4.0f, 4.0f);
        Twin& targets = h.tokens(N, V);
        Twin& lse = h.make(f32, N, false);
        double losses[2] = {0, 0};
        h.both([&](rt::Ops& o, int s) {
            losses[s] = o.crossEntropyForward(At(side(lse, s), 10), At(side(logits, s), 10 * V),
                                              At(side(targets, s), 10), 20, V);
        });
        suite.close("cross-entropy mean loss of a slice" + tag, {float(losses[1])}, {float(losses[0])}, tol);
        h.expect("cross-entropy lse of a slice" + tag, lse, tol);
        Twin& dlogits = h.make(act, N * V, false);
        h.both([&](rt::Ops& o, int s) {
            o.crossEntropyBackward(At(side(dlogits, s), 10 * V), At(side(logits, s), 10 * V), At(side(lse, s), 10),
                                   At(side(targets, s), 10), 20, V, 0.5);
        });
        h.expect("cross-entropy backward of a slice" + tag, dlogits, tol);
    }
    {   // NF4, plain and double-quantized absmax, into the dtype
        const std::size_t n = 64 * 300;
        std::vector<float> w = suite.random(n, -0.05f, 0.05f);
        const std::size_t blocks = n / 64, blocks2 = (blocks + 255) / 256;
        std::vector<std::uint8_t> packed(n / 2), codes(blocks);
        std::vector<float> absmax(blocks), absmax2(blocks2);
        float offset = 0.0f;
        headroom::cpu::nf4Quantize(packed.data(), absmax.data(), w.data(), n);
        headroom::cpu::nf4DoubleQuantizeAbsmax(codes.data(), absmax2.data(), offset, absmax.data(), blocks);
        Twin& p = h.raw(rt::DType::U8, packed, n / 2);
        Twin& am = h.make(f32, blocks, false);
        Twin& codesT = h.raw(rt::DType::U8, codes, blocks);
        Twin& am2 = h.make(f32, blocks2, false);
        Twin& off = h.make(f32, 1, false);
        h.both([&](rt::Ops& o, int s) {
            o.upload(side(am, s), absmax);
            o.upload(side(am2, s), absmax2);
            o.upload(side(off, s), std::span<const float>(&offset, 1));
        });
        Twin& out = h.make(act, n, false);
        Twin& out2 = h.make(act, n, false);
        h.both([&](rt::Ops& o, int s) {
            o.nf4Dequantize(side(out, s), side(p, s), side(am, s), n);
            o.nf4DequantizeDouble(side(out2, s), side(p, s), side(codesT, s), side(am2, s), side(off, s), n);
        });
        h.expect("nf4 dequantize" + tag, out, tol);
        h.expect("nf4 dequantize, double quantization" + tag, out2, tol);
    }
}

void optimizers(gpu_test::Suite& suite)
{
    headroom::Scenario scenario;
    Harness h(suite, scenario);
    const rt::DType f32 = rt::DType::F32;
    const double tol = gpu_test::tolerance(gpu_test::DType::f32, 50.0);
    constexpr std::size_t rows = 48, cols = 100, n = rows * cols;
    auto run = [&](const char* name, const std::function<void(rt::Ops&, int, const Twin&, const Twin&)>& step) {
        Twin& w = h.make(f32, n);
        Twin& g = h.make(f32, n);
        for (std::int64_t i = 1; i <= 3; ++i)
            h.both([&](rt::Ops& o, int s) { step(o, s, w, g); });
        h.expect(std::string(name) + ": parameters after 3 steps", w, tol);
    };
    Twin& m = h.make(f32, n, false);
    run("SGD momentum", [&](rt::Ops& o, int s, const Twin& w, const Twin& g) {
        static std::int64_t step[2] = {0, 0};
        o.sgdStep(side(w, s), side(g, s), side(m, s), ++step[s], {1e-2f, 0.9f, 0.0f});
    });
    Twin& m2 = h.make(f32, n, false);
    Twin& v2 = h.make(f32, n, false);
    run("AdamW", [&](rt::Ops& o, int s, const Twin& w, const Twin& g) {
        static std::int64_t step[2] = {0, 0};
        o.adamwStep(side(w, s), side(g, s), side(m2, s), side(v2, s), ++step[s], headroom::cpu::AdamWConfig{1e-2f});
    });
    Twin& m3 = h.make(f32, n, false);
    run("Lion", [&](rt::Ops& o, int s, const Twin& w, const Twin& g) {
        o.lionStep(side(w, s), side(g, s), side(m3, s), headroom::cpu::LionConfig{1e-3f});
    });
    Twin& r = h.make(f32, rows, false);
    Twin& c = h.make(f32, cols, false);
    run("Adafactor factored", [&](rt::Ops& o, int s, const Twin& w, const Twin& g) {
        static std::int64_t step[2] = {0, 0};
        headroom::cpu::AdafactorConfig config;
        o.adafactorStepFactored(side(w, s), side(g, s), rows, cols, side(r, s), side(c, s), ++step[s], config);
    });
    const std::size_t blocks = (n + 255) / 256;
    Twin& c1 = h.make(rt::DType::U8, n, false);
    Twin& a1 = h.make(f32, blocks, false);
    Twin& c2 = h.make(rt::DType::U8, n, false);
    Twin& a2 = h.make(f32, blocks, false);
    h.both([&](rt::Ops& o, int s) { o.adamw8bitInit(side(c1, s), side(a1, s), side(c2, s), side(a2, s)); });
    run("AdamW 8-bit", [&](rt::Ops& o, int s, const Twin& w, const Twin& g) {
        static std::int64_t step[2] = {0, 0};
        o.adamw8bitStep(side(w, s), side(g, s), side(c1, s), side(a1, s), side(c2, s), side(a2, s), ++step[s],
                        headroom::cpu::AdamWConfig{1e-2f});
    });
    run("LOMO", [&](rt::Ops& o, int s, const Twin& w, const Twin& g) {
        headroom::cpu::LomoConfig config;
        config.lr = 1e-2f;
        o.lomoUpdate(side(w, s), side(g, s), config);
    });
    // Loss scaling: a clean gradient, then one with an inf.
    Twin& grad = h.make(f32, n, true, -1000.0f, 1000.0f);
    bool found[2][2] = {};
    float scale[2][2] = {};
    h.both([&](rt::Ops& o, int s) {
        o.startLossScaling({});
        o.unscale(side(grad, s));
        found[s][0] = o.finishUnscale();
        scale[s][0] = o.lossScale();
        const float inf = INFINITY;
        o.upload(At(side(grad, s), 7), std::span<const float>(&inf, 1));
        o.unscale(side(grad, s));
        found[s][1] = o.finishUnscale();
        scale[s][1] = o.lossScale();
    });
    suite.expect(found[0][0] == found[1][0] && found[0][1] == found[1][1] && found[1][1],
                 "loss scaling: found-inf as the CPU (clean step, then an overflow)");
    suite.expect(scale[0][0] == scale[1][0] && scale[0][1] == scale[1][1], "loss scaling: the same scale after each step");
}

} // namespace

int main()
{
    gpu_test::Suite suite;
    if (int code = suite.start("gpu_ops"); code != 0)
        return code;
    try {
        for (gpu_test::DType dt : gpu_test::allTypes())
            activations(suite, dt);
        optimizers(suite);
    } catch (const std::exception& e) {
        std::printf("FAIL gpu_ops: %s\n", e.what());
        ++suite.failures;
    }
    return suite.finish();
}
