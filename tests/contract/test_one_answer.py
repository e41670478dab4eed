"""One run, one answer: the estimators, the widgets and the command line that print a fine-tune's memory, an
activation memory, a step's time or a run's ideal time give the same figure when asked the same question.

Issue 41 found each given two answers: QLoRA on Llama 2 7B read 3.74 GB on the command line and 4.07 GB
on the pages and in the widget; Llama 3 8B at 8K tokens read 185.8 GB of activations in the memory bill
and 40.9 GB in the planner; a layout at FP8 timed 2.67 s through the planner's GPU and 3.08 s through
the step model's. Each test here asks every place that prints the figure, at one set of inputs, and
compares the raw values (the command line's --json, the estimators' results) or, for a widget, its
text against the `units` text of the estimators' value.
"""

import json

import pytest

import estimators
from estimators import planner, units
from estimators.__main__ import main
from estimators.step_time import gpu_preset, shape_of, step_seconds
from pyodide_widgets.widgets import finetune_fit, memory_bill, training_time
from pyodide_widgets.widgets import planner as planner_widget

PRESETS = estimators.load_presets()


def command_line(capsys, *argv) -> dict:
    """`python -m estimators <argv> --json`, its figures by name."""
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# --- a fine-tune's memory: QLoRA on a 7B model ---------------------------------------------------------


def test_a_qlora_fine_tune_of_a_7b_model_reads_one_memory_on_the_command_line_in_the_widget_and_in_the_estimators(capsys):
    ft = PRESETS.finetune("lora-7b")  # Llama 2 7B, r = 16 on q, k, v, o, NF4 with double quantization
    config, gpu = PRESETS.model(ft.model).config, PRESETS.gpu(ft.gpu)
    state = estimators.finetune_breakdown("qlora", config, ft.rank, ft.modules, ft.quantization)
    bill = estimators.finetune_bill("qlora", config, ft.rank, ft.modules, ft.quantization, seq_len=ft.seq_len,
                                    micro_batch=ft.micro_batch, recompute=ft.recompute, budget_bytes=gpu.memory_bytes)
    # The model state: the bill's is the breakdown's, and the command line prints it.
    assert bill.state.total == state.total
    typed = command_line(capsys, "finetune", "--method", "qlora", "--model", ft.model, "--rank", str(ft.rank),
                         "--modules", ",".join(ft.modules), "--quantization", ft.quantization)
    assert typed["total"] == pytest.approx(state.total, rel=1e-12)
    # The widget: the bill's total, and its bars the same bill part by part (the state, then the activations).
    shown = finetune_fit.update(finetune_fit.presets()["lora-7b"]["state"])
    assert shown["outputs"]["qlora"] == units.bytes_(bill.total)
    bars = {row["part"]: row["bytes"] for row in shown["data"]["fit"] if row["method"] == finetune_fit.METHODS["qlora"]}
    assert sum(bars.values()) == pytest.approx(bill.total, rel=1e-12)
    assert bars.pop("activations") == pytest.approx(bill.activations, rel=1e-12)
    assert sum(bars.values()) == pytest.approx(state.total, rel=1e-12)


# --- activations: Llama 3 8B at 8K tokens, one GPU's blocks ---------------------------------------------

LLAMA3_8B = "llama3-8b"
SEQ, MICRO_BATCH = 8192, 1


def _bill_activations(recompute: str, attention: str) -> float:
    config = PRESETS.model(LLAMA3_8B).config
    return estimators.memory_bill(config, gpus=8, zero_stage=0, optimizer="adam", seq_len=SEQ, micro_batch=MICRO_BATCH,
                                  recompute=recompute, tp=1, gpu_memory_bytes=PRESETS.gpu("h100-sxm").memory_bytes,
                                  attention=attention).memory.activations


@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
@pytest.mark.parametrize("attention", ["flash", "unfused"])
def test_llama3_8b_at_8k_reads_one_activation_memory_in_the_bill_and_on_the_command_line(capsys, recompute, attention):
    typed = command_line(capsys, "activations", "--model", LLAMA3_8B, "--seq-len", str(SEQ), "--micro-batch",
                         str(MICRO_BATCH), "--sequence-parallel", "--recompute", recompute, "--attention", attention)
    assert typed["activation_bytes"] == pytest.approx(_bill_activations(recompute, attention), rel=1e-12)


@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
def test_the_planner_counts_flash_attentions_activations_as_the_bill_does(recompute):
    # The planner assumes FlashAttention: its layout of one GPU a replica holds the bill's FlashAttention bytes.
    config = PRESETS.model(LLAMA3_8B).config
    cluster = planner.cluster_preset("h100-sxm", 8, "nvlink-h100", "roce-400g")
    plan = planner.layout_plan(config, estimators.Layout(tp=1, cp=1, pp=1, dp=8), cluster, SEQ,
                               global_batch_tokens=8 * SEQ, recompute=recompute, micro_batch=MICRO_BATCH)
    assert plan.activation_bytes == pytest.approx(_bill_activations(recompute, "flash"), rel=1e-12)


@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
def test_the_memory_bill_widget_prints_the_bills_unfused_activations(recompute):
    # The widget counts unfused attention, as Korthikanti et al. do (its page says so); the figure is the bill's.
    state = {**next(iter(memory_bill.presets().values()))["state"], "model": LLAMA3_8B, "seq_len": str(SEQ),
             "micro_batch": str(MICRO_BATCH), "recompute": recompute, "tp": "1", "pp": "1"}
    assert memory_bill.update(state)["outputs"]["activations"] == units.bytes_(_bill_activations(recompute, "unfused"))


# --- a step's time: one layout on one GPU, in BF16 and in FP8 ------------------------------------------


@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_a_layouts_step_reads_one_time_in_the_planner_the_step_model_and_the_planners_widget(precision):
    key = "llama3-405b-8k"
    lay, state = PRESETS.layout(key), planner_widget.presets()[key]["state"]
    config = PRESETS.model(lay.model).config
    gpus, tokens = int(state["gpus"]), lay.global_batch * lay.seq_len
    cluster = planner.cluster_preset(lay.gpu, gpus, lay.scale_up, lay.scale_out, precision)
    best = estimators.plan_layouts(config, cluster, lay.seq_len, tokens).best[0]
    # The step model, on the GPU built from the same presets, with the planner's assumed framework.
    gpu = gpu_preset(lay.gpu, lay.scale_up, lay.scale_out, precision)
    assert cluster.gpu == gpu
    setup = planner.planned_setup(best.layout, best.recompute, best.chunks, gpu=gpu)
    direct = step_seconds(shape_of(config), setup, gpu, lay.seq_len, global_batch=tokens // lay.seq_len)
    assert direct.step_seconds == pytest.approx(best.step_seconds, rel=1e-12)
    assert direct.mfu == pytest.approx(best.mfu, rel=1e-12)
    # The planner's widget, at the same model, cluster and batch, prints the same step and MFU.
    outputs = planner_widget.update({**state, "precision": precision})["outputs"]
    assert (outputs["step"], outputs["mfu"]) == (units.duration(best.step_seconds), units.percent(best.mfu))


@pytest.mark.parametrize("run", ["llama3-405b", "llama3-405b-gb200-fp8"])
def test_a_runs_ideal_time_reads_one_figure_in_the_estimate_the_command_line_and_the_training_time_widget(capsys, run):
    # A whole run at its published MFU (C = 6ND over peak × MFU), not a step: the estimate, `time --run` and W8's preset.
    estimate = estimators.run_preset_estimate(run)
    typed = command_line(capsys, "time", "--run", run)
    assert (typed["training_seconds"], typed["gpu_hours"]) == pytest.approx((estimate.seconds, estimate.gpu_hours), rel=1e-12)
    outputs = training_time.update(training_time.presets()[run]["state"])["outputs"]
    assert (outputs["duration"], outputs["gpu_hours"]) == (units.duration(estimate.seconds), units.count(estimate.gpu_hours))
