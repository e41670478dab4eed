"""What a widget's labels and messages say: the quantity the prose names, in words a reader can act on."""

import pyodide_widgets


def labels(name: str) -> dict:
    return {o.key: o.label for o in pyodide_widgets.module(name).OUTPUTS}


def test_the_time_widgets_checkpoint_is_the_one_the_frameworks_write_not_the_least_a_resume_needs():
    # The page: a resume needs the master weights and both moments (12 B/param); Megatron-LM and
    # DeepSpeed write the BF16 weights beside them (14 B/param), the figure the widget prints.
    label = labels("training_time")["checkpoint"]
    assert "Megatron-LM and DeepSpeed write" in label and "Resumable" not in label
