"""The waterfall widget of "Feeding the GPUs & MFU" on a model the reader types by its shape and on links of the
reader's: the step model's own answer for that model and cluster, the published measurement beside it only for the
run's own model on its own GPU and links, and each bad shape refused on the field that caused it.
"""

import json

import pytest

import estimators
from estimators import units
from estimators.mfu import relaid_run
from pyodide_widgets import dispatch
from pyodide_widgets.widgets import mfu_waterfall as widget

from .test_widget_contract import GARBAGE

RUNS = estimators.measured_runs()
PRESETS = widget.presets()
# Llama 3.1 8B on one server of eight H100s under torchtitan's FSDP, its shape typed (the typed example).
TYPED = PRESETS[widget.TYPED]["state"]
# Llama 3 405B's run over 16,384 H100s (Llama 3 §3.3.2): the one whose cuts cross servers.
LLAMA = PRESETS["llama3-405b-8k-16384"]["state"]


def answer(state: dict) -> dict:
    return json.loads(dispatch.handle(json.dumps({"widget": "mfu_waterfall", "state": state})))


def typed_config(state: dict) -> estimators.DecoderConfig:
    return estimators.DecoderConfig(*(int(state[n]) for n in ("layers", "d_model", "heads", "kv_heads")),
                                    ffn_dim=int(state["ffn_dim"]), vocab=int(state["vocab"]))


def test_the_runs_own_shape_typed_reads_as_the_runs_own_model_with_its_measurement():
    run = RUNS[TYPED["run"]]
    assert typed_config(TYPED) == run.config
    typed, own = widget.update(TYPED)["outputs"], widget.update({**TYPED, "model": widget.RUNS_OWN})["outputs"]
    assert typed == own
    assert typed["measured"] != widget.NONE
    relaid = relaid_run(TYPED["run"], run.setup, run.gpu)
    assert typed["predicted"] == f"{units.si(relaid.waterfall.tokens_per_second_per_gpu, 'tokens/s')} per GPU"


@pytest.mark.parametrize("changes", [{"layers": "16"}, {"d_model": "5120", "heads": "40"}, {"kv_heads": "32"},
                                     {"ffn_dim": "28672"}, {"vocab": "32000"}])
def test_a_typed_shape_is_timed_by_the_step_model_and_never_set_beside_the_runs_measurement(changes):
    state = {**TYPED, **changes}
    outputs = widget.update(state)["outputs"]
    run = RUNS[state["run"]]
    relaid = relaid_run(state["run"], run.setup, run.gpu, model=typed_config(state))
    assert relaid.measured is None
    assert outputs["predicted"] == f"{units.si(relaid.waterfall.tokens_per_second_per_gpu, 'tokens/s')} per GPU"
    assert outputs["mfu"] == units.percent(relaid.waterfall.mfu)
    assert outputs["measured"] == widget.NONE


def test_a_slower_network_card_slows_a_run_whose_cuts_cross_servers_and_hides_its_measurement():
    run, links = RUNS[LLAMA["run"]], estimators.load_presets().interconnects
    slow = [key for key, link in links.items()
            if link.scope == "scale-out" and link.bandwidth_bytes_per_s < links[run.scale_out].bandwidth_bytes_per_s]
    assert slow
    assert widget.update(LLAMA)["outputs"]["measured"] != widget.NONE
    own = relaid_run(LLAMA["run"], run.setup, run.gpu).waterfall.tokens_per_second_per_gpu
    for key in slow:
        outputs = widget.update({**LLAMA, "scale_out": key})["outputs"]
        relaid = relaid_run(LLAMA["run"], run.setup, run.gpu, scale_out=key)
        assert relaid.measured is None and outputs["measured"] == widget.NONE
        assert relaid.waterfall.tokens_per_second_per_gpu < own
        assert outputs["predicted"] == f"{units.si(relaid.waterfall.tokens_per_second_per_gpu, 'tokens/s')} per GPU"


def test_another_link_inside_the_server_is_the_step_models_on_that_link():
    run = RUNS[LLAMA["run"]]
    for key, link in estimators.load_presets().interconnects.items():
        if link.scope != "scale-up" or key == run.scale_up:
            continue
        outputs = widget.update({**LLAMA, "scale_up": key})["outputs"]
        relaid = relaid_run(LLAMA["run"], run.setup, run.gpu, scale_up=key)
        assert outputs["mfu"] == units.percent(relaid.waterfall.mfu) and outputs["measured"] == widget.NONE


def test_a_runs_own_links_are_its_examples_defaults():
    for key, preset in PRESETS.items():
        run = RUNS[preset["state"]["run"]]
        assert (preset["state"]["scale_up"], preset["state"]["scale_out"]) == (run.scale_up, run.scale_out), key


@pytest.mark.parametrize("changes, field", [
    ({"heads": "33"}, "heads"),  # 4,096 values per token over 33 heads
    ({"d_model": "4100"}, "d_model"),  # 4,100 values per token over 32 heads: the width typed, so the width's fault
    ({"kv_heads": "5"}, "kv_heads"),  # 32 heads in groups of 5
    ({"kv_heads": "64"}, "kv_heads"),  # more key/value heads than heads
    ({"layers": "0"}, "layers"),
    ({"vocab": "-1"}, "vocab"),
    ({"ffn_dim": "1.5"}, "ffn_dim"),
    ({"layers": "nan"}, "layers"),
])
def test_a_bad_shape_is_refused_on_the_field_that_caused_it(changes, field):
    reply = answer({**TYPED, **changes})
    assert "outputs" not in reply
    assert reply["error"]["field"] == field
    assert not GARBAGE.search(reply["error"]["message"])


def test_a_shape_is_checked_only_when_the_model_is_typed():
    # A shape no model has, with the run's own model picked: the typed fields wait, the run's model is timed.
    bad = {**TYPED, "heads": "33", "model": widget.RUNS_OWN}
    assert widget.update(bad)["outputs"] == widget.update({**TYPED, "model": widget.RUNS_OWN})["outputs"]


def test_a_typed_mixture_layout_is_refused_for_a_dense_shape():
    reply = answer({**TYPED, "ep": "2", "gpus": "8"})
    assert reply["error"]["field"] == "ep"


@pytest.mark.parametrize("changes, field", [
    ({"layers": "2", "pp": "8", "gpus": "8"}, "layers"),  # two blocks typed, then eight stages picked: the blocks'
    ({"pp": "128", "gpus": "128"}, "pp"),  # 32 blocks typed as Llama 3.1 8B has them, 128 stages picked: the stages'
    ({"heads": "4", "kv_heads": "4", "tp": "8"}, "heads"),  # four heads typed over eight tensor-parallel GPUs
    ({"tp": "8", "heads": "64", "kv_heads": "8"}, None),  # 64 heads split over eight GPUs: an answer
])
def test_a_layout_a_typed_shape_cannot_take_is_refused_on_the_field_the_reader_typed(changes, field):
    reply = answer({**TYPED, **changes})
    if field is None:
        assert not GARBAGE.search(json.dumps(reply["outputs"]))
        return
    assert "outputs" not in reply and reply["error"]["field"] == field
    unit = next(f.unit for f in widget.FIELDS if f.name == field)
    assert not unit or unit in reply["error"]["message"]
