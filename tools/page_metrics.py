"""Measure a report page in headless Chromium: page height and where an element starts, at a given width.

    .venv/bin/python tools/page_metrics.py reports/example/<stamp>/experiment.html [--width 1400] [--selector .rm-verdict]

Prints one JSON line: ``{"height": <document.body.scrollHeight px>, "top": <the selector's top px or null>,
"open_details": <details elements open>}`` with every ``<details>`` as the page leaves it (collapsed unless it says
``open``). A copy of the page with a measuring script appended is loaded (the page itself is not changed); the
script writes its figures into the DOM, which ``--dump-dom`` prints. Needs Debian's ``chromium``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-sync", "--disable-quic", "--hide-scrollbars"]

_PROBE = """<script>window.addEventListener("load", function () {{
  var el = document.querySelector({selector});
  var out = document.createElement("pre"); out.id = "rm-page-metrics";
  out.textContent = JSON.stringify({{height: document.body.scrollHeight,
    top: el ? Math.round(el.getBoundingClientRect().top + window.scrollY) : null,
    open_details: document.querySelectorAll("details[open]").length}});
  document.body.appendChild(out);
}});</script>"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def measure(page, *, width: int = 1400, selector: str = ".rm-verdict") -> dict:
    """``{"height", "top", "open_details"}`` of ``page`` (an HTML file) at ``width`` px in headless Chromium."""
    browser = chromium()
    if browser is None:
        raise RuntimeError("chromium is not installed (apt-get install -y chromium)")
    html = Path(page).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="page-metrics-") as tmp:
        copy = Path(tmp) / "page.html"
        copy.write_text(html.replace("</body>", _PROBE.format(selector=json.dumps(selector)) + "</body>", 1),
                        encoding="utf-8")
        done = subprocess.run([browser, *FLAGS, f"--user-data-dir={Path(tmp) / 'profile'}",
                               f"--window-size={width},1000", "--virtual-time-budget=5000", "--dump-dom",
                               copy.as_uri()], capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="rm-page-metrics">(.*?)</pre>', done.stdout)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"chromium failed on {page}: {done.stderr[-1000:]}")
    return json.loads(found.group(1).replace("&quot;", '"'))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--selector", default=".rm-verdict")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.page, width=args.width, selector=args.selector)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
