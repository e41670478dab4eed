"""Synchronous against asynchronous checkpoints: two intervals of a run, one panel per mode.

Drawn from the rows of the dataset "modes" (one per mode: its key, title, the
pause per save, the background write and the interval, in seconds, from
estimators.checkpoint_stall). Each panel has two lanes, the GPUs and the
storage, over two checkpoint intervals. A pause of seconds in an interval of
half an hour would be narrower than a pixel, so every pause and write is
drawn at least MIN_SHARE of an interval wide, and the caption says so; the
panel is marked `data-when="mode=<key>"` for the runtime to show the picked one.
"""

from html import escape

DATASETS = ("modes",)
WIDTH, LANE_H, GAP, LEFT, TOP = 600, 26, 12, 70, 8
MIN_SHARE = 0.06  # of an interval: the narrowest a pause or write is drawn
INTERVALS = 2
TRAIN = "fill: var(--md-primary-fg-color--light)"
PAUSE = "fill: #e53935"
WRITE = "fill: #ffa726"
TEXT = "fill: var(--md-default-fg-color); font: 12px sans-serif"


def _share(seconds: float, interval: float) -> float:
    return max(seconds / interval, MIN_SHARE) if seconds > 0 else 0.0


def _panel(row: dict) -> str:
    span = (WIDTH - LEFT) / INTERVALS  # px per interval
    pause = _share(row["pause_s"], row["interval_s"]) * span
    write = min(_share(row["write_s"], row["interval_s"]), 1.0) * span
    gpu_y, disk_y = TOP, TOP + LANE_H + GAP
    parts = [f'<text x="0" y="{gpu_y + 17}" style="{TEXT}">GPUs</text>',
             f'<text x="0" y="{disk_y + 17}" style="{TEXT}">storage</text>']
    x = LEFT
    for _ in range(INTERVALS):
        parts.append(f'<rect x="{x}" y="{gpu_y}" width="{span - pause - 1}" height="{LANE_H}" style="{TRAIN}"/>')
        save = x + span - pause
        parts.append(f'<rect x="{save}" y="{gpu_y}" width="{pause}" height="{LANE_H}" style="{PAUSE}"/>')
        # Synchronously the write is the pause; asynchronously it starts once the copy to host memory is done.
        start = save if row["mode"] == "sync" else save + pause
        parts.append(f'<rect x="{start}" y="{disk_y}" width="{min(write, WIDTH - start)}" height="{LANE_H}" style="{WRITE}"/>')
        x += span
    height = disk_y + LANE_H + TOP
    return (f'<figure class="widget__option widget__diagram" data-when="mode={row["mode"]}">'
            f'<svg viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(row["alt"])}" '
            f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
            f'<figcaption>{escape(row["title"])}: training in blue, the GPUs paused in red, the write to storage '
            f'in orange, over two checkpoint intervals. Not to scale: a pause too short to see is drawn wider. '
            f'{escape(row["alt"])}</figcaption></figure>')


def draw(datasets: dict) -> str:
    """One <figure> per mode, in the rows' order."""
    return "".join(_panel(row) for row in datasets["modes"])
