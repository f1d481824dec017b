# SPDX-License-Identifier: GPL-3.0-or-later
"""What PyTorch allocates in real training steps of a Hugging Face model,
counted on the meta device (no GPU, no weights).

Reference tooling for Headroom (tools/reference/README.md); Headroom itself
never runs Python.

Input is a Headroom scenario (headroom.scenario/1) whose model is an inline
config.json ({"model": {"config": {...}, "id": ...}}). The model is built by
transformers from that config on the meta device, wrapped by PEFT when the
scenario asks for LoRA, and trained for `steps` optimizer steps (each with
grad_accum micro-batches: forward, loss, backward; then optimizer.step and
zero_grad) while tracker.py counts every storage. emulate.py makes the meta
run allocate what a CUDA run would (its docstring lists each switch and the
PyTorch source it follows).

The result per step is what torch.cuda.max_memory_allocated() would read
after torch.cuda.reset_peak_memory_stats() at the step's start, with the
phase, layer and op at that peak and the bytes per category alive then.
"""

import contextlib
import copy
import logging

import torch

import emulate
from tracker import Tracker, TrackingMode

# Headroom's phases (engine/plan/plan.h Phase), by the names the reference
# file uses.
PHASES = ("load", "embed_fwd", "layer_fwd", "head_fwd", "loss_fwd", "loss_bwd", "head_bwd", "layer_bwd",
          "embed_bwd", "optimizer_step")

_FINAL_NORMS = ("norm", "ln_f", "final_layer_norm", "final_layernorm", "final_norm")

GPU_COMPUTE_MAJOR = {"h100-sxm-80gb": 9, "h100-pcie-80gb": 9, "h100-nvl-94gb": 9, "h200-141gb": 9,
                     "a100-40gb": 8, "a100-80gb": 8, "rtx-4090": 8, "rtx-3090": 8, "l4-24gb": 8, "t4-16gb": 7,
                     "v100-16gb": 7, "v100-32gb": 7}


class ScenarioError(ValueError):
    pass


@contextlib.contextmanager
def meta_stubs():
    """Stubs for transformers helpers that read tensor values, which the meta
    device has not. Each returns what it returns on a GPU for the inputs the
    accountant feeds (no padding, one unpacked sequence per row). On a GPU
    they allocate a few B x S int64 temporaries during the embedding phase,
    which the stub leaves out."""
    import transformers.masking_utils as mu
    saved = []
    original = mu.find_packed_sequence_indices

    def find_packed(position_ids):
        # masking_utils.find_packed_sequence_indices: None when position_ids
        # restart nowhere (one sequence per row), as arange positions do.
        if position_ids is not None and position_ids.device.type == "meta":
            return None
        return original(position_ids)
    saved.append((mu, "find_packed_sequence_indices", original))
    mu.find_packed_sequence_indices = find_packed
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


# The model node's "head" (engine/io/scenariofile.cpp): the class Headroom
# plans for it, by model_type. Only BERT has a second head today.
_HEAD_CLASSES = {("bert", "sequence-classification"): "BertForSequenceClassification"}


def _head_class(model_node, cfg):
    """The class a scenario's head (or its config.json's architectures) names,
    or None for the family's language-model head."""
    head = model_node.get("head")
    if head is None:
        archs = cfg.get("architectures") or []
        if archs and archs[0].endswith("ForSequenceClassification"):
            head = "sequence-classification"
    if head in (None, "language-model"):
        return None
    cls = _HEAD_CLASSES.get((cfg.get("model_type"), head))
    if cls is None:
        raise ScenarioError(f"head {head} is not built for model_type {cfg.get('model_type')}")
    return cls


def _model_class(config, hf_class):
    import transformers
    if hf_class:
        cls = getattr(transformers, hf_class, None)
        if cls is None:
            raise ScenarioError(f"transformers has no class {hf_class}")
        return cls
    if config.model_type == "bert":
        return transformers.BertForMaskedLM
    return transformers.AutoModelForCausalLM


def build_model(scenario, device="meta"):
    """The model as a user's script would have it before the first step."""
    import transformers

    model_node = scenario["model"]
    if "config" not in model_node:
        raise ScenarioError("the accountant needs an inline config.json (model.config)")
    cfg = dict(model_node["config"])
    hf_class = model_node.get("hf_class") or scenario.get("reference", {}).get("hf_class") \
        or _head_class(model_node, cfg)
    if "num_labels" in model_node:
        # PretrainedConfig(num_labels=N) makes id2label of N entries (default 2).
        cfg.pop("id2label", None)
        cfg.pop("label2id", None)
        cfg["num_labels"] = int(model_node["num_labels"])
    train = scenario.get("train", {})
    attention = train.get("attention", "sdpa")
    model_type = cfg.pop("model_type")
    cfg.pop("architectures", None)
    cfg.pop("torch_dtype", None)
    cfg.pop("dtype", None)
    config = transformers.AutoConfig.for_model(model_type, **cfg)
    if "use_cache" in train:
        config.use_cache = bool(train["use_cache"])
    precision = train.get("precision", "bf16-mixed")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision, torch.float32)
    peft = train.get("peft", {})
    quant = train.get("weight_quant", "nf4" if peft.get("method") == "qlora" else "none")
    if quant != "none":
        # QLoRA: bitsandbytes NF4 linears (quant.py); everything else fp32 after
        # peft's prepare_model_for_kbit_training. Autocast computes in 16-bit.
        if quant not in ("nf4", "nf4-dq"):
            raise ScenarioError(f"weight_quant {quant} is not emulated by the accountant (nf4 and nf4-dq are)")
        dtype = torch.float32
    elif peft.get("method", "none") != "none" and precision in ("bf16-mixed", "fp16-mixed"):
        # LoRA users load the frozen base in 16-bit (from_pretrained(dtype=...)) and
        # train under autocast; PEFT keeps the adapters in fp32
        # (get_peft_model autocast_adapter_dtype=True). Headroom plans the same.
        dtype = torch.bfloat16 if precision == "bf16-mixed" else torch.float16
    cls = _model_class(config, hf_class)
    with torch.device(device):
        if cls is transformers.AutoModelForCausalLM:
            model = cls.from_config(config, attn_implementation=attention, dtype=dtype)
        else:
            config._attn_implementation = attention
            model = cls(config).to(dtype)
    if quant != "none":
        import quant as bnb_emulation
        compute = torch.float16 if precision == "fp16-mixed" else torch.bfloat16
        bnb_emulation.quantize_model(model, compute_dtype=compute, weight_dtype=compute,
                                     double_quant=quant == "nf4-dq")
    if peft.get("method", "none") != "none":
        model = _apply_lora(model, peft)
    checkpointing = train.get("checkpointing", "none")
    if checkpointing == "full":
        model.gradient_checkpointing_enable()   # transformers' default: use_reentrant=False
    elif checkpointing == "selective-op":
        # transformers hands these kwargs to torch.utils.checkpoint.checkpoint
        # for every decoder layer (modeling_utils.py gradient_checkpointing_enable:
        # functools.partial(checkpoint, **kwargs)); checkpoint calls context_fn
        # once per call, so each layer's forward gets its own mm counter.
        model.gradient_checkpointing_enable(
            gradient_checkpointing_kwargs={"use_reentrant": False, "context_fn": op_sac_context})
    elif checkpointing != "none":
        raise ScenarioError(f"checkpointing {checkpointing} is not emulated by the accountant")
    model.train()
    return model


# --- torchtitan's op-level selective activation checkpointing -----------------
# torchtitan (parallelisms/parallelize_llama.py, _apply_ac_to_transformer_block,
# selective_ac_option "op"): each transformer block runs under non-reentrant
# torch.utils.checkpoint whose policy keeps the outputs of the ops below and
# recomputes the rest, except that only every other aten.mm is kept (the 1st,
# 3rd, 5th... of the block's forward, counted afresh for the recompute).
# Bias linears lower to aten.addmm, which is not in the list and not counted.

def _sac_save_ops():
    ops = {torch.ops.aten.mm.default,
           torch.ops.aten._scaled_dot_product_efficient_attention.default,
           torch.ops.aten._scaled_dot_product_flash_attention.default,
           torch.ops.aten.abs.default,
           torch.ops.aten.max.default}
    # The reduce-scatter of tensor parallelism (never reached in one-GPU runs).
    functional = getattr(torch.ops, "_c10d_functional", None)
    if functional is not None and hasattr(functional, "reduce_scatter_tensor"):
        ops.add(functional.reduce_scatter_tensor.default)
    return frozenset(ops)


SAC_SAVE_OPS = _sac_save_ops()

# A list to append (is_recompute, op, saved) to for every decision the policy
# makes (check_cpu.py reads it); None: no record.
SAC_POLICY_LOG = None


def op_sac_context():
    """The context_fn handed to torch.utils.checkpoint for one block's call:
    a fresh pair of mm counters (forward, recompute) and the policy."""
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
    mm_calls = {False: 0, True: 0}

    def policy(ctx, func, *args, **kwargs):
        if func == torch.ops.aten.mm.default:
            mm_calls[ctx.is_recompute] += 1
            keep = mm_calls[ctx.is_recompute] % 2 == 1
        else:
            keep = func in SAC_SAVE_OPS
        if SAC_POLICY_LOG is not None:
            SAC_POLICY_LOG.append((ctx.is_recompute, func, keep))
        return CheckpointPolicy.MUST_SAVE if keep else CheckpointPolicy.PREFER_RECOMPUTE

    return create_selective_checkpoint_contexts(policy)


def _apply_lora(model, peft):
    from peft import LoraConfig, get_peft_model
    targets = peft.get("targets") or None
    if targets == ["all-linear"]:
        targets = "all-linear"
    config = LoraConfig(r=int(peft.get("rank", 16)), lora_alpha=float(peft.get("alpha", 32)),
                        lora_dropout=float(peft.get("dropout", 0.0)), target_modules=targets,
                        task_type=None)
    return get_peft_model(model, config)


def _bnb_adamw_8bit(model, params, loop, paged=False):
    """bitsandbytes' 8-bit AdamW itself (its Python runs on the meta device:
    the update is a registered op with a fake kernel, in place, so nothing is
    emulated). What Trainer builds for optim="adamw_bnb_8bit"
    (transformers trainer_optimizer.py _get_bitsandbytes_optimizer:
    bitsandbytes.optim.AdamW with optim_bits=8), and Trainer.create_optimizer
    registers every nn.Embedding's weight for 32-bit state
    (GlobalOptimManager.register_module_override). A hand-written loop builds
    the optimizer itself: no override, 8-bit state for the embeddings too.
    Paged (optim="paged_adamw_8bit"): see _emulate_paged_buffers."""
    import bitsandbytes as bnb
    if paged:
        _emulate_paged_buffers()
    manager = bnb.optim.GlobalOptimManager.get_instance()
    manager.initialize()   # a singleton: forget overrides of an earlier case in this process
    if loop == "trainer":
        for module in model.modules():
            if isinstance(module, torch.nn.Embedding):
                manager.register_module_override(module, "weight", {"optim_bits": 32})
    return bnb.optim.AdamW(params, lr=1e-5, optim_bits=8, is_paged=paged)


def _emulate_paged_buffers():
    """Paged optimizers keep each state of 1e5 elements or more in CUDA
    managed memory (bitsandbytes optim/optimizer.py get_state_buffer,
    functional.py get_paged: cudaMallocManaged), which the caching allocator
    never sees, so max_memory_allocated does not count it. On the meta device
    the buffer is made with the tracking mode off; fill and prefetch, which
    act on managed memory, do nothing here."""
    import bitsandbytes.functional as F
    from torch.utils._python_dispatch import _disable_current_modes

    def get_paged(*shape, dtype=torch.float32, device=None):
        with _disable_current_modes():
            buffer = torch.empty(shape, dtype=dtype, device="meta")
        buffer.is_paged = True
        return buffer

    F.get_paged = get_paged
    F.fill = lambda tensor, value: None
    F.prefetch_tensor = lambda tensor, to_cpu=False: None


def _make_optimizer(params, name, em, model=None, loop="trainer"):
    if name in ("adamw-8bit", "paged-adamw-8bit"):
        return _bnb_adamw_8bit(model, params, loop, paged=name == "paged-adamw-8bit")
    kwargs = {"foreach": True} if em.foreach else {}
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-5, **kwargs)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-5, **kwargs)
    if name == "sgd-momentum":
        return torch.optim.SGD(params, lr=1e-5, momentum=0.9, **kwargs)
    if name == "adafactor":
        # What Trainer builds for optim="adafactor" (transformers trainer.py
        # get_optimizer_cls_and_kwargs: scale_parameter=False, relative_step=False).
        from transformers.optimization import Adafactor
        return Adafactor(params, lr=1e-3, scale_parameter=False, relative_step=False)
    raise ScenarioError(f"optimizer {name} is not emulated by the accountant")


def _find_layers(model):
    """The ModuleList of transformer layers and the module that holds it."""
    best = None
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) > 0:
            first = module[0]
            if sum(1 for _ in first.parameters()) >= 4 and (best is None or len(module) > len(best[1])):
                best = (name, module)
    if best is None:
        raise ScenarioError("no layer list found in the model")
    name, layers = best
    parent = model.get_submodule(name.rsplit(".", 1)[0]) if "." in name else model
    return parent, layers


class PhaseHooks:
    """Moves tracker.phase/layer along the step with module and tensor hooks.

    Forward: the base model's pre-hook starts the embedding phase, each
    layer's pre-hook its layer, the final norm (or the head) the head phase,
    the head's post-hook the loss. Backward: the gradient of the head's
    output starts the head's backward; the gradient of a layer's input ends
    that layer's backward (the next one down starts). Hooks do nothing while
    backward runs, so checkpoint recompute keeps the backward label.
    """

    def __init__(self, model, tracker):
        self.tracker = tracker
        self.in_backward = False
        self.handles = []
        base, layers = _find_layers(model)
        self.layers = layers
        self.n_layers = len(layers)
        self.handles.append(base.register_forward_pre_hook(self._enter("embed_fwd", -1)))
        for i, layer in enumerate(layers):
            self.handles.append(layer.register_forward_pre_hook(self._layer_pre(i), with_kwargs=True))
        norm = next((getattr(base, n) for n in _FINAL_NORMS if isinstance(getattr(base, n, None), torch.nn.Module)),
                    None)
        head = self._head(model)
        self.handles.append(head.register_forward_hook(self._head_post))
        # BertForSequenceClassification: BertModel's pooler (dense + tanh on the
        # first token, modeling_bert.py BertPooler) runs before the classifier
        # and is part of the head, as Headroom plans it.
        pooler = next((m for n, m in model.named_modules() if n.split(".")[-1] == "pooler"), None)
        first_head = norm if norm is not None else pooler if pooler is not None else head
        self.handles.append(first_head.register_forward_pre_hook(self._head_pre, with_kwargs=True))
        self.head = head

    @staticmethod
    def _head(model):
        for name in ("lm_head", "embed_out", "classifier", "score", "cls"):
            for mod_name, module in model.named_modules():
                if mod_name.split(".")[-1] == name and not isinstance(module, torch.nn.ModuleDict):
                    # PEFT wraps a targeted head in a LoRA layer: take the wrapper.
                    return module
        out = model.get_output_embeddings()
        if out is None:
            raise ScenarioError("no head module found")
        return out

    def _enter(self, phase, layer):
        def hook(_module, _args):
            if not self.in_backward:
                self.tracker.phase, self.tracker.layer = phase, layer
        return hook

    def _hidden(self, args, kwargs):
        if args and isinstance(args[0], torch.Tensor):
            return args[0]
        return kwargs.get("hidden_states")

    def _layer_pre(self, i):
        def hook(_module, args, kwargs):
            if self.in_backward:
                return
            self.tracker.phase, self.tracker.layer = "layer_fwd", i
            h = self._hidden(args, kwargs)
            if isinstance(h, torch.Tensor) and h.requires_grad:
                below = ("layer_bwd", i - 1) if i > 0 else ("embed_bwd", -1)
                h.register_hook(self._grad_sets(*below))
        return hook

    def _head_pre(self, _module, args, kwargs):
        if self.in_backward:
            return
        self.tracker.phase, self.tracker.layer = "head_fwd", -1
        h = self._hidden(args, kwargs)
        if isinstance(h, torch.Tensor) and h.requires_grad:
            h.register_hook(self._grad_sets("layer_bwd", self.n_layers - 1))

    def _head_post(self, _module, _args, out):
        if self.in_backward:
            return
        self.tracker.phase, self.tracker.layer = "loss_fwd", -1
        if isinstance(out, torch.Tensor) and out.requires_grad:
            out.register_hook(self._grad_sets("head_bwd", -1))

    def _grad_sets(self, phase, layer):
        def hook(grad):
            self.tracker.phase, self.tracker.layer = phase, layer
            return None
        return hook


def _inputs(model, train, device, vocab):
    b, s = int(train.get("micro_batch", 1)), int(train.get("seq_len", 2048))
    ids = torch.zeros((b, s), dtype=torch.long, device=device)
    if device != "meta":
        ids = torch.randint(0, vocab, (b, s), device=device)
    name = type(model.get_base_model() if hasattr(model, "get_base_model") else model).__name__
    if name.endswith("ForSequenceClassification"):
        # One class id per sequence; with num_labels == 1 transformers regresses
        # (MSELoss) and the label is a float (modeling_bert.py
        # BertForSequenceClassification.forward).
        regression = getattr(model.config, "num_labels", 2) == 1
        labels = torch.zeros((b,), dtype=torch.float32 if regression else torch.long, device=device)
    else:
        labels = ids.clone()
    return {"input_ids": ids, "labels": labels}


@contextlib.contextmanager
def _checkpoint_device(device):
    """torch.utils.checkpoint takes its device from the non-CPU tensors it is
    given (checkpoint.py _infer_device_type); with CPU tensors only (the
    check_cpu.py runs) it falls back to DefaultDeviceType, 'cuda', whose
    autocast state the emulated autocast does not set, so a bf16-mixed
    recompute would run without it. Point the fallback at 'meta', the device
    the emulation answers for, while a CPU run lasts. Meta runs are untouched."""
    if device != "cpu":
        yield
        return
    from torch.utils.checkpoint import DefaultDeviceType
    saved = DefaultDeviceType.get_device_type()
    DefaultDeviceType.set_device_type("meta")
    try:
        yield
    finally:
        DefaultDeviceType.set_device_type(saved)


def run(scenario, steps=2, em=None, keep_events=False, device="meta", events_out=None, snapshot_at=None):
    """Trains the scenario's model for `steps` steps; returns the report.

    snapshot_at=(step, bytes) keeps the live set at the moment that step's
    peak reaches those bytes (a second run with the first run's peak), as
    report["snapshot"]: what is alive at the peak, grouped by where it was made.
    """
    em = em or emulate.Emulations()
    scenario = copy.deepcopy(scenario)
    train = scenario.get("train", {})
    precision = train.get("precision", "bf16-mixed")
    if precision not in ("fp32", "bf16-mixed", "fp16-mixed", "bf16"):
        raise ScenarioError(f"precision {precision} is not emulated by the accountant")
    autocast_dtype = {"bf16-mixed": torch.bfloat16, "fp16-mixed": torch.float16}.get(precision)
    loop = train.get("loop", "trainer")
    if loop not in ("trainer", "custom"):
        raise ScenarioError(f"train.loop must be trainer or custom, got {loop}")
    accum = int(train.get("grad_accum", 1))
    gpu = scenario.get("hardware", {}).get("gpu", "h100-sxm-80gb")
    em.compute_major = GPU_COMPUTE_MAJOR.get(gpu, 9)
    if em.compute_major < 8:
        raise ScenarioError("the sdpa emulation follows sm_80 and later (flash attention); pick such a GPU")

    logging.getLogger("transformers").setLevel(logging.ERROR)
    model = build_model(scenario, device)
    tracker = Tracker(keep_events=keep_events)
    tracker.snapshot_at = snapshot_at

    # Load: what exists before the first step (model.to("cuda")).
    for p in model.parameters():
        tracker.add_tensor(p, "parameter")
        tracker.label(p, "weights")
    for b in model.buffers():
        tracker.add_tensor(b, "buffer")
        tracker.label(b, "weights")
    trainable = [p for p in model.parameters() if p.requires_grad]
    for p in trainable:
        p.register_post_accumulate_grad_hook(lambda q: tracker.label(q.grad, "gradients"))
    optimizer = _make_optimizer(trainable, train.get("optimizer", "adamw"), em, model, loop)
    hooks = PhaseHooks(model, tracker)
    vocab = getattr(model.config, "vocab_size", 1000)
    workspace = em.cublas_workspace_bytes(training=True) // 2

    report = {"steps": [], "emulations": em.names(), "loop": loop}
    held_outputs = None
    batch = None
    mode = TrackingMode(tracker, em)
    autocast_ctx = (lambda: emulate.autocast(True, autocast_dtype)) if (autocast_dtype and em.autocast) \
        else contextlib.nullcontext
    with meta_stubs(), emulate.Patches(em, autocast_dtype if em.autocast else None), \
            _checkpoint_device(device), mode:
        for step in range(steps):
            tracker.step = step
            tracker.reset_window()
            for micro in range(accum):
                tracker.phase, tracker.layer = "embed_fwd", -1
                batch = None   # the loader's previous batch is dropped when the next is fetched
                batch = _inputs(model, train, device, vocab)
                if step == 0 and micro == 0 and workspace:
                    tracker.fixed(workspace, "cublas workspace (forward handle)", "workspace")
                with autocast_ctx():
                    outputs = model(**batch)
                loss = outputs.loss if hasattr(outputs, "loss") else outputs["loss"]
                if loop == "trainer":
                    # Trainer.compute_loss returns the loss only; the outputs die here.
                    outputs = None
                    held_outputs = None
                else:
                    # `outputs = model(**batch)` rebinds after the forward: the previous
                    # step's outputs lived through it and die now.
                    held_outputs = outputs
                    outputs = None
                if accum > 1:
                    loss = loss / accum
                tracker.phase, tracker.layer = "loss_bwd", -1
                hooks.in_backward = True
                if step == 0 and micro == 0 and workspace:
                    # Made at the backward's first matmul, the head's (tracker.py
                    # TrackingMode), after the loss's backward has freed its blocks;
                    # measured so on an H200 (docs/validation/gpu-h200-2026-11-27.md).
                    tracker.pending_workspace = (workspace, "cublas workspace (backward handle)", "workspace")
                loss.backward()
                hooks.in_backward = False
                del loss
            tracker.phase, tracker.layer = "optimizer_step", -1
            optimizer.step()
            for state in optimizer.state.values():
                for value in state.values():
                    tracker.label(value, "optimizer-state")
            optimizer.zero_grad(set_to_none=True)
            report["steps"].append({"peak_allocated_bytes": tracker.window_peak, "peak": tracker.window_info,
                                    "allocated_after_bytes": tracker.allocated})
        del held_outputs, batch
    report["peak_allocated_bytes"] = report["steps"][-1]["peak_allocated_bytes"]
    report["peak_phase"] = report["steps"][-1]["peak"]["phase"]
    report["peak_layer"] = report["steps"][-1]["peak"]["layer"]
    report["peak_op"] = report["steps"][-1]["peak"]["op"]
    report["categories"] = report["steps"][-1]["peak"]["categories"]
    report["parameters"] = sum(p.numel() for p in model.parameters())
    report["trainable_parameters"] = sum(p.numel() for p in trainable)
    if keep_events:
        report["events"] = tracker.events
    if tracker.snapshot is not None:
        groups = {}
        for n, cat, phase, layer, op in tracker.snapshot:
            key = (cat, phase, "per-layer" if layer >= 0 else "-", op)
            g = groups.setdefault(key, [0, 0])
            g[0] += n
            g[1] += 1
        report["snapshot"] = sorted(([*k, v[0], v[1]] for k, v in groups.items()), key=lambda r: -r[4])
    if events_out is not None:
        tracker.write_events(events_out)
    return report
