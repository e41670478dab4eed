"""The layout planner against published runs: Llama 3 405B, torchtitan's Llama 3.1 benchmarks, DeepSeek-V3."""

from dataclasses import replace

import pytest

import estimators
from estimators import EstimatorError
from estimators.model_size import DecoderConfig
from estimators import planner
from estimators.parallelism import Layout
from estimators.planner import Cluster, cluster_preset, fastest_layout_plan, layout_plan, plan_layouts
from estimators.step_runs import measured_runs, predict_run, validation_summary
from estimators.step_time import gpu_preset, shape_of, step_seconds
from pyodide_widgets.contract import read
from pyodide_widgets.widgets import planner as planner_widget
from pyodide_widgets.widgets.planner import gpu_placement

PRESETS = estimators.load_presets()
GIB = 2**30

# The planner's step is the step model's (estimators/step_time.py), validated against published runs to within
# ±15% for most; a published layout's predicted MFU must land that close to the paper's.
WITHIN = 0.15
# A published layout's predicted step within this share of the planner's best on the same cluster and batch.
RANKING_SLACK = 0.10


def _llama3_cluster():
    # Llama 3 §3.3.1: 16,384 H100s, eight to a server on NVLink, 400 Gb/s RoCE between them.
    return cluster_preset("h100-sxm", 16384, "nvlink-h100", "roce-400g")


def _published(key):
    lay = PRESETS.layout(key)
    return lay, Layout(lay.tp, lay.cp, lay.pp, lay.dp)


@pytest.mark.parametrize("key", ["llama3-405b-8k", "llama3-405b-128k"])
def test_llama3_405b_published_layouts_fit_without_recomputation_and_predict_the_papers_mfu(key):
    # Llama 3 (Llama Team 2024) §3.3.2 and table 4: TP 8, CP 1 or 16, PP 16, trained without activation checkpointing,
    # 41% and 38% BF16 MFU (layouts.llama3-405b-8k, -128k).
    lay, layout = _published(key)
    plan = fastest_layout_plan(PRESETS.model(lay.model).config, layout, _llama3_cluster(), lay.seq_len,
                               lay.global_batch * lay.seq_len)
    assert plan.fits and plan.recompute == "none"
    assert abs(plan.mfu / lay.mfu - 1) <= WITHIN


def test_llama3_405b_long_context_layout_is_within_ten_percent_of_the_planners_best():
    standing = estimators.layout_preset_standing("llama3-405b-128k")
    plan = estimators.layout_preset_plan("llama3-405b-128k")
    assert standing.plan.step_seconds <= (1 + RANKING_SLACK) * plan.best[0].step_seconds
    assert all(p.recompute == "none" for p in plan.best)


def _runs_cutting_sequences_across_servers(seq_len):
    """Every published run (validated or unseen) whose context parallelism spans servers at `seq_len` tokens."""
    from estimators.step_runs import unseen_runs, unseen_tables
    runs = dict(measured_runs())
    for table in unseen_tables():
        runs.update(unseen_runs(table))
    return [key for key, r in runs.items() if r.seq_len == seq_len and r.setup.cp > 1
            and r.setup.tp * r.setup.cp > gpu_preset(r.gpu, r.scale_up, r.scale_out).scale_up_gpus]


def test_llama3_405b_8k_layout_loses_to_context_parallelism_across_servers_where_model_sizing_says():
    # Issue 40: a published layout within a tenth of the planner's best step, or the page says why, with numbers. On
    # Llama 3's 8K layout (TP 8, PP 16, DP 128; Llama 3 §3.3.2) the planner prefers cutting each sequence across
    # servers. What Model sizing states ("Context parallelism at short sequences"): the gap is over the model's error;
    # the first choice's context parallelism spans servers; the tensor-parallel traffic and the pipeline's bubble are
    # the two parts the published layout loses most on and account for more than the whole gap; the bubble because the
    # first choice has fewer data-parallel replicas, each running more micro-batches; the gathers cost less than the
    # tensor-parallel traffic they save; and one published run cuts 8K-token sequences across servers.
    key = "llama3-405b-8k"
    plan = estimators.layout_preset_plan(key)
    own, best = estimators.layout_preset_standing(key).plan, plan.best[0]
    assert own.step_seconds > (1 + plan.tie) * best.step_seconds
    assert best.layout.cp > 1 and best.layout.tp * best.layout.cp > _llama3_cluster().gpu.scale_up_gpus
    first, second = planner.step_parts(own, best)[:2]
    assert {first.name, second.name} == {"tp_seconds", "bubble_seconds"}
    gap = own.step_seconds - best.step_seconds
    assert (first.own_seconds - first.best_seconds) + (second.own_seconds - second.best_seconds) > gap
    assert best.layout.dp < own.layout.dp and best.micro_batches > own.micro_batches
    assert best.cp_seconds < own.tp_seconds - best.tp_seconds
    assert _runs_cutting_sequences_across_servers(PRESETS.layout(key).seq_len) == ["bridge-llama31-405b"]


def test_the_planners_bubble_is_its_share_of_the_step():
    # x = (p − 1)/(v·m) is the bubble over the busy time; the plan reports x/(1 + x), the share of the step it idles.
    lay, layout = _published("llama3-405b-8k")
    plan = fastest_layout_plan(PRESETS.model(lay.model).config, layout, _llama3_cluster(), lay.seq_len,
                               lay.global_batch * lay.seq_len)
    x = (layout.pp - 1) / (plan.chunks * plan.micro_batches)
    assert plan.bubble == pytest.approx(x / (1 + x))


# torchtitan's Llama 3.1 benchmarks on H100 (benchmarks/llama3_h100_202412_torchtitan.md, December 2024):
# the layout, the local batch, the recomputation and the peak memory measured, the largest over all GPUs.
# Sequences of 8,192 tokens (seq_len in torchtitan's train_configs/llama3_405b.toml); mixed-precision Adam, 16 bytes a
# parameter, as FSDP keeps it.
TORCHTITAN = [
    # table 4, "2D": 256 GPUs as FSDP 32 × TP 8, local batch 16, full recomputation: 71.9 GiB
    ("llama3-70b", Layout(tp=8, dp=32, zero_stage=3), 16, 1, "full", 71.9),
    # table 5, 1F1B: 512 GPUs as FSDP 8 × TP 8 × PP 8, local batch 32, full recomputation: 82.5 GiB
    ("llama3-405b", Layout(tp=8, pp=8, dp=8, zero_stage=3), 32, 1, "full", 82.5),
    # table 5, interleaved 1F1B: 72.7 GiB (the benchmark gives no chunk count: two a stage is this test's assumption)
    ("llama3-405b", Layout(tp=8, pp=8, dp=8, zero_stage=3), 32, 2, "full", 72.7),
]


@pytest.mark.parametrize("model, layout, local_batch, chunks, recompute, measured_gib", TORCHTITAN)
def test_torchtitan_llama31_layouts_fit_and_count_less_than_the_measured_peak(model, layout, local_batch, chunks,
                                                                              recompute, measured_gib):
    # The bill counts what a step must keep; the measured peak adds what it leaves out (the allocator's
    # reserve, FSDP's gathered weights and unsharded gradients, the recomputed layer's own activations
    # during its backward pass). It is a floor on the measurement, and the measurement fits the GPU.
    seq = 8192
    cluster = cluster_preset("h100-hbm2e-96gb", layout.gpus, "nvlink-h100", "roce-400g")
    # Under pipelining, one sequence per micro-batch (the benchmark does not say): the 1F1B bill then counts p in flight.
    micro_batch = 1 if layout.pp > 1 else local_batch
    plan = layout_plan(PRESETS.model(model).config, layout, cluster, seq, layout.dp * local_batch * seq, recompute,
                       chunks, "adam", micro_batch)
    assert plan.fits
    assert plan.memory_bytes < measured_gib * GIB <= cluster.gpu.memory_bytes


def test_torchtitan_llama31_8b_fits_under_selective_recomputation_counting_more_than_measured():
    # torchtitan table 1: Llama 3.1 8B on 8 GPUs, FSDP, local batch 2, selective recomputation: 82.4 GiB measured.
    # With FlashAttention and fused kernels counted the run fits; torchtitan's per-operator checkpointing also drops
    # every other matmul's output, which this count keeps, so the bill stays above the measurement.
    cluster = cluster_preset("h100-hbm2e-96gb", 8, "nvlink-h100", "roce-400g")
    layout, seq, tokens = Layout(dp=8, zero_stage=3), 8192, 8 * 2 * 8192
    config = PRESETS.model("llama3-8b").config
    selective = layout_plan(config, layout, cluster, seq, tokens, "selective", 1, "adam", 2)
    assert selective.fits and selective.memory_bytes > 82.4 * GIB


def test_deepseek_v3_published_layout_fits_with_zero_1_recomputing_its_blocks():
    # DeepSeek-V3 report (DeepSeek-AI 2024) §3.2: 2,048 H800s as 16-way pipeline, 64-way expert parallelism
    # over 8 nodes, ZeRO-1 data parallelism, no tensor parallelism; §4.2: 4K-token sequences, batch up to 15,360.
    # The H800's matrix units are the H100 SXM's: the H100's measured matmul rate stands for it. DeepSeek recomputes
    # norms and MLA's up-projections and caches the experts' inputs in FP8 (§3.2.3, §3.3.3), which this count does not
    # model: with the BF16 tensors of nine experts a token kept, the layout fits only recomputing whole blocks.
    cluster = cluster_preset("h800", 2048, "nvlink-h800", "infiniband-ndr")
    config, layout = PRESETS.model("deepseek-v3").config, Layout(pp=16, dp=128, ep=64, zero_stage=1)
    assert not layout_plan(config, layout, cluster, 4096, 15360 * 4096, "none").fits
    assert layout_plan(config, layout, cluster, 4096, 15360 * 4096, "full").fits


def test_deepseek_v3s_fastest_layouts_split_the_experts():
    cluster = cluster_preset("h800", 2048, "nvlink-h800", "infiniband-ndr")
    plan = plan_layouts(PRESETS.model("deepseek-v3").config, cluster, 4096, 15360 * 4096)
    assert plan.best and all(p.layout.ep > 1 for p in plan.best)


def test_deepseek_v3s_published_layout_through_the_planner_with_its_fp8_dualpipe_and_overlap_predicts_its_throughput():
    # DeepSeek-V3 report (DeepSeek-AI 2024): 180K H800 GPU-hours per trillion tokens (table 1) on PP 16 with DualPipe,
    # EP 64, ZeRO-1 (§3.2), FP8 matrix multiplies and dispatch (§3.3), all-to-alls overlapped, each token sent to at
    # most four nodes (§3.2.2): the step_runs row deepseek-v3. Chosen in the planner, its layout lands within ±15%;
    # left at BF16, 1F1B and nothing overlapped, it does not.
    run = measured_runs()["deepseek-v3"]
    su, tokens = run.setup, run.global_batch * run.seq_len
    layout = Layout(su.tp, su.cp, su.pp, su.dp, ep=su.ep)

    def ratio(precision, practice):
        cluster = cluster_preset(run.gpu, su.gpus, run.scale_up, run.scale_out, precision)
        plan = fastest_layout_plan(run.config, layout, cluster, run.seq_len, tokens, practice=practice)
        return tokens / plan.step_seconds / su.gpus / predict_run("deepseek-v3").measured

    practice = planner.Practice(schedule="dualpipe", ep_overlap=True, nodes_per_token=su.nodes_per_token)
    assert practice == planner.run_practice(run)
    assert abs(ratio("fp8", practice) - 1) <= WITHIN
    assert ratio("bf16", planner.PLANNED) < 1 - WITHIN


def test_dualpipe_keeps_two_copies_of_the_weights_and_one_micro_batch_more():
    # DeepSeek-V3 §3.2.1, table 2: DualPipe holds 2× the parameters and PP + 1 micro-batches' activations against 1F1B's PP.
    cluster = cluster_preset("h800", 2048, "nvlink-h800", "infiniband-ndr")
    config, layout = PRESETS.model("deepseek-v3").config, Layout(pp=16, dp=128, ep=64, zero_stage=1)
    one = layout_plan(config, layout, cluster, 4096, 15360 * 4096, "full")
    dual = layout_plan(config, layout, cluster, 4096, 15360 * 4096, "full", practice=planner.Practice(schedule="dualpipe"))
    state = one.memory_bytes - one.activation_bytes
    assert dual.activation_bytes == pytest.approx(one.activation_bytes * 17 / 16)
    assert dual.memory_bytes - dual.activation_bytes == pytest.approx(2 * state)
    assert dual.bubble < one.bubble


def test_dualpipe_rejects_an_odd_pipeline_and_searches_no_chunks():
    cluster = cluster_preset("h100-sxm", 48, "nvlink-h100", "roce-400g")
    config = PRESETS.model("llama3-8b").config
    dual = planner.Practice(schedule="dualpipe")
    with pytest.raises(EstimatorError, match="pp"):
        layout_plan(config, Layout(pp=3, dp=16), cluster, 8192, 96 * 8192, "none", practice=dual)
    plan = plan_layouts(config, cluster, 8192, 96 * 8192, practice=dual)
    assert all(p.chunks == 1 and (p.layout.pp == 1 or p.layout.pp % 2 == 0) for p in plan.best)
    assert dict(plan.rejected)[planner.REJECTIONS["pp_dualpipe"]] > 0


@pytest.mark.parametrize("field, value", [("schedule", "gpipe"), ("tp_overlap", 1.5), ("nodes_per_token", -1),
                                          ("ep_overlap", 1)])
def test_a_bad_practice_is_named(field, value):
    with pytest.raises(EstimatorError, match=field):
        planner.Practice(**{field: value})


def test_layouts_closer_than_the_models_held_out_error_share_a_place():
    # The tie is the step model's mean error on the published runs it was not fitted on (step_runs.validation_summary).
    lay, _ = _published("llama3-405b-8k")
    plan = plan_layouts(PRESETS.model(lay.model).config, _llama3_cluster(), lay.seq_len, lay.global_batch * lay.seq_len)
    assert plan.tie == validation_summary(fit=False).mean_abs_error
    steps = [p.step_seconds for p in plan.best]
    for place, step in zip(plan.places, steps):
        assert place == 1 + sum(other * (1 + plan.tie) < step for other in steps)
    assert plan.places[0] == 1 and list(plan.places) == sorted(plan.places)
    assert planner.tied_places((1.0, 1.0 + plan.tie / 2, 1.0 + 2 * plan.tie), plan.tie) == (1, 1, 3)


def test_a_published_runs_standing_uses_its_own_precision_schedule_and_overlaps():
    # DeepSeek-V3 (DeepSeek-AI 2024, §3.2–3.3): its layout is timed in FP8 with DualPipe and overlapped all-to-alls, and
    # so is the planner's best beside it.
    st = planner.measured_run_standing("deepseek-v3")
    run = measured_runs()["deepseek-v3"]
    cluster = cluster_preset(run.gpu, run.setup.gpus, run.scale_up, run.scale_out, run.precision)
    plan = plan_layouts(run.config, cluster, run.seq_len, run.global_batch * run.seq_len, best=1,
                        practice=planner.run_practice(run))
    assert st.best.step_seconds == plan.best[0].step_seconds and st.ratio >= 1


def test_rejected_layouts_are_counted_by_reason_and_the_counts_add_up():
    lay, _ = _published("llama3-405b-8k")
    plan = plan_layouts(PRESETS.model(lay.model).config, _llama3_cluster(), lay.seq_len, lay.global_batch * lay.seq_len)
    reasons = dict(plan.rejected)
    assert plan.fitting + sum(reasons.values()) == plan.layouts
    # TP 16 and wider leave the eight-GPU NVLink domain; PP 128 and more exceed the 126 layers.
    assert reasons["TP crosses a scale-up domain"] > 0
    assert reasons["PP splits the layers into no whole stages"] > 0
    assert reasons["fewer micro-batches than stages"] > 0


def test_a_width_the_heads_do_not_divide_is_named():
    with pytest.raises(EstimatorError) as e:
        DecoderConfig(layers=32, d_model=4097, heads=32, kv_heads=8, ffn_dim=14336, vocab=128256)
    assert e.value.argument == "heads"


def test_tensor_parallelism_the_heads_do_not_divide_is_named():
    # Llama 3 8B has 32 heads: TP 3 splits none of them evenly.
    cluster = cluster_preset("h100-sxm", 24, "nvlink-h100", "roce-400g")
    with pytest.raises(EstimatorError) as e:
        layout_plan(PRESETS.model("llama3-8b").config, Layout(tp=3, dp=8), cluster, 8192, 8 * 8192, "full")
    assert e.value.argument == "tp"


def test_zero_gpus_is_named():
    with pytest.raises(EstimatorError) as e:
        cluster_preset("h100-sxm", 0, "nvlink-h100", "roce-400g")
    assert e.value.argument == "gpus"


def test_a_batch_of_partial_sequences_is_named():
    with pytest.raises(EstimatorError) as e:
        plan_layouts(PRESETS.model("llama3-8b").config, _llama3_cluster(), 8192, 8192 * 16 + 1)
    assert e.value.argument == "global_batch_tokens"


def test_a_gpu_is_checked_field_by_field():
    # A reader's typed field replaces the preset's and is checked as the preset's was.
    gpu = gpu_preset("h100-sxm", "nvlink-h100", "roce-400g")
    with pytest.raises(EstimatorError) as e:
        replace(gpu, matmul_share=1.5)
    assert e.value.argument == "matmul_share"
    with pytest.raises(EstimatorError) as e:
        Cluster(8, "h100-sxm")
    assert e.value.argument == "gpu"


def test_every_gpu_preset_is_timed_by_the_step_model_with_its_own_or_its_chips_measurements():
    # Every GPU preset gives every field the step model reads; its matmul share is its measurement's rate over the BF16
    # peak of the GPU measured, so a card borrowing another chip's measurement gets a share, not a rate, of its own peak;
    # a part held below its datasheet's power gets that share times its peak at that power over its datasheet's.
    for key, g in PRESETS.gpus.items():
        gpu = gpu_preset(key, "nvlink-h100", "roce-400g")
        measured = PRESETS.matmul_rate(g.matmul_rate)
        clock = (g.power_limited_peak_flops or g.peak_flops["bf16"]) / g.peak_flops["bf16"]
        share = measured.matmul_flops / PRESETS.gpu(measured.gpu).peak_flops["bf16"]
        assert gpu.matmul_share == pytest.approx(clock * share)
        assert gpu.attention_share == pytest.approx(clock * g.attention_share)
        assert (gpu.memory_bytes, gpu.sms) == (g.memory_bytes, g.streaming_multiprocessors)
        assert 0 < gpu.matmul_share <= 1


@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_the_planner_and_the_step_model_give_one_answer(precision):
    # One GPU, one layout: the planner's step is the step model's on the same GPU, at FP8 as at BF16 (attention at the
    # BF16 peak in both). Llama 3 405B's 8K layout on H100s.
    lay, layout = _published("llama3-405b-8k")
    config, tokens = PRESETS.model(lay.model).config, lay.global_batch * lay.seq_len
    cluster = cluster_preset(lay.gpu, layout.gpus, lay.scale_up, lay.scale_out, precision)
    gpu = gpu_preset(lay.gpu, lay.scale_up, lay.scale_out, precision)
    assert cluster.gpu == gpu
    assert gpu.attention_peak_flops == PRESETS.gpu(lay.gpu).peak_flops["bf16"]
    planned = planner.layout_step(config, layout, cluster, lay.seq_len, tokens)
    direct = step_seconds(shape_of(config), planner.planned_setup(layout), gpu, lay.seq_len, lay.global_batch)
    assert planned.step_seconds == direct.step_seconds
    assert planned.mfu == direct.mfu


def test_pruned_ranking_equals_every_layout_evaluated_on_its_own():
    # The branch and bound must drop no layout that would rank: Llama 3 8B on 64 H100s, each layout
    # asked for by itself (its fastest fitting choice), sorted, gives the same best few.
    config, seq, tokens = PRESETS.model("llama3-8b").config, 8192, 512 * 8192
    cluster = cluster_preset("h100-sxm", 64, "nvlink-h100", "infiniband-ndr")
    alone = []
    for tp in (1, 2, 4, 8, 16, 32, 64):
        for cp in (d for d in (1, 2, 4, 8, 16, 32, 64) if 64 % (tp * d) == 0):
            for pp in (d for d in (1, 2, 4, 8, 16, 32, 64) if 64 % (tp * cp * d) == 0):
                try:
                    plan = fastest_layout_plan(config, Layout(tp, cp, pp, 64 // (tp * cp * pp)), cluster, seq, tokens)
                except EstimatorError:
                    continue
                if plan is not None:
                    alone.append(plan)
    ranked = plan_layouts(config, cluster, seq, tokens)
    expected = sorted(alone, key=lambda p: p.step_seconds)[:len(ranked.best)]
    assert [p.step_seconds for p in ranked.best] == [p.step_seconds for p in expected]
    assert ranked.fitting == len(alone)


def _divisors(n: int) -> list:
    return [d for d in range(1, n + 1) if n % d == 0]


@pytest.mark.parametrize("key", list(planner_widget.presets()))
def test_every_example_of_the_planner_ranks_as_every_layout_timed_alone(key):
    # The search prunes (branch and bound, layouts bounded only when a cheaper floor could be the next): on each of the
    # planner's examples its ranking must be every fitting layout timed by itself, fastest first.
    state = planner_widget.presets()[key]["state"]
    config, cluster, seq, tokens, practice = planner_widget.plan_inputs(state, read(planner_widget.FIELDS, state))
    ranked = plan_layouts(config, cluster, seq, tokens, practice=practice)
    experts = config.routed_experts if isinstance(config, estimators.MoeConfig) else 1
    n, alone = cluster.gpus, []
    for tp in (t for t in _divisors(cluster.gpu.scale_up_gpus) if n % t == 0):
        for cp in _divisors(n // tp):
            for pp in _divisors(n // (tp * cp)):
                dp = n // (tp * cp * pp)
                for ep in (e for e in _divisors(dp) if experts % e == 0 and (e == 1 or experts > 1)):
                    try:
                        plan = fastest_layout_plan(config, Layout(tp, cp, pp, dp, ep), cluster, seq, tokens,
                                                   practice=practice)
                    except EstimatorError:
                        continue
                    if plan is not None:
                        alone.append(plan)
    expected = sorted(alone, key=lambda p: p.step_seconds)[:len(ranked.best)]
    assert [(p.layout, p.step_seconds) for p in ranked.best] == [(p.layout, p.step_seconds) for p in expected]
    assert ranked.fitting == len(alone)


# What a reader may choose besides the degrees: the planner's default, and DeepSeek-V3's FP8, DualPipe and overlap.
PRACTICES = [("bf16", planner.PLANNED),
             ("fp8", planner.Practice(schedule="dualpipe", ep_overlap=True, tp_overlap=0.5, nodes_per_token=1))]


@pytest.mark.parametrize("precision, practice", PRACTICES)
def test_a_mixture_of_experts_pruned_ranking_equals_every_layout_evaluated_on_its_own(precision, practice):
    # The same for Mixtral 8x7B on 64 H100s, expert parallelism included: every layout alone, with each EP degree,
    # against the whole ranking.
    config, seq, tokens = PRESETS.model("mixtral-8x7b").config, 4096, 64 * 4096
    cluster = cluster_preset("h100-sxm", 64, "nvlink-h100", "infiniband-ndr", precision)
    divisors = (1, 2, 4, 8, 16, 32, 64)
    alone = []
    for tp, cp, pp in ((t, c, p) for t in divisors for c in divisors for p in divisors if 64 % (t * c * p) == 0):
        dp = 64 // (tp * cp * pp)
        for ep in (e for e in divisors if dp % e == 0):
            try:
                plan = fastest_layout_plan(config, Layout(tp, cp, pp, dp, ep), cluster, seq, tokens, practice=practice)
            except EstimatorError:
                continue
            if plan is not None:
                alone.append(plan)
    ranked = plan_layouts(config, cluster, seq, tokens, best=len(alone), practice=practice)
    expected = sorted(alone, key=lambda p: p.step_seconds)
    assert [p.step_seconds for p in ranked.best] == [p.step_seconds for p in expected]
    assert any(p.layout.ep > 1 for p in ranked.best[:8])
    assert ranked.fitting == len(alone)


@pytest.mark.parametrize("precision, practice", PRACTICES)
@pytest.mark.parametrize("model, gpus, seq", [("llama3-405b", 16384, 8192), ("mixtral-8x7b", 64, 4096)])
def test_no_bound_or_floor_of_the_search_exceeds_the_step_it_stands_for(model, gpus, seq, precision, practice):
    # The branch and bound is exact only if each of the search's floors of a layout (the last its tight bound; the
    # search takes the highest met so far) is no longer than any of its choices' floors, and a choice's floor no longer
    # than the step layout_plan computes for that choice; a layout's quick floor is no longer than its bound, its bound
    # than its tight bound.
    config = PRESETS.model(model).config
    cluster = cluster_preset("h100-sxm", gpus, "nvlink-h100", "roce-400g", precision)
    tokens = 2048 * seq if gpus > 64 else 256 * seq
    search, fitting, _, _ = planner._enumerate(config, cluster, seq, tokens, "adam_fp32_grads", practice)
    assert fitting
    for layout in fitting:
        bound, tight, choices = search.bound(layout), search.tight(layout), search.choices(layout)
        assert search.quick(layout) <= bound <= tight
        floors = [floor(layout) for floor in search.floors()]
        assert floors[-1] == tight
        assert choices and all(max(floors) <= floor for floor, *_ in choices)
        for floor, degrees, recompute, chunks, _, _ in choices:
            plan = layout_plan(config, Layout(*degrees), cluster, seq, tokens, recompute, chunks, practice=practice)
            assert plan.fits and floor <= plan.step_seconds


# Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", table 1:
# GPT models on Selene's A100s, sequences of 2,048 tokens, a vocabulary of 51,200. Per row: billions of parameters as
# the table gives them, attention heads, hidden size, layers, tensor- and pipeline-parallel size, GPUs, batch size, and
# the achieved share of the 312 TFLOP/s peak, 44% to 52%.
MEGATRON_TABLE_1 = [
    (1.7, 24, 2304, 24, 1, 1, 32, 512, 0.44),
    (18.4, 48, 6144, 40, 8, 1, 256, 1024, 0.43),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 0.47),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 0.52),
    (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 0.52),
]


@pytest.mark.parametrize("billions, heads, hidden, layers, tp, pp, gpus, batch, share", MEGATRON_TABLE_1)
def test_megatron_gpt_runs_fit_and_a_newer_framework_beats_their_share_of_peak(billions, heads, hidden, layers, tp, pp,
                                                                              gpus, batch, share):
    # Megatron's GPT: a GeLU MLP of 4h, LayerNorm, biases, learned positions and a tied output layer; its share of
    # peak counts the recomputed forward too (the paper's equation 3: every layer's activations are recomputed).
    config = DecoderConfig(layers, hidden, heads, heads, 4 * hidden, 51200, tied_embeddings=True, mlp="gelu",
                           norm="layernorm", bias=True, max_positions=2048, dropout=True)
    assert estimators.decoder_params(config).total / 1e9 == pytest.approx(billions, abs=0.05)  # the row as transcribed
    cluster = cluster_preset("a100-sxm", gpus, "nvlink-a100", "infiniband-hdr")
    plan = layout_plan(config, Layout(tp=tp, pp=pp, dp=gpus // (tp * pp)), cluster, 2048, batch * 2048, "full")
    assert plan.fits
    # The paper's count is 4/3 of the model FLOPs with whole layers recomputed (and a little attention): the planner,
    # which assumes FlashAttention, sequence parallelism and an overlapped reduction, does no worse than the 2021 run.
    assert plan.mfu >= share * 3 / 4


@pytest.mark.parametrize("key", ["llama3-405b-8k", "llama3-405b-128k"])
def test_a_published_layouts_rank_is_its_place_in_the_full_ranking(key):
    # The standing counts the faster layouts by branch and bound; ranking every fitting layout must agree.
    standing = estimators.layout_preset_standing(key)
    everything = estimators.layout_preset_plan(key, best=standing.fitting)
    assert len(everything.best) == standing.fitting == everything.fitting
    lay = PRESETS.layout(key)
    place = next(i for i, p in enumerate(everything.best) if (p.layout.tp, p.layout.cp, p.layout.pp, p.layout.dp) ==
                 (lay.tp, lay.cp, lay.pp, lay.dp))
    assert standing.rank == place + 1
    assert everything.best[place].step_seconds == standing.plan.step_seconds


def test_each_gpu_has_one_place_in_the_layout_tensor_ranks_innermost():
    layout, per_server = Layout(tp=4, cp=2, pp=3, dp=5), 8
    seen = set()
    for g in range(layout.gpus):
        at = gpu_placement(layout, per_server, g)
        assert at.tp + layout.tp * (at.cp + layout.cp * (at.pp + layout.pp * at.dp)) == g
        seen.add((at.tp, at.cp, at.pp, at.dp))
        # A tensor-parallel group of four never straddles a server of eight.
        assert at.server == gpu_placement(layout, per_server, g - at.tp).server
    assert len(seen) == layout.gpus
    with pytest.raises(EstimatorError) as e:
        gpu_placement(layout, per_server, layout.gpus)
    assert e.value.argument == "gpu"


def test_a_dense_model_is_one_expert_taken_by_every_token():
    assert estimators.model_experts(PRESETS.model("llama3-8b").config) == estimators.Experts(1, 1)
    mixtral = PRESETS.model("mixtral-8x7b").config
    assert estimators.model_experts(mixtral) == estimators.Experts(mixtral.routed_experts, mixtral.top_k)


def test_qwen3s_attention_is_as_wide_as_its_head_width_says_not_d_over_h():
    # Qwen3-30B-A3B's config.json: 32 heads of 128 on a width of 2,048, 4 key/value heads.
    config = PRESETS.model("qwen3-30b-a3b").config
    assert estimators.kv_width(config) == config.kv_heads * config.head_dim
    assert config.head_dim * config.heads != config.d_model


def test_the_planner_widget_offers_every_gpu_preset():
    # The widget's list is derived from the presets, every GPU preset in it (each is complete: presets.toml requires
    # every field the step model reads, tests/build/test_preset_errors.py proves a missing one stops the build).
    from pyodide_widgets.widgets import planner as widget

    offered = {value for value, _ in next(f for f in widget.FIELDS if f.name == "gpu").options}
    assert offered == set(PRESETS.gpus)

def test_the_planner_widgets_rows_say_which_layouts_tie_and_its_choices_reach_the_planner():
    # Llama 3 405B at 8K tokens (layouts.llama3-405b-8k): the rows read the plan's places, and the reader's precision,
    # schedule and overlaps are the plan's.
    from pyodide_widgets import contract
    from pyodide_widgets.widgets import planner as widget

    preset = widget.presets()["llama3-405b-8k"]
    state = {f.name: contract.form_text(f, preset["state"][f.name]) for f in widget.FIELDS}
    for changed in ({}, {"precision": "fp8", "schedule": "dualpipe", "tp_overlap": "true"}):
        s = {**state, **changed}
        plan = widget._plan(s, contract.read(widget.FIELDS, s))
        outputs = widget.update(s)["outputs"]
        for i, place in enumerate(plan.places, 1):
            shared = plan.places.count(place) > 1
            assert outputs[f"rank{i}_place"].startswith("tied ") == shared
            assert outputs[f"rank{i}_step"] == estimators.units.duration(plan.best[i - 1].step_seconds)
        assert (outputs["ties"].startswith("none")) == (len(set(plan.places)) == len(plan.places))
    dual = widget._plan({**state, "schedule": "dualpipe"}, contract.read(widget.FIELDS, {**state, "schedule": "dualpipe"}))
    assert all(p.layout.pp == 1 or p.layout.pp % 2 == 0 for p in dual.best)


@pytest.mark.parametrize("key", list(measured_runs()))
def test_each_published_runs_layout_is_within_ten_percent_of_the_planners_best_or_where_it_loses_is_named(key):
    # Each published run (step_runs.toml, its source named there) on its own cluster and batch: its step's parts add up
    # to its step on both layouts, and a layout more than a tenth slower than the planner's best has a part it spends
    # more seconds on, the one the page names (docs/model-sizing.md), the largest such difference.
    st = planner.measured_run_standing(key)
    assert sum(p.own_seconds for p in st.parts) == pytest.approx(st.own.step_seconds, rel=1e-9)
    assert sum(p.best_seconds for p in st.parts) == pytest.approx(st.best.step_seconds, rel=1e-9)
    differences = [p.own_seconds - p.best_seconds for p in st.parts]
    assert differences == sorted(differences, reverse=True)
    if st.ratio > 1 + RANKING_SLACK:
        assert st.why.own_seconds > st.why.best_seconds


def test_a_models_plan_on_a_fleet_keeps_to_its_learned_positions_and_its_gpus():
    # GPT-2's configuration (openai-community/gpt2) has 1,024 learned positions; Llama 3's rotary positions take
    # the 8,192-token sequences of its published layout (layouts.llama3-405b-8k).
    lay = PRESETS.layout("llama3-405b-8k")
    assert planner.model_sequence_length(PRESETS.model("gpt2-124m").config, lay.seq_len) == 1024
    assert planner.model_sequence_length(PRESETS.model("llama3-8b").config, lay.seq_len) == lay.seq_len
    small = planner.fleet_plan("gpt2-124m", "h100-sxm", 8)
    assert small.best and all(p.layout.gpus == 8 for p in small.best)
    big = planner.fleet_plan("llama3-405b", "h100-sxm", 16384)
    assert big.best[0].step_seconds == estimators.layout_preset_plan("llama3-405b-8k", best=1).best[0].step_seconds
    with pytest.raises(EstimatorError, match="gpus"):
        planner.fleet_plan("gpt2-124m", "h100-sxm", 0)


def test_the_run_time_widgets_model_mfu_is_its_own_models_at_the_planners_fastest_layout():
    # "How long does a training run take?": each example's model on its own GPU count, laid out as the planner lays it
    # out, never another model's published run.
    from pyodide_widgets.widgets import training_time
    from pyodide_widgets.contract import form_text
    for key, p in training_time.presets().items():
        run = PRESETS.run(key)
        state = {f.name: form_text(f, p["state"][f.name]) for f in training_time.FIELDS}
        outputs = training_time.update(state)["outputs"]
        best = planner.fleet_plan(run.model, run.gpu, run.gpus, run.precision).best
        assert outputs["model_mfu"] == (estimators.units.percent(best[0].mfu) if best else "no layout fits"), key
        if best:
            assert planner_widget.layout_text(best[0].layout) in outputs["model_layout"]
        moved = training_time.update({**state, "gpus": str(run.gpus * 2)})["outputs"]
        assert moved["model_mfu"] != outputs["model_mfu"] or moved["model_layout"] != outputs["model_layout"], key
