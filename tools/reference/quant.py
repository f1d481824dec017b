# SPDX-License-Identifier: GPL-3.0-or-later
"""bitsandbytes 4-bit (NF4) linears, emulated for the meta device.

bitsandbytes has no meta kernels, so a QLoRA model is built the way
transformers + bitsandbytes + PEFT leave it, with stand-ins that allocate
what bitsandbytes allocates (bitsandbytes 0.4x, read from its sources):

- Storage (bitsandbytes/nn/modules.py Params4bit, functional.py
  quantize_4bit): the packed weight, uint8 of numel / 2 elements, shape
  (numel / 2, 1); the quantisation state: absmax per 64-element block in
  fp32, or with double quantisation (compress_statistics) absmax as uint8
  plus a nested state: fp32 absmax per 256 of those, its 256-entry fp32 code
  and an fp32 offset. The 16-entry NF4 code table is shared.
- Linear4bit.forward: x.to(compute_dtype), bnb.matmul_4bit(...), then
  .to(the input's dtype).
- MatMul4Bit.forward: dequantize_4bit(B) to the weight's original dtype
  (the model's dtype at loading, 16-bit as users load it), a linear with it,
  and saves only the packed weight for backward (ctx.tensors = (None, B));
  MatMul4Bit.backward dequantises again for grad_input.
- transformers quantises every nn.Linear but the output embedding
  (integrations/bitsandbytes.py replace_with_bnb_linear, get_keys_to_not_convert);
  PEFT's prepare_model_for_kbit_training casts every other parameter to fp32
  (peft/utils/other.py), which is how Headroom plans QLoRA.

Not emulated: PEFT's bnb LoRA layer clones the base output before adding the
adapters ("defensively clone", peft/tuners/lora/bnb.py); a transient.
"""

import torch
import torch.nn as nn

BLOCK = 64          # bnb quantize_4bit blocksize default
NESTED_BLOCK = 256  # quantize_blockwise blocksize for the nested absmax


class _MatMul4Bit(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, packed, out_features, in_features, weight_dtype):
        w = torch.empty((out_features, in_features), dtype=weight_dtype, device=x.device)  # dequantize_4bit
        if w.dtype != x.dtype:
            w = w.to(x.dtype)
        out = torch.nn.functional.linear(x, w)
        ctx.save_for_backward(packed)
        ctx.shape = (out_features, in_features, weight_dtype)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (packed,) = ctx.saved_tensors
        out_features, in_features, weight_dtype = ctx.shape
        grad_x = None
        if ctx.needs_input_grad[0]:
            w = torch.empty((out_features, in_features), dtype=weight_dtype, device=grad_out.device)
            grad_x = torch.matmul(grad_out, w.to(grad_out.dtype))
        return grad_x, None, None, None, None


class Linear4bit(nn.Linear):
    """A frozen NF4 linear as bitsandbytes stores and runs it."""

    def __init__(self, linear, compute_dtype, weight_dtype, double_quant):
        nn.Module.__init__(self)
        self.in_features, self.out_features = linear.in_features, linear.out_features
        n = self.in_features * self.out_features
        dev = linear.weight.device
        self.weight = nn.Parameter(torch.empty(((n + 1) // 2, 1), dtype=torch.uint8, device=dev), requires_grad=False)
        blocks = -(-n // BLOCK)
        if double_quant:
            self.register_buffer("absmax", torch.empty(blocks, dtype=torch.uint8, device=dev))
            self.register_buffer("absmax2", torch.empty(-(-blocks // NESTED_BLOCK), dtype=torch.float32, device=dev))
            self.register_buffer("code2", torch.empty(256, dtype=torch.float32, device=dev))
            self.register_buffer("offset", torch.empty((), dtype=torch.float32, device=dev))
        else:
            self.register_buffer("absmax", torch.empty(blocks, dtype=torch.float32, device=dev))
        self.bias = linear.bias
        if self.bias is not None:
            self.bias.requires_grad_(False)
        self.compute_dtype = compute_dtype
        self.weight_dtype = weight_dtype

    def forward(self, x):
        in_dtype = x.dtype
        x = x.to(self.compute_dtype)
        out = _MatMul4Bit.apply(x, self.weight, self.out_features, self.in_features, self.weight_dtype)
        if self.bias is not None:
            out = out + self.bias.to(self.compute_dtype)
        return out.to(in_dtype)


def quantize_model(model, compute_dtype=torch.bfloat16, weight_dtype=torch.bfloat16, double_quant=True):
    """Replaces every nn.Linear but the output embedding by a Linear4bit."""
    head = model.get_output_embeddings()
    targets = [(name, module) for name, module in model.named_modules()
               if type(module) is nn.Linear and module is not head]
    for name, module in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, Linear4bit(module, compute_dtype, weight_dtype, double_quant))
    for p in model.parameters():   # prepare_model_for_kbit_training: freeze, the rest in fp32
        p.requires_grad_(False)
    return len(targets)
