"""The section on cutting a job and the parallel_cuts widget: every figure is the parallelism estimators', formatted by units."""

import pytest

import estimators
from estimators import units
from harness import markup
from pyodide_widgets.contract import read
from pyodide_widgets.widgets import parallel_cuts
from tests.build.test_build import page_text

PRESETS = estimators.load_presets()


def _timed(state: dict) -> estimators.Gpu:
    """The widget's GPU on its links, as the step model reads it."""
    return estimators.gpu_preset(state["gpu"], state["scale_up"], state["scale_out"])


@pytest.fixture(scope="module")
def text(built_site) -> str:
    return " ".join(page_text(built_site, "training").split())


def test_the_section_comes_before_the_training_time_section(built_site):
    # Others may insert sections between them; the six cuts' widget must precede the run time's.
    widgets = [e.attrs["data-widget"] for e in markup.parse((built_site / "training" / "index.html").read_text("utf-8")).iter(data_widget=True)]
    assert widgets.index("parallel_cuts") < widgets.index("training_time")


@pytest.mark.parametrize("key", ["llama3-405b-8k", "llama3-405b-128k"])
def test_llama3_layout_table_is_the_estimators(text, key):
    layout = PRESETS.layout(key)
    t = estimators.layout_preset_traffic(key)
    for cut in t.cuts:
        link = PRESETS.interconnect(layout.scale_up if cut.scale_up else layout.scale_out)
        per_micro_batch = units.bytes_(cut.micro_batch_bytes) if cut.every_micro_batch else "once a step"
        row = (f"{units.integer(layout.seq_len)}-token sequences {cut.cut.upper()} {units.integer(cut.group_gpus)} "
               f"{units.bytes_(cut.traffic_bytes)} {per_micro_batch} {link.name} {units.duration(cut.link_seconds)}")
        assert row in text


def _traffic(state: dict):
    """The estimators' traffic of the widget's state (its fields read into SI units), its cut timed by the step model."""
    s = read(parallel_cuts.FIELDS, state)
    t = estimators.layout_traffic(PRESETS.model(s["model"]).config, estimators.single_cut_layout(s["cut"], s["gpus"]),
                                  s["seq_len"], s["micro_batch"], s["global_batch"], _timed(s))
    return t, next(c for c in t.cuts if c.cut == s["cut"])


@pytest.mark.parametrize("preset", list(parallel_cuts.presets()))
def test_the_parallel_cuts_widgets_figures_are_the_estimators(preset):
    out = parallel_cuts.update(parallel_cuts.presets()[preset]["state"])["outputs"]
    t, cut = _traffic(parallel_cuts.presets()[preset]["state"])
    assert out["traffic"] == units.bytes_(cut.traffic_bytes)
    assert out["link_time"] == units.duration(cut.link_seconds)
    assert out["compute"] == units.duration(t.compute_seconds)


def test_tensor_parallelism_past_one_server_crosses_the_network_and_becomes_communication_bound():
    """The page says so: past one server the ring runs on each server's cards together, near NVLink's pace, while each
    GPU's arithmetic shrinks and its bytes do not; a few servers on, the link outlasts the arithmetic."""
    start = parallel_cuts.presets()["llama3-405b-tp"]["state"]
    server = PRESETS.gpu(start["gpu"]).nvlink_domain_gpus
    ratios = []
    for servers in (1, 2, 4):
        state = {**start, "gpus": str(servers * server)}
        _, cut = _traffic(state)
        ratios.append(cut.comm_ratio)
        out = parallel_cuts.update(state)["outputs"]
        assert (PRESETS.interconnect(state["scale_out"]).name in out["link"]) is (servers > 1)
        # Within the link's pace its share of the arithmetic is printed as a percentage; past it, as a multiple.
        assert (units.percent(cut.comm_ratio) if cut.comm_ratio <= 1 else units.times(cut.comm_ratio)) in out["verdict"]
    assert ratios == sorted(ratios) and ratios[0] < 1 < ratios[-1]


def test_the_diagram_has_one_panel_per_cut_with_four_gpus():
    rows = parallel_cuts.slices()
    assert {r["cut"] for r in rows} == set(estimators.parallelism.CUTS)
    assert all(sum(r["cut"] == cut for r in rows) == parallel_cuts.DIAGRAM_GPUS for cut in estimators.parallelism.CUTS)


def test_the_tp_presets_state_does_not_fit_one_gpu_and_zero_over_a_server_does():
    """Llama 3 405B's 16 B/param state over 8 tensor-parallel GPUs is ~812 GB a GPU, against an H100's 80 GiB."""
    for key, fits in (("llama3-405b-tp", False), ("zero-8b", True)):
        state = read(parallel_cuts.FIELDS, parallel_cuts.presets()[key]["state"])
        model, gpu = PRESETS.model(state["model"]), PRESETS.gpu(state["gpu"])
        share = estimators.gpu_share(model.config, estimators.single_cut_layout(state["cut"], state["gpus"]),
                                     state["seq_len"], state["global_batch"])
        assert (share.state_bytes <= gpu.memory_bytes) is fits
        result = parallel_cuts.update(parallel_cuts.presets()[key]["state"])
        ratio = estimators.memory_fit(share.state_bytes, gpu.memory_bytes).ratio
        assert result["outputs"]["fit"].startswith(units.percent(ratio) if fits else units.times(ratio))
        assert all(row["bytes"] == share.state_bytes for row in result["data"]["gpus"])
        assert result["data"]["memory"][0]["bytes"] == gpu.memory_bytes


def test_the_picture_draws_the_cuts_collective_between_the_drawn_gpus():
    for key in parallel_cuts.presets():
        state = parallel_cuts.presets()[key]["state"]
        data = parallel_cuts.update(state)["data"]
        drawn = min(parallel_cuts.DIAGRAM_GPUS, int(state["gpus"]))
        assert [row["gpu"] for row in data["gpus"]] == list(range(drawn))
        sends = {(row["source"], row["target"]) for row in data["sends"]}
        ring = {(i, (i + 1) % drawn) for i in range(drawn)}
        expected = {"pp": {(i, i + 1) for i in range(drawn - 1)} | {(i + 1, i) for i in range(drawn - 1)},
                    "ep": {(i, j) for i in range(drawn) for j in range(drawn) if i != j}}.get(state["cut"], ring)
        assert sends == expected, key


def test_the_widgets_tp_preset_sends_the_tables_bytes_times_its_pipeline_stages():
    """The page says so: alone, the tensor-parallel GPUs hold all the layers the table's hold a stage of."""
    layout = PRESETS.layout("llama3-405b-8k")
    table = next(c for c in estimators.layout_preset_traffic("llama3-405b-8k").cuts if c.cut == "tp")
    alone, cut = _traffic(parallel_cuts.presets()["llama3-405b-tp"]["state"])  # the tensor-parallel cut alone
    assert cut.micro_batch_bytes == pytest.approx(layout.pp * table.micro_batch_bytes)
    assert alone.micro_batches == estimators.layout_preset_traffic("llama3-405b-8k").micro_batches


def test_expert_parallelism_on_a_dense_model_is_refused_at_the_model_field():
    state = {**parallel_cuts.presets()["ep-deepseek-v3"]["state"], "model": "llama3-8b"}
    with pytest.raises(estimators.EstimatorError) as e:
        parallel_cuts.update(state)
    assert e.value.argument == "model"
