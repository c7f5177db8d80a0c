#!/bin/bash
# The HTML pages (report and compare) are Chinese throughout under
# LANG=zh_CN.UTF-8: <html lang="zh-CN"> and no English in any heading, table
# heading, caption, chart title or chart key. Allowed in them: ids (class
# and ledger row ids, "GPU", metric names as the tools show them: SM,
# GPU-Util, NCCL, PCIe, CPU, iowait), units, numbers, file names.
source "$(dirname "$0")/lib.bash"
: "${GW_FIXTURES:?GW_FIXTURES must point at tests/fixtures}"
S="$GW_FIXTURES/scenarios"
bindir=$(dirname "$GW_BIN")
[ -f "$bindir/locale/zh_CN/LC_MESSAGES/gpuwhy.mo" ] || { echo "no zh_CN catalog beside $GW_BIN: skipped"; exit 77; }
zh() { env -u LANGUAGE -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 "$GW_BIN" "$@"; }

# Fixtures that show every part of the page: findings, several GPUs with a
# straggler, a kernel timeline, the host charts, notes and experiments.
for f in ddp_straggler launch_tiny_ops input_slow_read power_cap healthy; do
  zh report --format html "$S/$f.db" >"$f.html"
done
zh compare "$S/sweep_bs32.db" "$S/sweep_bs64.db" "$S/sweep_bs128.db" --format html >compare.html

python3 - "$S" ./*.html <<'PY'
import re, sys
from html.parser import HTMLParser

fixtures = sys.argv[1]
# Words that may stay English in a heading: ids and names as tools print them.
ALLOWED = {
    "gpu", "gpus", "sm", "gpu-util", "nccl", "pcie", "cpu", "iowait", "gpuwhy", "compare", "rank", "mhz", "w", "s",
    "ms", "gb", "db", "vs", "h200", "nvidia", "hbm3e", "nvl", "sxm", "a", "b", "c", "zh-cn",
    # class ids and ledger row ids
    "worker", "tensor", "p90", "util",
    "input_pipeline", "launch_overhead", "small_batch", "multi_gpu_sync", "hardware_env", "schedule_shape",
    "productive", "idle_input", "idle_launch", "idle_sync", "idle_comm", "idle_other", "throttled", "startup",
    "straggler",
}
HEAD_TAGS = {"h1", "h2", "h3", "h4", "caption", "th", "figcaption", "title", "dt"}

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []
        self.texts = []  # (tag, text)
        self.lang = None
    def handle_starttag(self, tag, attrs):
        if tag == "html":
            self.lang = dict(attrs).get("lang")
        if tag in ("meta", "br", "rect", "line", "path", "polyline", "circle", "span") and tag != "span":
            return
        self.stack.append(tag)
    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass
    def handle_data(self, data):
        # an SVG <title> is a chart's tooltip (evidence text), not a heading
        inside = [t for t in self.stack if t in HEAD_TAGS and not (t == "title" and "svg" in self.stack)]
        if inside and data.strip() and "style" not in self.stack and "script" not in self.stack:
            self.texts.append((inside[-1], data.strip()))

bad = []
for path in sys.argv[2:]:
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    if p.lang != "zh-CN":
        bad.append(f"{path}: <html lang={p.lang!r}>")
    # file names of the fixtures (in h1 and the facts) are data, not words
    for tag, text in p.texts:
        words = re.findall(r"[A-Za-z][A-Za-z0-9_\-]*", re.sub(r"[\w\-]+\.db|sweep_bs\d+|\w+_\w+", " ", text))
        english = [w for w in words if w.lower() not in ALLOWED]
        if english:
            bad.append(f"{path}: <{tag}> {text!r}: {english}")
    n_cjk = sum(1 for _, t in p.texts if re.search(r"[\u4e00-\u9fff]", t))
    if n_cjk < 3:
        bad.append(f"{path}: only {n_cjk} Chinese headings")
if bad:
    print("\n".join(bad[:40]))
    sys.exit(1)
PY
echo "ok: zh_CN HTML pages have no English headings"
