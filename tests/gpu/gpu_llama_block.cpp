// SPDX-License-Identifier: GPL-3.0-or-later
// A whole training step of a tiny one-layer Llama, on the GPU kernels and on
// the CPU reference kernels, compared: embedding -> RMSNorm -> q/k/v
// projections -> RoPE -> fused causal GQA attention -> o projection ->
// residual -> RMSNorm -> SwiGLU MLP -> residual -> final RMSNorm -> lm_head
// -> cross-entropy, the backward pass through all of it, and an AdamW step on
// every parameter. It checks that the kernels compose (layouts, strides,
// accumulation into gradients) the way a step program will use them; the
// step program itself is the runtime's (issue 4), which calls these kernels.
#include "gpu_test.h"

#include "cuda/attention.h"
#include "cuda/crossentropy.h"
#include "cuda/elementwise.h"
#include "cuda/embedding.h"
#include "cuda/gemm.h"
#include "cuda/norms.h"
#include "cuda/optimizers.h"
#include "cuda/rope.h"

#include "runtime/cpu/activations.h"
#include "runtime/cpu/adamw.h"
#include "runtime/cpu/crossentropy.h"
#include "runtime/cpu/embedding.h"
#include "runtime/cpu/flashattention.h"
#include "runtime/cpu/matmul.h"
#include "runtime/cpu/rmsnorm.h"
#include "runtime/cpu/rope.h"

#include <map>

namespace cu = headroom::cuda;
namespace cpu = headroom::cpu;
using gpu_test::DType;
using gpu_test::tolerance;

namespace {

// Sizes: B 2, T 24, C 64, 4 query heads and 2 KV heads of 16, MLP 96, vocabulary 101.
constexpr std::size_t B = 2, T = 24, C = 64, NH = 4, NKV = 2, HD = 16, I = 96, V = 101, N = B * T;
constexpr float kEps = 1e-5f; // both sides use this float's value
constexpr double kTheta = 10000.0;

struct ParamShape {
    const char* name;
    std::size_t rows, cols;
};
const ParamShape kParams[] = {
    {"wte", V, C}, {"ln1", 1, C}, {"wq", NH * HD, C}, {"wk", NKV * HD, C}, {"wv", NKV * HD, C},
    {"wo", C, NH * HD}, {"ln2", 1, C}, {"wg", I, C}, {"wu", I, C}, {"wd", C, I}, {"lnf", 1, C}, {"lm", V, C},
};

using Tensors = std::map<std::string, std::vector<double>>;

// The CPU step in double: returns the loss, fills grads (same names as params).
double cpuStep(const Tensors& p, const std::vector<std::int32_t>& tokens, const std::vector<std::int32_t>& targets,
               Tensors& grads)
{
    auto zeros = [](std::size_t n) { return std::vector<double>(n, 0.0); };
    const cpu::AttentionShape shape{B, T, NH, NKV, HD};
    const double scale = cpu::defaultAttentionScale(HD);
    std::vector<double> cosT(T * HD / 2), sinT(T * HD / 2);
    cpu::ropeTable<double>(cosT.data(), sinT.data(), T, HD, kTheta);

    auto x0 = zeros(N * C), h1 = zeros(N * C), r1 = zeros(N), q = zeros(N * NH * HD), k = zeros(N * NKV * HD);
    auto v = zeros(N * NKV * HD), att = zeros(N * NH * HD), lse = zeros(B * NH * T), o = zeros(N * C);
    cpu::embeddingForward<double>(x0.data(), tokens.data(), p.at("wte").data(), nullptr, B, T, C, V);
    cpu::rmsnormForward<double>(h1.data(), r1.data(), x0.data(), p.at("ln1").data(), N, C, kEps);
    cpu::matmulForward<double>(q.data(), h1.data(), p.at("wq").data(), nullptr, N, C, NH * HD);
    cpu::matmulForward<double>(k.data(), h1.data(), p.at("wk").data(), nullptr, N, C, NKV * HD);
    cpu::matmulForward<double>(v.data(), h1.data(), p.at("wv").data(), nullptr, N, C, NKV * HD);
    cpu::ropeForward<double>(q.data(), q.data(), cosT.data(), sinT.data(), B, T, NH, HD, HD);
    cpu::ropeForward<double>(k.data(), k.data(), cosT.data(), sinT.data(), B, T, NKV, HD, HD);
    cpu::flashAttentionForward<double>(att.data(), lse.data(), q.data(), k.data(), v.data(), shape, scale);
    cpu::matmulForward<double>(o.data(), att.data(), p.at("wo").data(), nullptr, N, NH * HD, C);
    auto x1 = x0;
    for (std::size_t i = 0; i < x1.size(); ++i)
        x1[i] += o[i];
    auto h2 = zeros(N * C), r2 = zeros(N), g = zeros(N * I), u = zeros(N * I), a = zeros(N * I), m = zeros(N * C);
    cpu::rmsnormForward<double>(h2.data(), r2.data(), x1.data(), p.at("ln2").data(), N, C, kEps);
    cpu::matmulForward<double>(g.data(), h2.data(), p.at("wg").data(), nullptr, N, C, I);
    cpu::matmulForward<double>(u.data(), h2.data(), p.at("wu").data(), nullptr, N, C, I);
    cpu::swigluForward<double>(a.data(), g.data(), u.data(), N * I);
    cpu::matmulForward<double>(m.data(), a.data(), p.at("wd").data(), nullptr, N, I, C);
    auto x2 = x1;
    for (std::size_t i = 0; i < x2.size(); ++i)
        x2[i] += m[i];
    auto h3 = zeros(N * C), r3 = zeros(N), logits = zeros(N * V), lseCe = zeros(N);
    cpu::rmsnormForward<double>(h3.data(), r3.data(), x2.data(), p.at("lnf").data(), N, C, kEps);
    cpu::matmulForward<double>(logits.data(), h3.data(), p.at("lm").data(), nullptr, N, C, V);
    const double loss = cpu::crossEntropyForward<double>(lseCe.data(), logits.data(), targets.data(), N, V);

    for (const ParamShape& s : kParams)
        grads[s.name] = zeros(s.rows * s.cols);
    auto dlogits = zeros(N * V), dh3 = zeros(N * C), dx2 = zeros(N * C);
    cpu::crossEntropyBackward<double>(dlogits.data(), logits.data(), lseCe.data(), targets.data(), N, V);
    cpu::matmulBackward<double>(dh3.data(), grads["lm"].data(), nullptr, dlogits.data(), h3.data(), p.at("lm").data(),
                                N, C, V);
    cpu::rmsnormBackward<double>(dx2.data(), grads["lnf"].data(), dh3.data(), x2.data(), p.at("lnf").data(),
                                 r3.data(), N, C);
    auto da = zeros(N * I), dg = zeros(N * I), du = zeros(N * I), dh2 = zeros(N * C);
    cpu::matmulBackward<double>(da.data(), grads["wd"].data(), nullptr, dx2.data(), a.data(), p.at("wd").data(), N, I,
                                C);
    cpu::swigluBackward<double>(dg.data(), du.data(), da.data(), g.data(), u.data(), N * I);
    cpu::matmulBackward<double>(dh2.data(), grads["wg"].data(), nullptr, dg.data(), h2.data(), p.at("wg").data(), N,
                                C, I);
    cpu::matmulBackward<double>(dh2.data(), grads["wu"].data(), nullptr, du.data(), h2.data(), p.at("wu").data(), N,
                                C, I);
    auto dx1 = dx2; // residual
    cpu::rmsnormBackward<double>(dx1.data(), grads["ln2"].data(), dh2.data(), x1.data(), p.at("ln2").data(),
                                 r2.data(), N, C);
    auto datt = zeros(N * NH * HD), dq = zeros(N * NH * HD), dk = zeros(N * NKV * HD), dv = zeros(N * NKV * HD);
    cpu::matmulBackward<double>(datt.data(), grads["wo"].data(), nullptr, dx1.data(), att.data(), p.at("wo").data(), N,
                                NH * HD, C);
    cpu::flashAttentionBackward<double>(dq.data(), dk.data(), dv.data(), datt.data(), att.data(), lse.data(), q.data(),
                                        k.data(), v.data(), shape, scale);
    auto dqPre = zeros(N * NH * HD), dkPre = zeros(N * NKV * HD), dh1 = zeros(N * C);
    cpu::ropeBackward<double>(dqPre.data(), dq.data(), cosT.data(), sinT.data(), B, T, NH, HD, HD);
    cpu::ropeBackward<double>(dkPre.data(), dk.data(), cosT.data(), sinT.data(), B, T, NKV, HD, HD);
    cpu::matmulBackward<double>(dh1.data(), grads["wq"].data(), nullptr, dqPre.data(), h1.data(), p.at("wq").data(), N,
                                C, NH * HD);
    cpu::matmulBackward<double>(dh1.data(), grads["wk"].data(), nullptr, dkPre.data(), h1.data(), p.at("wk").data(), N,
                                C, NKV * HD);
    cpu::matmulBackward<double>(dh1.data(), grads["wv"].data(), nullptr, dv.data(), h1.data(), p.at("wv").data(), N, C,
                                NKV * HD);
    auto dx0 = dx1;
    cpu::rmsnormBackward<double>(dx0.data(), grads["ln1"].data(), dh1.data(), x0.data(), p.at("ln1").data(),
                                 r1.data(), N, C);
    cpu::embeddingBackward<double>(grads["wte"].data(), nullptr, dx0.data(), tokens.data(), B, T, C, V);
    return loss;
}

class GpuStep {
public:
    GpuStep(gpu_test::Suite& s, DType dt) : m_s(s), m_dt(dt) {}

    gpu_test::DeviceBuffer& buf(const std::string& name, std::size_t n, DType dtype)
    {
        auto it = m_buffers.find(name);
        if (it == m_buffers.end())
            it = m_buffers.emplace(name, m_s.zeros(n * cu::dtypeSize(dtype))).first;
        return it->second;
    }
    void* act(const std::string& name, std::size_t n) { return buf(name, n, m_dt).data(); }
    float* f32(const std::string& name, std::size_t n) { return buf(name, n, DType::f32).as<float>(); }

    // Runs forward and backward; returns false on any failed call.
    bool run(const std::map<std::string, gpu_test::DeviceBuffer>& params, const std::int32_t* tokens,
             const std::int32_t* targets)
    {
        cu::Context& cx = *m_s.context;
        const DType dt = m_dt;
        auto P = [&](const char* n) { return params.at(n).data(); };
        const cu::AttentionDims dims{B, T, NH, NKV, HD};
        const float scale = static_cast<float>(cpu::defaultAttentionScale(HD));
        float* cosT = f32("cos", T * HD / 2);
        float* sinT = f32("sin", T * HD / 2);
        bool ok = m_s.ok(cu::ropeTable(cx, cosT, sinT, T, HD, kTheta), "rope table");
        auto call = [&](const cu::Status& st, const char* what) { ok = m_s.ok(st, what) && ok; };
        call(cu::embeddingForward(cx, dt, act("x0", N * C), tokens, P("wte"), nullptr, B, T, C, V), "embedding");
        call(cu::rmsnormForward(cx, dt, act("h1", N * C), f32("r1", N), act("x0", N * C), P("ln1"), N, C, kEps), "ln1");
        call(cu::linearForward(cx, dt, act("q", N * NH * HD), act("h1", N * C), P("wq"), nullptr, N, C, NH * HD), "q");
        call(cu::linearForward(cx, dt, act("k", N * NKV * HD), act("h1", N * C), P("wk"), nullptr, N, C, NKV * HD), "k");
        call(cu::linearForward(cx, dt, act("v", N * NKV * HD), act("h1", N * C), P("wv"), nullptr, N, C, NKV * HD), "v");
        call(cu::ropeForward(cx, dt, act("q", 0), act("q", 0), cosT, sinT, B, T, NH, HD, HD), "rope q");
        call(cu::ropeForward(cx, dt, act("k", 0), act("k", 0), cosT, sinT, B, T, NKV, HD, HD), "rope k");
        call(cu::flashAttentionForward(cx, dt, act("att", N * NH * HD), f32("lse", B * NH * T), act("q", 0),
                                       act("k", 0), act("v", 0), dims, scale),
             "attention");
        call(cu::linearForward(cx, dt, act("x1", N * C), act("att", 0), P("wo"), nullptr, N, NH * HD, C), "o");
        call(cu::addInPlace(cx, dt, act("x1", 0), act("x0", 0), N * C), "residual 1");
        call(cu::rmsnormForward(cx, dt, act("h2", N * C), f32("r2", N), act("x1", 0), P("ln2"), N, C, kEps), "ln2");
        call(cu::linearForward(cx, dt, act("g", N * I), act("h2", 0), P("wg"), nullptr, N, C, I), "gate");
        call(cu::linearForward(cx, dt, act("u", N * I), act("h2", 0), P("wu"), nullptr, N, C, I), "up");
        call(cu::swigluForward(cx, dt, act("a", N * I), act("g", 0), act("u", 0), N * I), "swiglu");
        call(cu::linearForward(cx, dt, act("x2", N * C), act("a", 0), P("wd"), nullptr, N, I, C), "down");
        call(cu::addInPlace(cx, dt, act("x2", 0), act("x1", 0), N * C), "residual 2");
        call(cu::rmsnormForward(cx, dt, act("h3", N * C), f32("r3", N), act("x2", 0), P("lnf"), N, C, kEps), "lnf");
        call(cu::linearForward(cx, dt, act("logits", N * V), act("h3", 0), P("lm"), nullptr, N, C, V), "lm_head");
        call(cu::crossEntropyForward(cx, dt, f32("lseCe", N), f32("rowLoss", N), act("logits", 0), targets, N, V),
             "loss");
        int* count = buf("count", 1, DType::f32).as<int>();
        call(cu::crossEntropyMean(cx, f32("loss", 1), count, f32("rowLoss", 0), targets, N), "loss mean");

        auto G = [&](const char* n) {
            for (const ParamShape& s : kParams)
                if (std::string(s.name) == n)
                    return f32(std::string("grad.") + n, s.rows * s.cols);
            return static_cast<float*>(nullptr);
        };
        call(cu::crossEntropyBackward(cx, dt, act("dlogits", N * V), act("logits", 0), f32("lseCe", 0), targets, count,
                                      N, V),
             "loss backward");
        call(cu::linearBackward(cx, dt, act("dh3", N * C), G("lm"), nullptr, act("dlogits", 0), act("h3", 0), P("lm"),
                                N, C, V),
             "lm_head backward");
        call(cu::rmsnormBackward(cx, dt, act("dx2", N * C), G("lnf"), act("dh3", 0), act("x2", 0), P("lnf"),
                                 f32("r3", 0), N, C),
             "lnf backward");
        call(cu::linearBackward(cx, dt, act("da", N * I), G("wd"), nullptr, act("dx2", 0), act("a", 0), P("wd"), N, I,
                                C),
             "down backward");
        call(cu::swigluBackward(cx, dt, act("dg", N * I), act("du", N * I), act("da", 0), act("g", 0), act("u", 0),
                                N * I),
             "swiglu backward");
        call(cu::linearBackward(cx, dt, act("dh2", N * C), G("wg"), nullptr, act("dg", 0), act("h2", 0), P("wg"), N, C,
                                I),
             "gate backward");
        call(cu::linearBackward(cx, dt, act("dh2", 0), G("wu"), nullptr, act("du", 0), act("h2", 0), P("wu"), N, C, I),
             "up backward");
        // dx1 = dx2 (residual) + the ln2 backward.
        call(cu::addInPlace(cx, dt, act("dx1", N * C), act("dx2", 0), N * C), "residual 2 backward");
        call(cu::rmsnormBackward(cx, dt, act("dx1", 0), G("ln2"), act("dh2", 0), act("x1", 0), P("ln2"), f32("r2", 0),
                                 N, C),
             "ln2 backward");
        call(cu::linearBackward(cx, dt, act("datt", N * NH * HD), G("wo"), nullptr, act("dx1", 0), act("att", 0),
                                P("wo"), N, NH * HD, C),
             "o backward");
        call(cu::flashAttentionBackward(cx, dt, act("dq", N * NH * HD), act("dk", N * NKV * HD), act("dv", N * NKV * HD),
                                        f32("delta", B * NH * T), act("datt", 0), act("att", 0), f32("lse", 0),
                                        act("q", 0), act("k", 0), act("v", 0), dims, scale),
             "attention backward");
        call(cu::ropeBackward(cx, dt, act("dqPre", N * NH * HD), act("dq", 0), cosT, sinT, B, T, NH, HD, HD),
             "rope q backward");
        call(cu::ropeBackward(cx, dt, act("dkPre", N * NKV * HD), act("dk", 0), cosT, sinT, B, T, NKV, HD, HD),
             "rope k backward");
        call(cu::linearBackward(cx, dt, act("dh1", N * C), G("wq"), nullptr, act("dqPre", 0), act("h1", 0), P("wq"), N,
                                C, NH * HD),
             "q backward");
        call(cu::linearBackward(cx, dt, act("dh1", 0), G("wk"), nullptr, act("dkPre", 0), act("h1", 0), P("wk"), N, C,
                                NKV * HD),
             "k backward");
        call(cu::linearBackward(cx, dt, act("dh1", 0), G("wv"), nullptr, act("dv", 0), act("h1", 0), P("wv"), N, C,
                                NKV * HD),
             "v backward");
        call(cu::addInPlace(cx, dt, act("dx0", N * C), act("dx1", 0), N * C), "residual 1 backward");
        call(cu::rmsnormBackward(cx, dt, act("dx0", 0), G("ln1"), act("dh1", 0), act("x0", 0), P("ln1"), f32("r1", 0),
                                 N, C),
             "ln1 backward");
        call(cu::embeddingBackward(cx, dt, G("wte"), nullptr, act("dx0", 0), tokens, B, T, C, V), "embedding backward");
        return ok;
    }

private:
    gpu_test::Suite& m_s;
    DType m_dt;
    std::map<std::string, gpu_test::DeviceBuffer> m_buffers;
};

void testStep(gpu_test::Suite& s, DType dt)
{
    const std::string tag = std::string(" [") + cu::dtypeName(dt) + "]";
    // fp32 master weights; the compute copy is the dtype's rounding of them.
    Tensors master, rounded;
    std::map<std::string, gpu_test::DeviceBuffer> deviceCompute, deviceMaster;
    for (const ParamShape& p : kParams) {
        const bool norm = p.rows == 1;
        std::vector<float> w = norm ? s.random(p.cols, 0.8f, 1.2f) : s.random(p.rows * p.cols, -0.15f, 0.15f);
        std::vector<float> r = w;
        for (float& x : r)
            x = cu::roundToDType(x, dt);
        master[p.name] = {w.begin(), w.end()};
        rounded[p.name] = {r.begin(), r.end()};
        deviceCompute.emplace(p.name, s.upload(r, dt));
        deviceMaster.emplace(p.name, s.upload(w, DType::f32));
    }
    std::uniform_int_distribution<std::int32_t> token(0, static_cast<std::int32_t>(V) - 1);
    std::vector<std::int32_t> tokens(N), targets(N);
    for (std::size_t i = 0; i < N; ++i)
        tokens[i] = token(s.rng);
    for (std::size_t i = 0; i < N; ++i) // next-token targets, the last of each row ignored (HF's shift)
        targets[i] = (i % T == T - 1) ? cpu::kIgnoreIndex : tokens[i + 1];
    auto dTokens = s.uploadRaw(tokens), dTargets = s.uploadRaw(targets);

    Tensors grads;
    const double loss = cpuStep(rounded, tokens, targets, grads);
    GpuStep step(s, dt);
    if (!step.run(deviceCompute, dTokens.as<std::int32_t>(), dTargets.as<std::int32_t>()))
        return;
    const float gpuLoss = s.download(step.buf("loss", 1, DType::f32), 1, DType::f32)[0];
    s.close("tiny Llama step: loss" + tag, {gpuLoss}, {static_cast<float>(loss)}, tolerance(dt, 0.5));
    // Every intermediate was rounded to the dtype on the GPU, none on the CPU:
    // the gradients' tolerance grows with the depth of the chain.
    for (const ParamShape& p : kParams) {
        const std::size_t n = p.rows * p.cols;
        const auto got = s.download(step.buf(std::string("grad.") + p.name, n, DType::f32), n, DType::f32);
        const std::vector<float> expected(grads[p.name].begin(), grads[p.name].end());
        s.close(std::string("tiny Llama step: grad ") + p.name + tag, got, expected,
                dt == DType::f32 ? tolerance(dt, 25) : tolerance(dt, 5));
    }
    // AdamW on the fp32 master weights with the GPU's gradients, both sides.
    const cpu::AdamWConfig c{1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f};
    const cu::AdamWConfig g{c.lr, c.beta1, c.beta2, c.eps, c.weightDecay};
    for (const ParamShape& p : kParams) {
        const std::size_t n = p.rows * p.cols;
        float* grad = step.buf(std::string("grad.") + p.name, n, DType::f32).as<float>();
        auto gradHost = s.download(step.buf(std::string("grad.") + p.name, n, DType::f32), n, DType::f32);
        std::vector<float> param(master[p.name].begin(), master[p.name].end()), m(n, 0.0f), v(n, 0.0f);
        cpu::adamwStep(param, gradHost, m, v, 1, c);
        auto dM = s.zeros(n * 4), dV = s.zeros(n * 4);
        s.ok(cu::adamwStep(*s.context, deviceMaster.at(p.name).as<float>(), grad, dM.as<float>(), dV.as<float>(), n, 1,
                           g),
             "adamw");
        s.close(std::string("tiny Llama step: AdamW ") + p.name + tag,
                s.download(deviceMaster.at(p.name), n, DType::f32), param, tolerance(DType::f32));
    }
}

} // namespace

int main()
{
    gpu_test::Suite suite;
    if (const int code = suite.start("gpu_llama_block"))
        return code;
    for (DType dt : gpu_test::allTypes())
        testStep(suite, dt);
    return suite.finish();
}
