// SPDX-License-Identifier: GPL-3.0-or-later
// hf-python's run-time parts: the command line (--smoke-test, --steps,
// --measurement), the random-weights model and random-token dataset of a
// smoke test, the measurement writer and its TrainerCallback, and the
// Trainer call.
//
// The smoke test exists so that the script can be run end to end without
// the user's weights or data: from a config.json alone, with random weights
// saved to a temporary folder that the script's own from_pretrained line then
// loads (so quantization, dtype and attention go through the same call as a
// real run), on random token ids of the planned shape. Without a GPU it runs
// on the CPU, and its measurement says "device": "cpu" and carries no CUDA
// counters (io/measurement.h), so no number from it can pass for a GPU's.
// tests/libraries runs it under the pinned stack (docs/library-checks.md).
//
// Sources: AutoConfig.from_pretrained takes a folder or a config.json path,
// and from_config builds random weights (transformers configuration_utils.py,
// models/auto/auto_factory.py); TrainingArguments max_steps, save_strategy
// "no", report_to "none" (training_args.py); Trainer.train returns a
// TrainOutput(global_step, training_loss, metrics) (trainer_utils.py);
// TrainerCallback's on_pre_optimizer_step and on_optimizer_step
// (trainer_callback.py, transformers 4.46 and later).
#include "io/exportersinternal.h"

#include "io/measurement.h"
#include "io/scenariofile.h"

#include <nlohmann/json.hpp>

#include <string>

namespace headroom::exportdetail {

std::string hfCommandLinePython(const Scenario& sc)
{
    return "parser = argparse.ArgumentParser(description=" + pyString("Training script for " + sc.model.id +
                                                                      ", written by Headroom.") +
           R"PY()
parser.add_argument("--smoke-test", metavar="CONFIG",
                    help="run --steps steps on random token ids with random weights built from CONFIG (a config.json "
                         "or a folder holding one): nothing is downloaded; without a GPU it runs on the CPU")
parser.add_argument("--steps", type=int, default=2, help="optimizer steps of --smoke-test (default 2)")
parser.add_argument("--measurement", default="headroom_measurement.json",
                    help="the headroom.measurement/1 file the run writes (default headroom_measurement.json)")
cli = parser.parse_known_args()[0]  # launchers add arguments of their own (deepspeed: --local_rank)
headroom_notes = []  # what this run does differently from the scenario: written into the measurement

)PY";
}

// `autoClass`: the class the script loads with (AutoModelForCausalLM...).
std::string hfSmokeTestModelPython(const Scenario& sc, const char* autoClass)
{
    const std::string config = sc.model.classifier()
                                   ? "AutoConfig.from_pretrained(cli.smoke_test, num_labels=" +
                                         std::to_string(sc.model.numLabels) + ")"
                                   : std::string("AutoConfig.from_pretrained(cli.smoke_test)");
    return std::string(R"PY(if cli.smoke_test:  # random weights from CONFIG, saved where from_pretrained below loads them
    import atexit
    import shutil
    import tempfile
    from transformers import AutoConfig

    model_id = tempfile.mkdtemp(prefix="headroom-smoke-test-")
    atexit.register(shutil.rmtree, model_id, True)
    )PY") + autoClass +
           ".from_config(" + config + ").save_pretrained(model_id)\n" +
           R"PY(    headroom_notes.append(f"smoke test: random weights from {cli.smoke_test}, random tokens, {cli.steps} steps")
)PY";
}

std::string hfFlashOnCpuPython()
{
    return R"PY(attn_implementation = "flash_attention_2"
if cli.smoke_test and not torch.cuda.is_available():  # flash-attn runs on CUDA only
    attn_implementation = "sdpa"
    headroom_notes.append("attention sdpa instead of flash_attention_2: no GPU")
)PY";
}

// use_cpu: TrainingArguments refuses bf16 and fp16 without a GPU unless told
// the run is on the CPU (training_args.py _validate_args).
std::string hfSmokeTestArgsPython()
{
    return R"PY(smoke_test_args = {}
if cli.smoke_test:  # its steps, nothing saved or reported; on the CPU when there is no GPU
    smoke_test_args = {"max_steps": cli.steps, "save_strategy": "no", "report_to": "none",
                       "use_cpu": not torch.cuda.is_available()}
)PY";
}

// A function and a TrainerCallback that write what the run measured as a
// headroom.measurement/1 file (io/measurement.h) for `headroom-cli compare`.
// Self-contained (torch, json, and transformers for the callback) so that
// users can paste them into their own loop or Trainer.
std::string hfMeasurementPython(const Scenario& sc)
{
    return std::string(R"PY(# Measured on your stack: after training, the measurement file (--measurement, headroom_measurement.json)
# holds the peaks this run read; `headroom-cli compare headroom_measurement.json` puts them beside Headroom's
# plan. The two definitions below need only torch (and transformers for the callback): paste them into your
# own loop (call write_headroom_measurement after the steps) or Trainer (callbacks=[...]).
HEADROOM_SCENARIO = json.loads()PY") +
           pyString(scenarioToJson(sc).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) + ")\n" +
           R"PY(

def write_headroom_measurement(path, scenario=None, phases=None, steps=None, device_used=None, notes=None):
    """Writes this process's CUDA memory peaks as )PY" +
           kMeasurementSchema + R"PY( JSON.

    Without a GPU there are no CUDA memory counters: the file says "device": "cpu" and holds none.
    """
    import importlib.metadata

    def version(name):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None

    measurement = {"schema": ")PY" +
           kMeasurementSchema + R"PY(", "device": "cpu"}
    if torch.cuda.is_available():
        phases = phases or {}
        device = torch.cuda.current_device()
        allocated = max([torch.cuda.max_memory_allocated(device)] +
                        [p["max_memory_allocated_bytes"] for p in phases.values()])
        reserved = max([torch.cuda.max_memory_reserved(device)] +
                       [p.get("max_memory_reserved_bytes", 0) for p in phases.values()])
        try:  # NVML, as nvidia-smi reads it (torch 2.6 and later)
            used, source = torch.cuda.device_memory_used(device), "nvml"
        except Exception:  # older torch or no NVML: the CUDA driver's free memory
            free, total = torch.cuda.mem_get_info(device)
            used, source = total - free, "mem_get_info"
        measurement.update({
            "device": "cuda",
            "max_memory_allocated_bytes": max(1, allocated),
            "max_memory_reserved_bytes": max(1, allocated, reserved),
            "device_used_bytes": max(used, device_used or 0),
            "device_used_source": source,
            "phases": phases,
            "gpu": {"name": torch.cuda.get_device_name(device),
                    "total_bytes": torch.cuda.get_device_properties(device).total_memory},
        })
    measurement["versions"] = {"torch": torch.__version__, "transformers": version("transformers"),
                               "cuda": torch.version.cuda, "peft": version("peft")}
    if scenario is not None:
        measurement["scenario"] = scenario
    if steps:
        measurement["steps"] = steps
    if notes:
        measurement["notes"] = notes
    with open(path, "w") as out:
        json.dump(measurement, out, indent=2)


class HeadroomMeasurementCallback(TrainerCallback):
    """Peaks per phase of each step; writes the measurement when training ends."""

    def __init__(self, path="headroom_measurement.json", scenario=None, notes=None):
        self.path, self.scenario, self.notes = path, scenario, notes
        self.phases, self.steps, self.device_used = {}, 0, 0

    def _mark(self, phase):  # the peaks since the last mark, then a fresh start
        if not torch.cuda.is_available():  # the CPU has no such counters
            return
        peak = self.phases.setdefault(phase, {"max_memory_allocated_bytes": 0, "max_memory_reserved_bytes": 0})
        peak["max_memory_allocated_bytes"] = max(peak["max_memory_allocated_bytes"], torch.cuda.max_memory_allocated())
        peak["max_memory_reserved_bytes"] = max(peak["max_memory_reserved_bytes"], torch.cuda.max_memory_reserved())
        free, total = torch.cuda.mem_get_info()
        self.device_used = max(self.device_used, total - free)
        torch.cuda.reset_peak_memory_stats()

    def on_train_begin(self, args, state, control, **kwargs):
        self._mark("load")

    def on_pre_optimizer_step(self, args, state, control, **kwargs):  # transformers 4.46 and later
        self._mark("forward_backward")

    def on_optimizer_step(self, args, state, control, **kwargs):
        self._mark("optimizer")

    def on_step_end(self, args, state, control, **kwargs):
        self._mark("rest_of_step")
        self.steps += 1

    def on_train_end(self, args, state, control, **kwargs):
        self._mark("rest_of_step")
        write_headroom_measurement(self.path, self.scenario, self.phases, self.steps, self.device_used, self.notes)


)PY";
}

std::string hfTrainerCallPython(const Scenario& sc, const Plan& plan)
{
    const std::string seq = std::to_string(sc.train.seqLen);
    // A classifier learns one class per sequence; the language models
    // (causal and masked) predict the tokens themselves.
    const std::string labels = sc.model.classifier() ? "torch.randint(0, model.config.num_labels, ())" : "t";
    return "train_dataset = None  # your tokenized dataset: sequences of " + seq +
           " tokens (max_seq_length above)\n" +
           R"PY(if cli.smoke_test:  # random token ids of the planned shape, as many as the steps take
    rows = (cli.steps * training_args.per_device_train_batch_size * training_args.gradient_accumulation_steps
            * training_args.world_size)
    tokens = torch.randint(0, model.config.vocab_size, (rows, )PY" +
           seq + "))\n    train_dataset = [{\"input_ids\": t, \"labels\": " + labels + "} for t in tokens]\n" +
           R"PY(
trainer = Trainer(model=model, args=training_args, train_dataset=train_dataset,
                  callbacks=[HeadroomMeasurementCallback(cli.measurement, HEADROOM_SCENARIO, "; ".join(headroom_notes))])
if train_dataset is not None:
    result = trainer.train()
    print(f"{result.global_step} steps, training loss {result.training_loss:.4f}; measurement in {cli.measurement}")
    with open(cli.measurement) as measured:  # the callback's peaks: it resets PyTorch's after each phase
        peak = json.load(measured).get("max_memory_allocated_bytes")
    if peak is not None:
        print(f"peak allocated {peak / 2**30:.2f} GiB (Headroom predicted )PY" +
           gibText(static_cast<double>(plan.peakAllocatedBytes)) + ")\")\n";
}

} // namespace headroom::exportdetail
