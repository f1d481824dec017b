# SPDX-License-Identifier: GPL-3.0-or-later
"""What a CUDA run does differently from the meta (or CPU) device.

Each emulation is a switch (Emulations fields) and cites the PyTorch source
it follows. They are applied by patching Python functions, never with a
TorchFunctionMode (that breaks checkpoint recompute).

- dropout:   CUDA dropout is aten::native_dropout, which keeps a 1-byte bool
             mask (aten/src/ATen/native/Dropout.cpp: is_fused_kernel_acceptable
             needs a CUDA tensor; elsewhere _dropout_impl keeps a noise tensor
             of the input's dtype).
- sdpa:      scaled_dot_product_attention picks its kernel as CUDA would
             (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp,
             select_sdp_backend, priority flash > efficient > math): flash for
             fp16/bf16 with no mask and q, k, v of one head_dim <= 256 (it
             handles grouped KV heads); memory-efficient for fp32, masked
             inputs or a value head dim unlike q's (DeepSeek's latent
             attention) without grouped KV heads; otherwise the math path.
             Flash and efficient save the output and the fp32 log-sum-exp,
             never the s x s matrix.
- attn_bwd_scratch: the flash backward's fp32 dq accumulator and softmax_d,
             and expanded dk/dv for grouped KV heads
             (aten/src/ATen/native/transformers/cuda/flash_attn/flash_api.cpp,
             mha_bwd); the efficient backward's fp32 delta
             (attention_backward.cu, _efficient_attention_backward).
- autocast:  torch.autocast('cuda') has no meta counterpart, so its cast
             policy is applied to the functions transformers calls
             (aten/src/ATen/autocast_mode.cpp: lower_precision_fp list for
             linear/matmul/bmm/baddbmm/addmm/sdpa, fp32 list for layer_norm,
             pow, rsqrt, exp, log, softplus, losses; fp32_set_opt_dtype for
             softmax/log_softmax; cached_cast caches the low-precision copy of
             a leaf that requires grad until the outermost autocast exits).
- foreach:   torch.optim defaults to the foreach implementation on CUDA
             (torch/optim/optimizer.py _default_to_fused_or_foreach); on meta
             it would pick the single-tensor loop, so foreach=True is passed.
- cublas_workspace: cuBLAS workspaces come from the caching allocator once
             per (handle, stream) (aten/src/ATen/cuda/CublasHandlePool.cpp,
             getChosenWorkspaceSize: 32 MiB on sm_90, 4 MiB + 8 x 16 KiB...
             below); the backward runs on autograd's device thread with its
             own handle, so training has two. Reported as its own line.
- grouped_mm: aten::_grouped_mm (transformers' default "grouped_mm" experts
             for mixture-of-experts layers) takes any float dtype on CUDA:
             bf16 runs the CUTLASS kernel, others fall back to one mm_out per
             group into one output (aten/src/ATen/native/cuda/GroupedBlas.cpp
             _grouped_mm_cuda, _grouped_mm_fallback). Its meta kernel
             (torch/_meta_registrations.py _meta_grouped_mm_common) accepts
             bf16 only, so fp32 (the experts of bf16-mixed training, where
             transformers casts the input to the fp32 weight) gets the same
             output shape as CUDA's fallback allocates.
"""

import contextlib
import dataclasses
import math
import sys

import torch
import torch.nn.functional as F

MiB = 1 << 20


@dataclasses.dataclass
class Emulations:
    dropout: bool = True
    sdpa: bool = True
    attn_bwd_scratch: bool = True
    autocast: bool = True
    foreach: bool = True
    cublas_workspace: bool = True
    grouped_mm: bool = True
    compute_major: int = 9          # sm_90 (H100/H200)

    def names(self):
        return [f.name for f in dataclasses.fields(self) if f.type == "bool" and getattr(self, f.name)]

    def cublas_workspace_bytes(self, training):
        if not self.cublas_workspace:
            return 0
        # CublasHandlePool.cpp getChosenWorkspaceSize: ":4096:8" (4096 KiB x 2
        # + 16 KiB x 8... read as 4096 KiB * 8 chunks) default 8 MiB + 128 KiB
        # before Hopper, 32 MiB on sm_90 and later.
        per = 32 * MiB if self.compute_major >= 9 else 8 * MiB + 128 * 1024
        return per * (2 if training else 1)

    # Called by tracker.TrackingMode before every aten op.
    def before_op(self, tracker, func, args, kwargs):
        if not self.attn_bwd_scratch:
            return
        packet = func.overloadpacket
        if packet is torch.ops.aten._scaled_dot_product_flash_attention_backward:
            q, k = args[1], args[2]
            b, h, s, d = q.shape
            hk = k.shape[1]
            s_round = (s + 127) // 128 * 128
            d_round = (d + 31) // 32 * 32 if d <= 192 else 256
            scratch = b * s_round * h * d_round * 4 + b * h * s_round * 4  # dq_accum, softmax_d (fp32)
            if hk != h:
                scratch += 2 * b * k.shape[2] * h * d * q.element_size()  # dk_expanded, dv_expanded
            tracker.transient(scratch, "flash_attention_backward scratch")
        elif packet is torch.ops.aten._scaled_dot_product_efficient_attention_backward:
            q = args[1]
            b, h, s, _d = q.shape
            tracker.transient(b * h * s * 4, "efficient_attention_backward delta")


# --- autocast -----------------------------------------------------------------

class _AutocastState:
    def __init__(self):
        self.stack = []           # (enabled, dtype)
        self.cache = {}
        self.default_dtype = torch.bfloat16

    @property
    def enabled(self):
        return bool(self.stack) and self.stack[-1][0]

    @property
    def dtype(self):
        return self.stack[-1][1] if self.stack else self.default_dtype


STATE = _AutocastState()


@contextlib.contextmanager
def autocast(enabled=True, dtype=None, cache_enabled=True):
    """The emulated torch.autocast('cuda') region."""
    STATE.stack.append((enabled, dtype or (STATE.stack[-1][1] if STATE.stack else STATE.default_dtype)))
    try:
        yield
    finally:
        STATE.stack.pop()
        if not STATE.stack:
            STATE.cache.clear()   # autocast_mode.cpp: clear_cache when nesting drops to zero


def _low(t):
    """cached_cast to the autocast dtype (autocast_mode.cpp cached_cast)."""
    if not isinstance(t, torch.Tensor) or t.dtype != torch.float32:
        return t
    cacheable = t.is_leaf and t.requires_grad
    if cacheable:
        hit = STATE.cache.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
    out = t.to(STATE.dtype)
    if cacheable:
        STATE.cache[id(t)] = (t, out)
    return out


def _fp32(t):
    if isinstance(t, torch.Tensor) and t.dtype in (torch.float16, torch.bfloat16):
        return t.float()
    return t


def _wrap_low(original):
    def wrapped(*args, **kwargs):
        if STATE.enabled:
            args = tuple(_low(a) for a in args)
            kwargs = {k: _low(v) for k, v in kwargs.items()}
        return original(*args, **kwargs)
    wrapped.__wrapped__ = original
    return wrapped


def _wrap_fp32(original):
    def wrapped(*args, **kwargs):
        if STATE.enabled:
            args = tuple(_fp32(a) for a in args)
            kwargs = {k: _fp32(v) for k, v in kwargs.items()}
        return original(*args, **kwargs)
    wrapped.__wrapped__ = original
    return wrapped


def _wrap_set_dtype(original):
    # fp32_set_opt_dtype: softmax/log_softmax without an explicit dtype run with
    # dtype=float32 (the kernel reads the low-precision input, writes fp32).
    def wrapped(input, *args, **kwargs):
        if STATE.enabled and kwargs.get("dtype") is None and len(args) < 2 and \
                isinstance(input, torch.Tensor) and input.dtype in (torch.float16, torch.bfloat16):
            kwargs["dtype"] = torch.float32
        return original(input, *args, **kwargs)
    wrapped.__wrapped__ = original
    return wrapped


# --- scaled_dot_product_attention as on CUDA ---------------------------------

def _sdpa_cuda(original):
    def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
        if STATE.enabled:
            query, key, value = _low(query), _low(key), _low(value)
        dt = query.dtype
        d = query.shape[-1]
        dv = value.shape[-1]
        grouped = key.shape[-3] != query.shape[-3]
        # sdp_utils.cpp check_head_dim_size_flash: q, k and v must have the
        # same last dimension (<= 256); check_head_dim_size_mem_efficient
        # only needs q and k equal, and q's and v's last dimensions aligned
        # (minimum_gemm_alignment: 8 for 16-bit, 4 for fp32 on sm_80+), so
        # multi-head latent attention (DeepSeek-V3: qk 192, v 128) runs the
        # memory-efficient kernel, whose output has v's head dim.
        same_dims = d == key.shape[-1] == dv
        align = 4 if dt == torch.float32 else 8
        if dt in (torch.float16, torch.bfloat16) and attn_mask is None and same_dims and d <= 256 and d % 8 == 0:
            out = torch.ops.aten._scaled_dot_product_flash_attention(
                query, key, value, dropout_p, is_causal, False, scale=scale)
            return out[0]
        if not grouped and d == key.shape[-1] and d % align == 0 and dv % align == 0:
            needs_grad = query.requires_grad or key.requires_grad or value.requires_grad
            if attn_mask is not None and attn_mask.dtype == torch.bool:
                # scaled_dot_product_attention (aten/src/ATen/native/transformers/
                # attention.cpp) first calls convert_boolean_attn_mask: where(
                # mask.logical_not(), -inf, 0) in the query's dtype, a new
                # tensor per call, which the memory-efficient kernel saves for
                # its backward (sliding-window layers, padded batches).
                attn_mask = torch.where(attn_mask.logical_not(),
                                        torch.tensor(float("-inf"), dtype=dt, device=query.device),
                                        torch.tensor(0.0, dtype=dt, device=query.device))
            out = torch.ops.aten._scaled_dot_product_efficient_attention(
                query, key, value, attn_mask, needs_grad, dropout_p, is_causal, scale=scale)
            return out[0]
        # Math path (sdp_utils.cpp falls back to it): the aten composite, which
        # repeats grouped KV heads and materialises the scores.
        if dropout_p > 0:
            return _sdpa_math_cuda(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
        return torch.ops.aten._scaled_dot_product_attention_math(
            query, key, value, attn_mask, dropout_p, is_causal, None, scale=scale, enable_gqa=enable_gqa)[0]
    sdpa.__wrapped__ = original
    return sdpa


def _sdpa_math_cuda(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """_scaled_dot_product_attention_math (aten/src/ATen/native/transformers/
    attention.cpp) op for op, except its at::dropout: on CUDA that is the fused
    native_dropout with a 1-byte mask (Dropout.cpp is_fused_kernel_acceptable),
    on meta/CPU a mask of the scores' dtype. Only called with dropout."""
    sf = math.sqrt(scale if scale is not None else 1.0 / math.sqrt(query.shape[-1]))
    q = query * sf
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    attn = torch.matmul(q, key.transpose(-2, -1) * sf)
    if is_causal:
        s, l = query.shape[-2], key.shape[-2]
        keep = torch.ones((s, l), dtype=torch.bool, device=query.device).tril()
        attn_mask = torch.zeros((s, l), dtype=query.dtype, device=query.device).masked_fill(~keep, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_mask = torch.zeros_like(attn_mask, dtype=query.dtype).masked_fill(~attn_mask, float("-inf"))
        attn = attn.add_(attn_mask)
    attn = torch.ops.aten._safe_softmax(attn, -1)
    attn = torch.native_dropout(attn, dropout_p, True)[0]
    return torch.matmul(attn, value)


def _dropout_cuda(original):
    def dropout(input, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return input
        return torch.native_dropout(input, p, True)[0]
    dropout.__wrapped__ = original
    return dropout


# --- installing the patches -----------------------------------------------------

_LOW = [(F, "linear"), (torch, "matmul"), (torch, "bmm"), (torch, "baddbmm"), (torch, "addmm"), (torch, "mm"),
        (torch.Tensor, "__matmul__"), (torch.Tensor, "matmul"), (torch.Tensor, "bmm")]
_FP32 = [(F, "layer_norm"), (torch, "pow"), (torch.Tensor, "pow"), (torch.Tensor, "__pow__"), (torch, "rsqrt"),
         (torch.Tensor, "rsqrt"), (torch, "exp"), (torch.Tensor, "exp"), (torch, "log"), (torch.Tensor, "log"),
         (F, "softplus"), (F, "cross_entropy"), (F, "nll_loss"), (F, "mse_loss")]
_SET_DTYPE = [(F, "softmax"), (F, "log_softmax"), (torch, "softmax"), (torch.Tensor, "softmax"),
              (torch, "log_softmax"), (torch.Tensor, "log_softmax")]


def _grouped_mm_any_dtype(original):
    def common(mat_a, mat_b, scale_a, scale_b, offs=None, bias=None, scale_result=None, out_dtype=None,
               use_fast_accum=False):
        if scale_a is not None or (mat_a.dtype == torch.bfloat16 and mat_b.dtype == torch.bfloat16):
            return original(mat_a, mat_b, scale_a, scale_b, offs, bias, scale_result, out_dtype, use_fast_accum)
        # GroupedBlas.cpp create_grouped_gemm_output_tensor: (2D, 3D) -> (S, N);
        # (2D, 2D) with offsets -> (groups, M, N), the weight gradient;
        # (3D, 2D) -> (S, N); (3D, 3D) -> batched (groups, M, N).
        a, b = mat_a, mat_b
        if a.dim() == 2 and b.dim() == 3:
            shape = (a.shape[0], b.shape[2])
        elif a.dim() == 2 and b.dim() == 2:
            shape = (offs.shape[0], a.shape[0], b.shape[1])
        elif a.dim() == 3 and b.dim() == 2:
            shape = (a.shape[1], b.shape[1])
        else:
            shape = (a.shape[0], a.shape[1], b.shape[2])
        return a.new_empty(shape, dtype=out_dtype or a.dtype)
    return common


class Patches:
    """Installs the emulations for the duration of a `with` block."""

    def __init__(self, emulations, autocast_dtype):
        self.em = emulations
        self.autocast_dtype = autocast_dtype
        self.saved = []

    def _set(self, owner, name, value):
        self.saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    def __enter__(self):
        em = self.em
        if em.autocast and self.autocast_dtype is not None:
            STATE.default_dtype = self.autocast_dtype
            for owner, name in _LOW:
                self._set(owner, name, _wrap_low(getattr(owner, name)))
            for owner, name in _FP32:
                self._set(owner, name, _wrap_fp32(getattr(owner, name)))
            for owner, name in _SET_DTYPE:
                self._set(owner, name, _wrap_set_dtype(getattr(owner, name)))
            self._patch_checkpoint_and_transformers()
        if em.sdpa:
            self._set(F, "scaled_dot_product_attention", _sdpa_cuda(F.scaled_dot_product_attention))
        if em.dropout:
            self._set(F, "dropout", _dropout_cuda(F.dropout))
        if em.grouped_mm:
            import torch._meta_registrations as meta
            self._set(meta, "_meta_grouped_mm_common", _grouped_mm_any_dtype(meta._meta_grouped_mm_common))
        return self

    def _patch_checkpoint_and_transformers(self):
        import torch.utils.checkpoint as ckpt

        # Checkpoint recompute re-enters the forward's autocast state
        # (torch/utils/checkpoint.py _get_autocast_kwargs, recompute_fn): for
        # 'meta' inputs it finds none, so hand it the emulated one.
        original_kwargs = ckpt._get_autocast_kwargs

        def get_kwargs(device_type="cuda"):
            if device_type == "meta":
                _dev, cpu = original_kwargs("cpu")
                return {"enabled": STATE.enabled, "dtype": STATE.dtype, "cache_enabled": True}, cpu
            return original_kwargs(device_type)
        self._set(ckpt, "_get_autocast_kwargs", get_kwargs)
        original_available = torch.amp.is_autocast_available
        self._set(torch.amp, "is_autocast_available",
                  lambda device_type: device_type == "meta" or original_available(device_type))
        original_autocast = torch.amp.autocast

        def amp_autocast(device_type, *args, **kwargs):
            if device_type == "meta":
                return autocast(kwargs.get("enabled", True), kwargs.get("dtype"))
            return original_autocast(device_type, *args, **kwargs)
        self._set(torch.amp, "autocast", amp_autocast)

        # transformers' maybe_autocast (utils/generic.py) returns a null context
        # on meta; the rotary embedding uses it to force fp32.
        import transformers.utils.generic as generic
        original_maybe = generic.maybe_autocast

        def maybe_autocast(device_type, dtype=None, enabled=True, cache_enabled=None):
            if device_type == "meta":
                return autocast(enabled, dtype)
            return original_maybe(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
        for module in list(sys.modules.values()):
            # vars(), not getattr: transformers' lazy modules import on attribute access.
            if module is not None and getattr(module, "__dict__", {}).get("maybe_autocast") is original_maybe:
                self._set(module, "maybe_autocast", maybe_autocast)

    def __exit__(self, *exc):
        for owner, name, value in reversed(self.saved):
            setattr(owner, name, value)
        self.saved.clear()
        return False


def attention_kernel_note(dtype, grouped, masked, head_dim, v_head_dim=None):
    """The kernel _sdpa_cuda picks, in words (for the report)."""
    same = v_head_dim is None or v_head_dim == head_dim
    if dtype in (torch.float16, torch.bfloat16) and not masked and head_dim <= 256 and same:
        return "flash"
    if not grouped:
        return "efficient"
    return "math"


def ceil_to(x, m):
    return int(math.ceil(x / m) * m)
