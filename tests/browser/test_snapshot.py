"""The worker's Pyodide memory snapshot (worker.js): a return visit restores
it; a stale, corrupt or truncated entry is never used but replaced; no
storage or a full quota means a plain boot. Every visit still answers as
CPython does.

The tests share one context of their own (per worker), which no other test
uses: its first visit boots cold and stores the snapshot, and every test
leaves it holding one good entry or none, so only the boots a test is about
are cold ones (a corrupt, stale or missing snapshot), not one more each to
make the snapshot it then damages."""

import pytest

from harness.widgets import NO_SNAPSHOT_STORAGE, snapshot_saved, wait_for_cpython_outputs, wait_live

from .conftest import PageLog
from .test_runtime import PAGE


@pytest.fixture(scope="module")
def snapshot_context(browser):
    context = browser.own_context()
    yield context
    context.close()


@pytest.fixture
def page(snapshot_context):
    """A new tab in the context the snapshot tests share: its stored snapshot, if any, is all it keeps."""
    page = snapshot_context.new_page()
    page.log = PageLog(page)
    yield page
    page.log.stop()
    page.close()


WIDGET = "training_time"
STORE = "widgets-pyodide-snapshot"
# A page of the site's origin without widgets, to read or clear its snapshot store without booting.
NO_WIDGETS = "/404.html"
WORKER = "**/assets/widgets/worker.js"

# (key, bytes, digest header) of every entry in the snapshot store, as the page sees it.
ENTRIES = """async (store) => {
  const cache = await caches.open(store);
  return Promise.all((await cache.keys()).map(async (key) => {
    const response = await cache.match(key);
    return [key.url, (await response.arrayBuffer()).byteLength, response.headers.get("x-snapshot-sha256")];
  }));
}"""

# Replaces the one entry's bytes by what `damage` makes of them, its headers (the digest) kept;
# or, with `rekeys`, puts the intact entry under each other key instead of its own.
TAMPER = """async ({ store, damage, rekeys }) => {
  const cache = await caches.open(store);
  const [key] = await cache.keys();
  const response = await cache.match(key);
  let bytes = new Uint8Array(await response.arrayBuffer());
  let headers = new Headers(response.headers);
  if (damage === "truncated") bytes = bytes.slice(0, bytes.length >> 1);
  if (damage === "flipped") bytes[bytes.length >> 1] ^= 1;
  if (damage === "not a snapshot") {
    bytes = new Uint8Array(bytes.length).fill(7);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    headers.set("x-snapshot-sha256", Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""));
  }
  await cache.delete(key);
  for (const url of rekeys ? rekeys.map(([from, to]) => key.url.replace(from, to)) : [key.url]) {
    await cache.put(url, new Response(bytes, { headers }));
  }
}"""

# Prepended to worker.js to make every write to the Cache API fail.
FULL_QUOTA = 'Cache.prototype.put = () => Promise.reject(new DOMException("Quota exceeded.", "QuotaExceededError"));\n'


def visit(page, url: str) -> str:
    """Load the page, wait until its widget is live and answers as CPython does; the worker's snapshot status."""
    page.goto(url)
    wait_live(page, WIDGET)
    page.fill(f'[data-widget="{WIDGET}"] [name="gpus"]', "4096")
    wait_for_cpython_outputs(page, WIDGET)
    return page.evaluate("window.widgetRuntime.snapshot")


def entries(page) -> list:
    return page.evaluate(ENTRIES, STORE)


def prepend_to_worker(page, code: str):
    def fulfill(route):
        response = route.fetch()
        route.fulfill(response=response, body=code + response.text())

    page.route(WORKER, fulfill)


def forget_snapshots(page):
    page.evaluate("store => caches.delete(store)", STORE)


@pytest.fixture
def snapshotted(page, site_url):
    """A page in a context whose first visit made a snapshot and stored it; (page, url). The context's
    first test makes it; a later one finds the one good entry the test before it left."""
    url = f"{site_url}{PAGE}"
    page.goto(f"{site_url}{NO_WIDGETS}")
    if not entries(page):
        assert visit(page, url) == "none"
        assert snapshot_saved(page) is True
    assert len(entries(page)) == 1
    return page, url


def test_without_storage_or_room_the_worker_boots_as_before_keeps_nothing_and_else_a_return_visit_restores_its_snapshot(
        page, site_url):
    """No Cache API: a plain boot. A full quota: a plain boot, no snapshot kept, no error. A visit after
    both finds nothing either left, boots plainly too and keeps its snapshot, which the return visit
    restores: the one good entry the tests after this one damage, so that their only cold boots are
    the ones they are about."""
    url = f"{site_url}{PAGE}"
    page.goto(f"{site_url}{NO_WIDGETS}")
    forget_snapshots(page)  # an earlier test's snapshot would be restored, quota or not
    prepend_to_worker(page, NO_SNAPSHOT_STORAGE)
    assert visit(page, url) == "unavailable"
    page.unroute(WORKER)
    prepend_to_worker(page, FULL_QUOTA)
    assert visit(page, url) == "none"
    assert snapshot_saved(page) is False
    assert entries(page) == []
    page.unroute(WORKER)
    assert visit(page, url) == "none"
    assert snapshot_saved(page) is True
    assert len(entries(page)) == 1
    assert not page.log.page_errors
    complaints = len(page.log.console_errors)
    assert visit(page, url) == "restored"
    assert page.log.console_errors[complaints:] == [] and not page.log.page_errors


@pytest.mark.parametrize("damage", ["truncated", "flipped", "not a snapshot"])
def test_a_corrupt_snapshot_is_never_used_and_is_rebuilt(snapshotted, damage):
    page, url = snapshotted
    page.evaluate(TAMPER, {"store": STORE, "damage": damage, "rekeys": None})
    assert visit(page, url) == "corrupt"
    assert snapshot_saved(page) is True
    assert visit(page, url) == "restored"


# Keys of entries made for another wheel and for another Pyodide.
STALE = (("wheel=", "wheel=old-"), ("pyodide=", "pyodide=0.0.1-"))


def test_a_stale_snapshot_is_never_used_and_is_replaced(snapshotted):
    """Entries made for another wheel or another Pyodide are ignored, then deleted when the new one is
    kept: both kinds stored at once, so one cold boot proves that neither is used."""
    page, url = snapshotted
    page.evaluate(TAMPER, {"store": STORE, "damage": None, "rekeys": [list(rekey) for rekey in STALE]})
    stale = {key for key, _, _ in entries(page)}
    assert len(stale) == len(STALE)
    assert visit(page, url) == "none"
    assert snapshot_saved(page) is True
    [(kept, _, _)] = entries(page)
    assert kept not in stale


