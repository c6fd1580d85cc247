"""Runs `trawl extract --format txt` on one core for the extraction benchmarks (`extract.py`,
`wcxb.py`) and reads its speed line from stdout:

  trawl extract: N pages (M MB) in S s of extraction: P pages/s

(the time is that of extraction alone, as the reference tools are timed around their extract
calls; reading and writing the files are not in it).
"""
import re
import subprocess
import sys

SPEED = re.compile(r"(\d+) pages \(([\d.]+) MB\) in ([\d.]+) s")


def run(trawl, input_dir, output_dir):
    """(pages, bytes, seconds of extraction) of one run, pinned to CPU 1."""
    r = subprocess.run(["taskset", "-c", "1", trawl, "--quiet", "extract", "--format", "txt",
                        "--input", input_dir, "--output", output_dir],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"trawl extract failed:\n{r.stderr[-2000:]}")
    m = SPEED.search(r.stdout)
    if m is None:
        sys.exit(f"trawl extract printed no speed line on stdout:\n{r.stdout[-2000:]}")
    return int(m.group(1)), float(m.group(2)) * 1e6, float(m.group(3))
